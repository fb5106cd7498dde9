#include "known_bad_checker.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>

#include "model/expectation.h"

namespace hk::test {
namespace {

using nlohmann::json;
using Problems = std::vector<std::string>;

const json* find_case(const json& results, const std::string& kernel, const std::string& case_name) {
  for (const json& c : results.at("cases"))
    if (c.value("kernel", "") == kernel && c.value("case", "") == case_name) return &c;
  return nullptr;
}

const json& first_output(const json& c) {
  static const json kNone = json::object();
  return c.contains("outputs") && !c["outputs"].empty() ? c["outputs"][0] : kNone;
}

const json& output_named(const json& c, const std::string& name) {
  static const json kNone = json::object();
  if (!c.contains("outputs") || !c["outputs"].is_array()) return kNone;
  for (const json& o : c["outputs"])  // by reference: the result points into c
    if (o.value("name", "") == name) return o;
  return kNone;
}

// A LEAK: the case passes alone and fails after `after` ran in its worker.
void check_leak(const json& c, const std::string& after, Problems& p) {
  const json& leak = c.value("leak", json());
  if (!leak.is_object() || leak.value("alone", "") != "PASS" || leak.value("in_worker", "") != "FAIL")
    p.push_back("leak should say PASS alone and FAIL in the worker, got " + leak.dump());
  else if (leak.at("after").empty() || leak.at("after").back() != after)
    p.push_back("leak should name the case that ran before it, got " + leak.at("after").dump());
}

// An ERROR for arguments that do not fit the kernel's parameters: its message names the argument
// and the parameter (with the parameter's type where the backend tells it, its size on CUDA).
void check_mismatch_text(const json& c, const std::string& argument, const std::string& parameter, Problems& p) {
  const std::string m = c.value("message", "");
  if (m.find("the manifest's arguments do not fit") == std::string::npos || m.find(argument) == std::string::npos ||
      m.find(parameter) == std::string::npos)
    p.push_back(fmt::format("message should say the arguments do not fit, naming '{}' and '{}', got: {}", argument, parameter, m));
}

// Details per corpus kernel, beyond the status: they fail when a verdict is reached by accident.
using DetailCheck = std::function<void(const json& c, Problems& p)>;
const std::map<std::string, DetailCheck>& detail_checks() {
  static const std::map<std::string, DetailCheck> kChecks = {
      {"kb_head_offset",
       [](const json& c, Problems& p) {
         const json& fm = first_output(c).value("first_mismatch", json());
         if (fm.is_null() || fm.at("index") != json::array({1, 0, 0}))
           p.push_back("first mismatch should be at [1, 0, 0] (head 1), got " + fm.dump());
       }},
      {"fault_tail_unwritten",
       [](const json& c, Problems& p) {
         const int64_t n = 1000, tail = n - (n / 256) * 256;
         if (first_output(c).value("unwritten", -1) != tail)
           p.push_back(fmt::format("unwritten should be the tail, {}, got {}", tail, first_output(c).value("unwritten", json()).dump()));
       }},
      {"kb_write_past_end",
       [](const json& c, Problems& p) {
         const json want = {{"tensor", "out"}, {"side", "after"}, {"bytes", 4}, {"first_offset", 0}, {"last_offset", 3}};
         if (c.value("guards", json::array()) != json::array({want}))
           p.push_back("guards should be " + json::array({want}).dump() + ", got " + c.value("guards", json()).dump());
       }},
      {"kb_resample_reads_one_past",
       [](const json& c, Problems& p) {
         const json want = {{"tensor", "x"}, {"side", "after"}, {"bytes", 4}, {"first_offset", 0}, {"last_offset", 3}};
         if (c.value("read_outside", json()) != want) p.push_back("read_outside should be " + want.dump() + ", got " + c.value("read_outside", json()).dump());
         if (first_output(c).value("nonfinite", 0) != 1) p.push_back("only the last output should be NaN, got " + first_output(c).dump().substr(0, 300));
       }},
      {"kb_row_sum_reads_unwritten_slots",
       [](const json& c, Problems& p) {
         if (first_output(c).value("nonfinite", 0) != 64) p.push_back("every row's sum should be NaN, got " + first_output(c).dump().substr(0, 300));
       }},
      {"kb_row_sum_shuffles_after_return",
       [](const json& c, Problems& p) {
         const std::string m = c.value("message", "");
         if (m.find("__shfl_xor_sync at ") == std::string::npos || m.find("outside_bugs.cu:") == std::string::npos ||
             m.find("which returned before it") == std::string::npos)
           p.push_back("should name the shuffle, its line and the returned lanes, got: " + m.substr(0, 300));
       }},
      {"kb_race_missing_barrier",
       [](const json& c, Problems& p) {
         if (c.value("launches", 0) < 2) p.push_back("should have been launched at least twice");
         const json diffs = c.value("repeat_diffs", json::array());
         if (diffs.empty() || diffs[0].value("elements", 0) <= 0) p.push_back("should report differing elements, got " + diffs.dump());
       }},
      {"kb_atomic_row_sum",
       [](const json& c, Problems& p) {
         // Launches may or may not differ in a given run; when they do, it must be said.
         if (c.value("launches", 0) < 2) p.push_back("should have been launched at least twice");
         bool noted = false;
         for (const json& n : c.value("notes", json::array())) noted |= n.get<std::string>().find("nondeterministic") != std::string::npos;
         if (!c.value("repeat_diffs", json::array()).empty() && !noted)
           p.push_back("launches differed, so a note should say the output is nondeterministic");
       }},
      {"kb_topk_ties_by_value",
       [](const json& c, Problems& p) {
         const json& idx = c.at("outputs").at(1);
         if (idx.value("compare", "") != "indices" || idx.at("checks").at(0).value("pass", false) != true)
           p.push_back("indices should pass by the 'indices' rule, got " + idx.dump());
       }},
      {"kb_topk_wrong_index",
       [](const json& c, Problems& p) {
         const json& values = c.at("outputs").at(0);
         const json& idx = c.at("outputs").at(1);
         if (!values.value("pass", false)) p.push_back("values should pass: only the indices are wrong");
         if (idx.value("mismatches", -1) != 16) p.push_back("one index per row (16) should select a wrong value, got " + idx.value("mismatches", json()).dump());
       }},
      {"kb_tree_sum_missing_barrier",
       [](const json& c, Problems& p) {
         // On a GPU the sums usually come out right and racecheck fails the case; on the host
         // backend the threads run one after another and the sums are wrong.
         const bool by_sanitizer = c.value("message", "").find("compute-sanitizer racecheck") != std::string::npos;
         if (!by_sanitizer && first_output(c).value("mismatches", 0) == 0)
           p.push_back("should fail by its sums or by a racecheck report, got message '" + c.value("message", "") + "'");
       }},
      {"kb_reads_unwritten_output",
       [](const json& c, Problems& p) {
         if (first_output(c).value("nonfinite", -1) != 1000 || first_output(c).value("unwritten", -1) != 0)
           p.push_back("all 1000 elements should count as NaN computed from the poison, none as unwritten; got nonfinite " +
                       first_output(c).value("nonfinite", json()).dump() + ", unwritten " + first_output(c).value("unwritten", json()).dump());
       }},
      {"kb_nan_output",
       [](const json& c, Problems& p) {
         if (first_output(c).value("nonfinite", -1) != 20)
           p.push_back("nonfinite should be 20, got " + first_output(c).value("nonfinite", json()).dump());
       }},
      {"kb_reference_throws",
       [](const json& c, Problems& p) {
         if (c.value("message", "").find("this reference fails on purpose") == std::string::npos)
           p.push_back("message should carry the reference's exception, got: " + c.value("message", ""));
       }},
      {"kb_scalar_i32_for_int64",
       [](const json& c, Problems& p) { check_mismatch_text(c, "argument 2 (/args/2, scalar i32", "parameter 2, ", p); }},
      {"kb_scalar_f64_for_float",
       [](const json& c, Problems& p) { check_mismatch_text(c, "argument 3 (/args/3, scalar f64", "parameter 3, ", p); }},
      {"kb_scalar_extra_argument",
       [](const json& c, Problems& p) {
         check_mismatch_text(c, "the kernel takes 3 parameter(s); the manifest passes 4 argument(s)", "", p);
       }},
      {"kb_too_large",
       [](const json& c, Problems& p) {
         const json& lim = c.value("limit", json());
         if (lim.is_null() || lim.value("over_by", 0) <= 0) p.push_back("should report the bytes asked for and the device's memory");
       }},
      {"fault_shared_over_limit",
       [](const json& c, Problems& p) {
         const json& lim = c.value("limit", json());
         if (lim.is_null() || lim.value("requested", 0) != 300000 || lim.value("over_by", 0) <= 0)
           p.push_back("limit should show 300000 bytes requested and the excess, got " + lim.dump());
       }},
      {"kb_static_shared_300k",
       [](const json& c, Problems& p) {
         // The figure, as the host backend (307200), ptxas (0x4b000) or hipRTC (307200) gives it.
         const std::string text = c.value("message", "") + c.value("compile_log", "");
         if (text.find("307200") == std::string::npos && text.find("0x4b000") == std::string::npos)
           p.push_back("the compile error should give the 307200 bytes of static shared memory, got: " + c.value("message", ""));
       }},
      {"kb_rmsnorm_round_toward_zero",
       [](const json& c, Problems& p) {
         // Caught for the right reason: every element within 1 ulp, far too many beyond half an ulp.
         const json& o = first_output(c);
         if (o.value("beyond_hard_ulps", -1) != 0 || o.value("mismatch_fraction", 0.0) < 0.2)
           p.push_back("out should have no element beyond 1 ulp and over 20% beyond half an ulp, got " + o.dump().substr(0, 300));
       }},
      {"kb_qkv_rope_head_offset",
       [](const json& c, Problems& p) {
         // Head 0 reads its own columns, every other head half of another's: q is wrong on heads
         // 1.. only, k (heads Hq.. of the row) on all of its heads, v (copied) not at all.
         const json& q = output_named(c, "q");
         const json& heads = q.value("slices", json::array()).size() > 1 ? q["slices"][1] : json();
         if (heads.is_null() || heads.value("right", "") != "0" || heads.value("wrong_count", 0) + 1 != heads.value("size", 0))
           p.push_back("q should be right on head 0 and wrong on every other head, got slices " + q.value("slices", json()).dump());
         if (output_named(c, "k").value("pass", true) || !output_named(c, "v").value("pass", false))
           p.push_back("k should fail and v pass, got k " + output_named(c, "k").value("pass", json()).dump() + ", v " +
                       output_named(c, "v").value("pass", json()).dump());
       }},
      {"kb_qkv_rope_f16_table",
       [](const json& c, Problems& p) {
         // Caught for its precision, not a wrong index (which errs by ~5): the f16 cos/sin err by
         // up to 2^-12 relative, so f32 outputs (|x| < 2, two products) are off by at most ~1e-3,
         // bf16/f16 ones by that plus half an ulp of the output (~8e-3 for bf16 near 2).
         for (const char* name : {"q", "k"}) {
           const json& o = output_named(c, name);
           const double worst = o.value("max_abs_diff", 0.0), most = o.value("dtype", "") == "f32" ? 2e-3 : 2e-2;
           if (o.value("pass", true) || worst < 1e-5 || worst > most || o.value("unwritten", -1) != 0 || o.value("nonfinite", -1) != 0)
             p.push_back(fmt::format("{} should fail by 1e-5..{}, all written and finite, got {}", name, most, o.dump().substr(0, 300)));
         }
       }},
      {"fault_block_over_limit",
       [](const json& c, Problems& p) {
         const json& lim = c.value("limit", json());
         if (lim.is_null() || lim.value("requested", 0) != 2048 || lim.value("over_by", 0) <= 0)
           p.push_back("limit should show 2048 threads requested and the excess, got " + lim.dump());
       }},
      {"fault_missing_entry",
       [](const json& c, Problems& p) {
         if (c.value("message", "").find("no_such_kernel") == std::string::npos)
           p.push_back("message should name the missing symbol no_such_kernel, got: " + c.value("message", ""));
       }},
      {"fault_syntax_error",
       [](const json& c, Problems& p) {
         if (c.value("message", "").find("syntax_error.cu") == std::string::npos)
           p.push_back("message should carry the compiler's line in syntax_error.cu, got: " + c.value("message", ""));
       }},
      {"kb_leaky_total", [](const json& c, Problems& p) { check_leak(c, "kb_leaky_total / first_in_worker", p); }},
      {"kb_moe_sigmoid_top1_expert0",
       [](const json& c, Problems& p) {
         // Every id is 0: wrong for each token whose argmax is another expert. The weight is
         // sigmoid(expert 0's logit): wrong on exactly those tokens, right where expert 0 wins
         // (the logits are exact multiples of a power of two, so equal logits compare equal).
         const json& ids = c.at("outputs").at(0);
         const json& w = c.at("outputs").at(1);
         const int64_t bad = ids.value("mismatches", int64_t{-1}), numel = ids.value("numel", int64_t{0});
         if (bad <= 0 || bad >= numel) p.push_back(fmt::format("topk_ids: some but not all of {} should be wrong, got {}", numel, bad));
         if (ids.value("unwritten", -1) != 0 || ids.at("worst").value("got", -1.0) != 0.0)
           p.push_back("topk_ids should all be written, the wrong ones as 0, got " + ids.dump());
         if (w.value("mismatches", int64_t{-1}) != bad)
           p.push_back(fmt::format("topk_weights should be wrong on exactly the {} tokens whose id is wrong, got {}", bad,
                                   w.value("mismatches", json()).dump()));
       }},
      {"kb_solve_tril_no_identity",
       [](const json& c, Problems& p) {
         // The diagonal of X = (I + A)^-1 starts at 0, so the inverse comes out 0: the first
         // mismatch is Ai[0, 0, 0], token 0's own diagonal (0 where 1 is expected); every diagonal
         // element (81 tokens x 2 heads) is wrong, nothing outside the chunks' lower triangles (1250).
         const json& out = first_output(c);
         const json& fm = out.value("first_mismatch", json());
         if (fm.is_null() || fm.at("index") != json::array({0, 0, 0}) || fm.at("got") != 0.0 || fm.at("expected") != 1.0)
           p.push_back("first mismatch should be the diagonal Ai[0, 0, 0], 0 where 1 is expected, got " + fm.dump());
         const int64_t bad = out.value("mismatches", int64_t{-1});
         if (bad < 162 || bad > 1250 || out.value("unwritten", -1) != 0 || out.value("nonfinite", -1) != 0)
           p.push_back(fmt::format("162..1250 elements should be wrong (the diagonals, at most the lower triangles), all written and finite; got {}", out.dump()));
       }},
      {"kb_indexer_no_relu",
       [](const json& c, Problems& p) {
         // Without the ReLU, every logit with a head whose q·k < 0 is wrong (nearly all at 8
         // heads); the -inf past each sequence's end (3 sequences of 1..80 keys in 80 slots) stays.
         const json& out = first_output(c);
         const int64_t bad = out.value("mismatches", int64_t{-1}), numel = out.value("numel", int64_t{0});
         if (bad <= 0 || bad >= numel || out.value("unwritten", -1) != 0 || out.value("nonfinite", -1) != 0)
           p.push_back(fmt::format("some but not all of {} logits should be wrong (not the -inf tail), all written and finite; got {}",
                                   numel, out.dump().substr(0, 300)));
       }},
      {"kb_attn_bwd_mask_by_multiply",
       [](const json& c, Problems& p) {
         // With the forward pass's lse, the 25 of 45 query rows that see none of the 20 keys
         // have lse = -inf: exp(s - lse) * 0 is NaN there, so those rows' dq (25 x 4 heads x 64)
         // and every dk and dv of both kv heads are NaN, and nothing else is wrong. (Its twin
         // kb_attn_bwd_mask_by_multiply_random_lse, on random out and lse, passes.)
         const json& outs = c.at("outputs");
         const int64_t dq_nan = outs.at(0).value("nonfinite", int64_t{-1});
         bool ok = dq_nan == 25 * 4 * 64 && outs.at(0).value("mismatches", int64_t{-1}) == dq_nan;
         for (size_t i : {1, 2}) ok &= outs.at(i).value("nonfinite", int64_t{-1}) == outs.at(i).value("numel", int64_t{0});
         for (const json& o : outs) ok &= o.value("unwritten", -1) == 0;
         if (!ok) p.push_back("dq should be NaN on the 6400 elements of the rows that see no key and right elsewhere, dk and dv NaN "
                              "everywhere, all written; got " + outs.dump().substr(0, 400));
       }},
      {"kb_attention_state_leak",
       [](const json& c, Problems& p) {
         // The softmax denominators the first case leaves in a __device__ array are added onto by
         // the next case of the same loaded program: every row written, finite, and wrong.
         check_leak(c, "kb_attention_state_leak / first_in_worker", p);
         const json& out = first_output(c);
         if (out.value("unwritten", -1) != 0 || out.value("nonfinite", -1) != 0 || 2 * out.value("mismatches", 0) <= out.value("numel", 0))
           p.push_back("out should be written and finite with most values wrong, got " + out.dump());
       }},
      {"kb_mla_wave64_denominator",
       [](const json& c, Problems& p) {
         // gfx942: its 69,632 bytes of shared memory do not fit. gfx950: 64 lanes count every
         // token twice in the softmax denominator, so every output is half the expected one
         // (relative L2 error 0.5), all of them written and finite.
         if (c.value("actual_status", json()) == "SKIP") {
           const json& lim = c.value("limit", json());
           if (lim.is_null() || lim.value("requested", 0) != 69632 || lim.value("limit", 0) != 65536)
             p.push_back("limit should show 69632 bytes requested of 65536, got " + lim.dump());
           return;
         }
         const json& out = first_output(c);
         const double rel_l2 = out.value("rel_l2", 0.0);
         if (rel_l2 < 0.49 || rel_l2 > 0.51 || out.value("unwritten", -1) != 0 || out.value("nonfinite", -1) != 0 ||
             100 * out.value("mismatches", 0) < 99 * out.value("numel", 0))
           p.push_back("every output should be written, finite and half the expected value (rel L2 0.5), got " + out.dump());
       }},
      {"fault_endless",
       [](const json& c, Problems& p) {
         // The kernel's timeout is 3 s, counted from its first launch; the verdict must come
         // within a second after it. The compile and the inputs before it have their own limit.
         const json& t = c.at("timings_ms");
         const double kernel = t.value("kernel", 0.0);
         if (kernel < 3000 || kernel > 4000)
           p.push_back(fmt::format("TIMEOUT came {:.0f} ms after the first launch, not within a second after the 3 s timeout", kernel));
       }},
  };
  return kChecks;
}

// Kernels whose bug a GPU shows only through racecheck (their sums come out right there): in a
// GPU run without that tool they pass, and that is no problem of the harness.
bool only_racecheck_shows(const std::string& kernel, const json& run) {
  const json device = run.value("device", json::object());
  if (!device.is_object() || device.value("backend", "host") == "host") return false;
  if (kernel != "kb_tree_sum_missing_barrier") return false;
  const json sanitizer = run.value("sanitizer", json());
  const json tools = sanitizer.is_object() ? sanitizer.value("tools", json::array()) : json::array();
  return std::find(tools.begin(), tools.end(), "racecheck") == tools.end();
}

void check_crash_text(const json& c, Problems& p) {
  if (c.value("message", "").empty()) p.push_back("a CRASH must carry the error text");
}

}  // namespace

std::vector<std::string> check_known_bad_run(const json& results, const std::vector<KernelSpec>& corpus) {
  Problems all;
  const std::string arch = results.at("run").value("device", json::object()).is_object()
                               ? results["run"]["device"].value("arch", "")
                               : std::string();
  for (const KernelSpec& k : corpus) {
    for (const CaseSpec& cs : k.cases) {
      const std::string who = k.name + " / " + cs.name;
      const json* c = find_case(results, k.name, cs.name);
      if (!c) {
        all.push_back(who + ": missing from the results");
        continue;
      }
      Problems p;
      const std::string status = c->value("status", "");
      const json device = results.at("run").value("device", json::object());
      const bool host = device.is_object() && device.value("backend", "") == "host";
      const auto expected = case_expectation(k, cs, arch, host);
      if (status == "SKIP" && c->value("reason", "") == "NOT_FOR_VENDOR" && !k.vendor_sources.empty()) {
        // A kernel with one vendor's file only, on the other vendor's device: nothing to check.
      } else if (only_racecheck_shows(k.name, results.at("run")) && c->value("actual_status", json()) == json("PASS") &&
                 status == "XPASS") {
        // Right sums on a GPU, and racecheck did not run: nothing to hold against the harness.
      } else if (!expected) {
        if (status != "PASS") p.push_back("declares no expectation, so it should PASS; got " + status + ": " + c->value("message", ""));
      } else {
        const json actual = c->value("actual_status", json());
        const std::string verdict = actual == "SKIP" ? c->value("reason", "") : actual.is_string() ? actual.get<std::string>() : "";
        if (status != "XFAIL" || verdict != expected->status)
          p.push_back(fmt::format("should be XFAIL with {} underneath; got {} ({}): {}", expected->status, status,
                                  actual.is_null() ? "no actual_status" : actual.dump(), c->value("message", "")));
        if (verdict == "CRASH") check_crash_text(*c, p);
        if (const auto it = detail_checks().find(k.name); it != detail_checks().end()) it->second(*c, p);
      }
      for (const std::string& s : p) all.push_back(who + ": " + s);
    }
  }
  return all;
}

}  // namespace hk::test
