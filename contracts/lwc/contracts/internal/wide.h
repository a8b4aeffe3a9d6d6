// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/internal/wide.h
//
// Included by <lwc/contracts/rebase.h>: lwc.contracts.internal.wide (not part of the API) as a header.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../../internal/wide.cppm"
