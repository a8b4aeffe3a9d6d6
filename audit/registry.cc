// SPDX-License-Identifier: MIT
// File: audit/registry.cc              Module: lwc.contracts.audit (implementation unit)
//
// The contracts a trace may name. A contract joins the trace audit with its file audit/contracts/<c>.cc
// (defining internal::<c>_audit(), declared in audit/lwc/contracts/audit.h) and one row here.
module;
#include <span>
module lwc.contracts.audit;

namespace lwc::contracts {

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

}  // namespace lwc::contracts
