// SPDX-License-Identifier: MIT
// File: proofs/support/prover.h
//
// The runner of every proof in proofs/: each claim is a z3 formula (the kernel's result, built by
// instantiating modules/lwc/kernels.h with lwc::proofs::ZOps or bit-vector terms) whose negation must be
// unsatisfiable under the stated domains. Prints, per claim, the statement in words, the domains of its
// variables and the solver time; on failure a counterexample as a ready-to-paste GoogleTest regression.
// Writes every result to a JSON file (`--json PATH`), which scripts/evidence.py reads for the audit's
// "proved" column. Exit status: 0 when every claim is proved, 1 otherwise.
#ifndef LWC_PROOFS_PROVER_H_
#define LWC_PROOFS_PROVER_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <z3++.h>

namespace lwc::proofs {

struct Claim {
  std::string clause;     // "D1", or several: "C1 C2"
  std::string name;       // short and unique within the proof: "D1 shift path"
  std::string statement;  // in words
  std::string domain;     // the variables and their domains
  std::vector<z3::expr> hypotheses;
  z3::expr goal;
  // A GoogleTest regression from a model of the negation (a counterexample).
  std::function<std::string(const z3::model&)> regression;
  // "every input" when the claim covers the clause's whole domain, else what the bound is.
  std::string scope = "every input";
  // A z3 tactic to build the solver from ("qfnra-nlsat" for claims stated over the reals); default solver
  // when empty.
  std::string tactic = "";
};

class Prover {
 public:
  Prover(std::string contract, int argc, char** argv) : contract_(std::move(contract)) {
    for (int i = 1; i < argc; ++i) {
      if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_ = argv[++i];
      if (std::strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) timeout_ms_ = static_cast<unsigned>(std::atoi(argv[++i]) * 1000);
    }
    unsigned major = 0, minor = 0, build = 0, rev = 0;
    Z3_get_version(&major, &minor, &build, &rev);
    version_ = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build);
    std::cout << "proof of lwc." << contract_ << " with z3 " << version_ << " (timeout " << timeout_ms_ / 1000
              << " s per claim)\n\n";
  }

  z3::context& ctx() { return ctx_; }

  // Builds a claim in a fresh z3 context (so that each claim's solver run depends on that claim alone, not
  // on the terms other claims created) and proves it.
  bool prove(const std::function<Claim(z3::context&)>& build) {
    z3::context c;
    return prove(c, build(c));
  }

  // Proves `claim`; true when the negation of its goal is unsatisfiable under its hypotheses.
  bool prove(const Claim& claim) { return prove(ctx_, claim); }
  bool prove(z3::context& ctx, const Claim& claim) {
    z3::solver solver = claim.tactic.empty() ? z3::solver(ctx) : z3::tactic(ctx, claim.tactic.c_str()).mk_solver();
    z3::params params(ctx);
    params.set("timeout", timeout_ms_);
    solver.set(params);
    for (const z3::expr& h : claim.hypotheses) solver.add(h);
    solver.add(!claim.goal);
    const auto start = std::chrono::steady_clock::now();
    const z3::check_result r = solver.check();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Result out{{claim.clause, claim.name, claim.statement, claim.domain, claim.scope}, r == z3::unsat ? "proved" : r == z3::sat ? "failed" : "unknown", seconds, "", ""};
    std::cout << (r == z3::unsat ? "PROVED  " : r == z3::sat ? "FAILED  " : "UNKNOWN ") << claim.name << "  ("
              << fixed(seconds) << " s)\n"
              << "  clause:    " << claim.clause << "\n"
              << "  statement: " << claim.statement << "\n"
              << "  domain:    " << claim.domain << "\n"
              << "  scope:     " << claim.scope << "\n";
    if (r == z3::sat) {
      const z3::model m = solver.get_model();
      out.counterexample = claim.regression ? claim.regression(m) : "";
      std::cout << "  counterexample, as a regression test for tests/" << contract_ << "_test.cc:\n"
                << out.counterexample << "\n";
    } else if (r == z3::unknown) {
      out.reason = solver.reason_unknown();
      std::cout << "  solver gave up: " << out.reason << "\n";
    }
    std::cout << "\n";
    results_.push_back(out);
    return r == z3::unsat;
  }

  // Writes the JSON report and returns the exit status.
  int finish() {
    int proved = 0;
    double total = 0;
    for (const Result& r : results_) {
      proved += r.result == "proved" ? 1 : 0;
      total += r.seconds;
    }
    std::cout << contract_ << ": " << proved << " of " << results_.size() << " claims proved in " << fixed(total)
              << " s of solver time\n";
    if (!json_.empty()) {
      std::ofstream f(json_);
      f << "{\"schema\": 1, \"contract\": " << quote(contract_) << ", \"solver\": " << quote("z3 " + version_)
        << ", \"claims\": [";
      for (std::size_t i = 0; i < results_.size(); ++i) {
        const Result& r = results_[i];
        f << (i == 0 ? "\n" : ",\n") << "  {\"clause\": " << quote(r.claim.clause) << ", \"name\": " << quote(r.claim.name)
          << ", \"statement\": " << quote(r.claim.statement) << ", \"domain\": " << quote(r.claim.domain)
          << ", \"scope\": " << quote(r.claim.scope) << ", \"result\": " << quote(r.result)
          << ", \"seconds\": " << fixed(r.seconds) << ", \"counterexample\": " << quote(r.counterexample)
          << ", \"reason\": " << quote(r.reason) << "}";
      }
      f << "\n]}\n";
      if (!f) {
        std::cerr << "cannot write " << json_ << "\n";
        return 1;
      }
    }
    return proved == static_cast<int>(results_.size()) ? 0 : 1;
  }

 private:
  struct Info {  // a claim's words, without its z3 terms (they die with the claim's context)
    std::string clause, name, statement, domain, scope;
  };
  struct Result {
    Info claim;
    std::string result;
    double seconds;
    std::string counterexample;
    std::string reason;
  };
  static std::string fixed(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
  }
  static std::string quote(const std::string& s) {
    std::string o = "\"";
    for (const char ch : s) {
      if (ch == '"' || ch == '\\') {
        o += '\\';
        o += ch;
      } else if (ch == '\n') {
        o += "\\n";
      } else if (static_cast<unsigned char>(ch) < 0x20) {
        o += ' ';
      } else {
        o += ch;
      }
    }
    return o + "\"";
  }

  std::string contract_;
  std::string json_;
  std::string version_;
  unsigned timeout_ms_ = 60000;
  z3::context ctx_;
  std::vector<Result> results_;
};

// The value of an integer (or bit-vector, read as signed when `is_signed`) term in a model, as C++ source:
// INT64_MIN is spelled so that it compiles.
inline std::string int_literal(const z3::model& m, const z3::expr& e) {
  const z3::expr v = m.eval(e, true);
  std::string s = v.is_numeral() ? v.get_decimal_string(0) : "0";
  if (s == "-9223372036854775808") return "std::numeric_limits<std::int64_t>::min()";
  return "INT64_C(" + s + ")";
}
inline std::string uint_literal(const z3::model& m, const z3::expr& e) {
  const z3::expr v = m.eval(e, true);
  return "UINT64_C(" + (v.is_numeral() ? v.get_decimal_string(0) : std::string("0")) + ")";
}

}  // namespace lwc::proofs

#endif  // LWC_PROOFS_PROVER_H_
