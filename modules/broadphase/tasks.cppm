// SPDX-License-Identifier: MIT
// File: modules/broadphase/tasks.cppm   Module: lwc.broadphase:tasks
//
// The module unit of lwc.broadphase:tasks: it exports what modules/lwc/broadphase/tasks.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
export module lwc.broadphase:tasks;

#include "lwc/broadphase/tasks.h"
