// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>
#include "lwc.h"
TEST(CApi, Placeholder) { EXPECT_EQ(lwc_abi_version(), LWC_ABI_VERSION); }
