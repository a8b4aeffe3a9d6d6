// SPDX-License-Identifier: MIT
// File: audit/registry.cc              Module: lwc.audit.trace (implementation unit)
//
// The contracts a trace may name. A contract joins the trace audit with its file audit/contracts/<c>.cc
// (defining internal::<c>_audit(), declared in audit/lwc/audit/trace.h) and one row here.
module;
#include <span>
module lwc.audit.trace;

namespace lwc::audit {

std::span<const ContractAudit> traced_contracts() {
  static const ContractAudit kContracts[] = {
      internal::decompose_audit(),
      internal::cover_audit(),
      internal::broadphase_audit(),
      internal::commit_audit(),
      internal::rebase_audit(),
  };
  return kContracts;
}

}  // namespace lwc::audit
