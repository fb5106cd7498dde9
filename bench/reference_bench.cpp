// Times the CPU side of chosen cases outside a run: their inputs (generated with 1 and with N
// threads) and their reference (with each thread count asked), from the libraries a run would
// build. It also checks what the speed must not change: a reference's outputs are the same bit
// for bit whatever its thread count, and, with --baseline DIR, within rounding of the reference
// of the same name in DIR's file of the same name (an older, scalar version of it).
//
//   reference_bench [--manifests DIR] [--threads 1,2] [--baseline DIR] [--max-rel 1e-12] KERNEL/CASE...
//
// One line per case; exit 1 when outputs differ (between thread counts, or beyond --max-rel from
// the baseline), 2 for bad usage or a case that cannot be run.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "contracts/case_job.h"
#include "util/parallel_for.h"
#include "select/project.h"
#include "refs/reference_inputs.h"
#include "run/run_environment.h"
#include "refs/runtime_references.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string manifests = "manifests", baseline, cache_dir = default_cache_dir();
  std::vector<int> threads{1, 2};
  double max_rel = 1e-12;
  uint64_t seed = 0;
  std::vector<std::string> cases;
};

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The job of "kernel/case" from the manifests; throws naming what is missing.
CaseJob find_job(const std::vector<KernelSpec>& kernels, const std::string& spec, uint64_t seed) {
  const size_t slash = spec.find('/');
  if (slash == std::string::npos) throw std::runtime_error(fmt::format("'{}' is not KERNEL/CASE", spec));
  for (const KernelSpec& k : kernels) {
    if (k.name != spec.substr(0, slash)) continue;
    for (const CaseSpec& c : k.cases)
      if (c.name == spec.substr(slash + 1)) return make_case_job(k, c, seed, 1, "");
    throw std::runtime_error(fmt::format("kernel '{}' has no case '{}'", k.name, spec.substr(slash + 1)));
  }
  throw std::runtime_error(fmt::format("no kernel '{}' in the manifests", spec.substr(0, slash)));
}

// The reference `name` from `file`, compiled as a run would (with hkcheck's reference runtime).
std::string library_of(const std::string& file, const std::string& cache_dir) {
  const ReferenceLibrary lib = build_reference_library(file, ReferenceBuildOptions{cache_dir, "", 1, 0});
  if (!lib.ok) throw std::runtime_error(lib.log);
  return lib.path;
}

const ref::Function* library_reference(const std::string& file, const std::string& name, const std::string& cache_dir) {
  return load_reference(library_of(file, cache_dir), name);
}

// Runs f on a copy of the inputs with `threads` threads; the copy, with the outputs, is returned.
ref::Context run(const ref::Function& f, const ref::Context& inputs, int threads, double* ms) {
  ref::Context ctx = inputs;
  ctx.threads = threads;
  const auto t0 = Clock::now();
  f(ctx);
  *ms = ms_since(t0);
  return ctx;
}

// max |a - b| / max |b| over every output (0 when equal; NaN positions must match).
double max_relative_difference(const CaseJob& job, const ref::Context& a, const ref::Context& b) {
  double worst = 0;
  for (const TensorPlan& t : job.plan.tensors) {
    if (t.role == Role::in) continue;
    const auto &x = a.tensors.at(t.name).data, &y = b.tensors.at(t.name).data;
    double scale = 0, diff = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      if (std::isnan(x[i]) != std::isnan(y[i])) return INFINITY;
      if (std::isfinite(y[i])) scale = std::max(scale, std::fabs(y[i]));
      if (x[i] != y[i] && !(std::isnan(x[i]) && std::isnan(y[i]))) diff = std::max(diff, std::fabs(x[i] - y[i]));
    }
    if (diff > 0) worst = std::max(worst, scale > 0 ? diff / scale : INFINITY);
  }
  return worst;
}

// Times and checks one case; prints its line. False when its outputs differ.
bool bench_case(const CaseJob& job, const std::string& file, const Options& o) {
  std::string line = fmt::format("{}/{}", job.kernel, job.case_name);
  CaseJob with_library = job;  // derived inputs (docs/manifest.md) run a reference of the same file
  with_library.reference_library = library_of(file, o.cache_dir);
  ref::Context inputs;
  for (int t : o.threads) {
    set_parallel_threads(t);
    const auto t0 = Clock::now();
    inputs = reference_context(with_library);
    line += fmt::format("  inputs@{} {:.0f} ms", t, ms_since(t0));
  }
  const ref::Function& f = *library_reference(file, job.reference, o.cache_dir);
  std::vector<ref::Context> outs;
  std::vector<double> ms;
  for (int t : o.threads) {
    outs.push_back(run(f, inputs, t, &ms.emplace_back()));
    line += fmt::format("  ref@{} {:.0f} ms", t, ms.back());
  }
  bool ok = true;
  for (size_t i = 1; i < outs.size(); ++i)
    if (max_relative_difference(job, outs[i], outs[0]) != 0) line += fmt::format("  DIFFERS@{}", o.threads[i]), ok = false;
  line += fmt::format("  speedup@{} {:.2f}x", o.threads.back(), ms.front() / std::max(ms.back(), 1e-3));
  if (!o.baseline.empty()) {
    double base_ms = 0;
    const std::string base_file = (fs::path(o.baseline) / fs::path(file).filename()).string();
    const ref::Context base = run(*library_reference(base_file, job.reference, o.cache_dir), inputs, 1, &base_ms);
    const double rel = max_relative_difference(job, outs.back(), base);
    ok = ok && rel <= o.max_rel;
    line += fmt::format("  baseline@1 {:.0f} ms ({:.2f}x)  max_rel {:.2e}{}", base_ms, base_ms / std::max(ms.back(), 1e-3), rel,
                        rel <= o.max_rel ? "" : " TOO FAR");
  }
  fmt::print("{}\n", line);
  std::fflush(stdout);
  return ok;
}

int bench(const Options& o) {
  const LoadedManifests loaded = load_manifests(o.manifests);
  for (const std::string& e : loaded.errors) fmt::print(stderr, "reference_bench: {}\n", e);
  const ReferenceIndex index = scan_references({builtin_references_dir()}, {});
  bool ok = true;
  for (const std::string& spec : o.cases) {
    try {
      const CaseJob job = find_job(loaded.kernels, spec, o.seed);
      const auto file = index.file_of.find(job.reference);
      if (file == index.file_of.end()) throw std::runtime_error("no built-in reference '" + job.reference + "'");
      ok = bench_case(job, file->second, o) && ok;
    } catch (const std::exception& e) {
      fmt::print(stderr, "reference_bench: {}: {}\n", spec, e.what());
      return 2;
    }
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace hk

int main(int argc, char** argv) {
  hk::Options o;
  CLI::App app{"Times and checks CPU references and input generation of chosen cases"};
  app.add_option("--manifests", o.manifests, "Manifest folder");
  app.add_option("--threads", o.threads, "Thread counts to run with, the first the base of the speedup")->delimiter(',')->check(CLI::Range(1, 1024));
  app.add_option("--baseline", o.baseline, "Folder of older reference files to compare with (same file names)");
  app.add_option("--max-rel", o.max_rel, "Largest max|new - old| / max|old| allowed against --baseline");
  app.add_option("--seed", o.seed, "Run seed");
  app.add_option("--cache-dir", o.cache_dir, "Where reference libraries are built");
  app.add_option("cases", o.cases, "KERNEL/CASE ...")->required();
  CLI11_PARSE(app, argc, argv);
  return hk::bench(o);
}
