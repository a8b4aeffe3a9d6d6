// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/broadphase/batch.h
//
// Included by <lwc/contracts/broadphase.h>: the partition lwc.contracts.broadphase:batch as a header.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../../broadphase/batch.cppm"
