// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/broadphase/persistent.h
//
// Included by <lwc/contracts/broadphase.h>: the partition lwc.contracts.broadphase:persistent as a header.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../../broadphase/persistent.cppm"
