// SPDX-License-Identifier: MIT
// File: modules/lwc/rebase/spec.h
//
// The header form of the partition lwc.rebase:spec (modules/lwc/config.h), included by <lwc/rebase.h>.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../rebase/spec.cppm"
