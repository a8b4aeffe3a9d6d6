// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/place.h
//
// Included by <lwc/broadphase.h>; not a header to include on its own.
// The partition lwc.broadphase:place as a header (modules/lwc/config.h).
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../broadphase/place.cppm"
