// Manifest v1 (docs/manifest.md): the kernels of one family, their cases, tensors, arguments,
// launch shape, reference and tolerances, as written in the JSON file. Expressions stay text
// here; case_plan.h evaluates them for one case.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/axis_override.h"
#include "model/expected_verdict.h"
#include "model/check_spec.h"
#include "model/params.h"

namespace hk {

enum class Role { in, out, inout };
const char* role_name(Role r);

// Fields left unset take the output dtype's default (see default_tolerance in case_plan.h).
struct ToleranceSpec {
  std::optional<double> atol, rtol, ulps;
  // Quantized outputs: the fraction of elements allowed outside atol/rtol/ulps, and a hard cap
  // in ulps that no element may pass even then (docs/manifest.md, "Quantized outputs").
  std::optional<double> max_mismatch_fraction, hard_ulps;
  // Why this much error is right for the kernel. A tolerance looser than its dtype's default
  // (case_plan.h) without one is a manifest error: a width nobody can justify hides bugs.
  std::string why;
};


// The "values" generator lists one value per element (cu_seqlens [0, 5, 130], say); element i is
// its field "values.<i>". A longer list belongs in a file of its own, not a manifest.
constexpr size_t kMaxGeneratorValues = 65536;
inline std::string values_field(size_t i) { return "values." + std::to_string(i); }

// The generator kind whose values come from a reference run on the case's other inputs (a
// backward kernel's out and lse from the forward pass): docs/manifest.md, "Derived tensors".
inline const char* const kDerivedKind = "reference";

struct GeneratorSpec {
  std::string kind;                           // normal uniform int arange constant permutation values reference
  std::map<std::string, std::string> fields;  // field -> expression text
  std::string reference, output;              // kind "reference": the reference run and which of its outputs
};

struct TensorSpec {
  std::string name;
  std::string dtype;               // a dtype name or "$param"
  std::vector<std::string> shape;  // expressions
  Role role = Role::in;
  std::optional<GeneratorSpec> init;
  ToleranceSpec tolerance;
  std::vector<CheckSpec> checks;  // "compare" (when not elementwise), then "dequant" (output_check.h)
  // The output must come out the same bit for bit on every launch; otherwise launches may differ
  // (float atomics accumulate in any order) as long as each is within tolerance.
  bool deterministic = false;
  // Bytes the tensor starts after an aligned address (an expression; "0": aligned), so that a
  // kernel's misaligned path runs (docs/manifest.md, "Misaligned tensors").
  std::string offset_bytes = "0";
};

// One of a kernel's arguments, or one field of a struct argument (docs/manifest.md, "Arguments").
enum class ArgKind { tensor, scalar, record, zeros, array };
struct ArgSpec {
  ArgKind kind = ArgKind::scalar;
  std::string name;          // a field's "name", as messages call it; may be empty
  std::string tensor;        // tensor: its name (the kernel gets the device pointer)
  std::string scalar_dtype;  // scalar: bool i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64
  std::string value;         // scalar: the expression
  std::vector<ArgSpec> fields;  // record: its fields in order; array: the one element
  std::string align;         // record: an alignment the type declares (alignas, __align__); "" : its fields'
  std::string bytes;         // zeros: how many zero bytes (an empty member, a field the kernel ignores)
  std::string count;         // array: how many elements
};

struct LaunchSpec {
  std::vector<std::string> grid, block;
  std::string shared = "0";
};

struct CaseSpec {
  std::string name;
  Params params;  // the case's own, merged over the kernel's defaults
  std::map<std::string, ToleranceSpec> tolerance;
  // "small" or "large": large cases are too slow for the host backend on a small machine, which
  // runs the small tier unless told otherwise (--tier).
  std::string tier = "small";
  std::vector<ExpectedVerdict> expect;  // the case's own; the kernel's apply where these do not
  std::optional<int> repeat;            // launches on the same inputs; overrides the kernel's
  std::map<std::string, std::string> offset_bytes;  // tensor -> expression; overrides the tensor's
  // Set on the copies a seed sweep makes (seed_sweep.h): the copy's seed, and the case's own
  // name, from which its input streams derive (so the copy's inputs are those of --seed N).
  std::optional<uint64_t> seed;
  std::string swept_from;
  const std::string& stream_name() const { return swept_from.empty() ? name : swept_from; }
};

// One section of a kernel's "defines" and "options" (docs/manifest.md, "Per-target settings"):
// what applies where key says: "all", a vendor ("cuda", "hip"), a compiler ("nvrtc", "hiprtc",
// "host") or a target ("sm_90", "gfx942"). compile_target.h picks the sections of a target.
struct CompileSection {
  std::string key;
  std::map<std::string, std::string> defines;  // NAME -> value, $params unsubstituted
  std::vector<std::string> options;            // in order; relative paths resolved (manifest_compile.h)
};

// A mutant of the kernel's source (`hkcheck mutate`, docs/mutate.md) that cannot change any
// output, so no case can kill it: its id as the mutation report gives it, and why.
struct EquivalentMutant {
  std::string id, why;
};

struct KernelSpec {
  std::string name;
  std::string manifest;   // path of the manifest file
  std::string json_path;  // e.g. /kernels/3, for error messages
  std::string source;     // path of the kernel file, resolved against the manifest's folder
  // "source": {"cuda": ..., "hip": ...}: one file per vendor, resolved like source; source is then
  // the one the run uses (use_compile_target), the CUDA one until a run chooses.
  std::map<std::string, std::string> vendor_sources;
  std::string entry;  // an extern "C" name or a C++ name expression: "act<float, true>"
  std::string reference;
  std::string reference_source;  // absolute; the manifest's "reference_source", when given
  // The defines and options of the target the kernel is compiled for: those of the "all" section
  // until a run or a compile picks a target (use_compile_target), then of every section that
  // applies to it.
  std::map<std::string, std::string> defines;
  std::vector<std::string> include_dirs;     // absolute; from the manifest's "include_dirs"
  std::vector<std::string> compile_options;  // the manifest's "options", after the defines
  std::vector<CompileSection> compile_sections;  // every section as written, "all" first
  std::string gpu_only;  // why the host backend cannot run it; empty when it can
  // Every entry of the run's kernels that share this source file, this one's included: the file
  // is compiled once for all of them (link_file_entries).
  std::vector<std::string> file_entries;
  Params params;
  std::vector<CaseSpec> cases;
  std::vector<TensorSpec> tensors;
  std::vector<ArgSpec> args;
  LaunchSpec launch;
  std::optional<double> timeout;
  std::vector<ExpectedVerdict> expect;  // verdicts every case of this kernel is known to reach
  std::optional<int> repeat;
  std::vector<EquivalentMutant> equivalent_mutants;
};

// A case's time limit, from the manifest or --timeout: beyond a day it is a typo, and a deadline
// that far out overflows the clock.
constexpr double kMaxTimeoutSeconds = 86400;

// Cases one kernel may have, sweeps expanded: beyond, a manifest is refused before it is expanded.
constexpr size_t kMaxCasesPerKernel = 100000;

// The launches a case asks for: its own "repeat", else its kernel's, else 1.
int manifest_repeat(const KernelSpec& k, const CaseSpec& c);

}  // namespace hk
