#include "run/repro.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "platform/backend.h"
#include "contracts/case_job.h"
#include "model/plan_case.h"
#include "contracts/run_spec_options.h"
#include "util/file_util.h"
#include "refs/generator.h"
#include "refs/runtime_references.h"
#include "util/slug.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The name of the kernel's copy: its own, unless that is not a plain file name or is one of the
// folder's other entries.
std::string source_copy_name(const std::string& source) {
  const fs::path name = fs::path(source).filename();
  for (const char* taken : {"manifest.json", "compile_options.txt", "rerun.sh", "inputs", "output", "sanitizer"})
    if (name == taken) return "kernel_source" + name.extension().string();
  if (file_name_slug(name.string()) == name.string()) return name.string();
  const std::string ext = name.extension().string();
  return "kernel_source" + (file_name_slug(ext) == ext && ext.size() <= 16 ? ext : std::string());
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// A word as the shell reads it: quoted unless it is made of characters the shell leaves alone.
std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || (ch != 0 && std::strchr("_-./=,:+@%", ch) != nullptr);
  });
  return plain ? s : shell_quote(s);
}

// Whole numbers as integers, as a manifest writes them.
json params_as_written(const Params& p) {
  json j = json::object();
  for (const auto& [k, v] : p) {
    if (const auto* s = std::get_if<std::string>(&v)) j[k] = *s;
    else if (const double d = std::get<double>(v); d == std::trunc(d) && std::fabs(d) < 9.0e15) j[k] = static_cast<int64_t>(d);
    else j[k] = d;
  }
  return j;
}

// The case's entry as the manifest wrote it, reduced to this one case: an explicit case is kept
// as it is; a sweep's extra fields (tolerance, ...) are kept, its values become this case's.
json one_case(const json& cases, const CaseSpec& c) {
  json out;
  for (const json& e : cases) {
    if (!e.contains("sweep") && e.value("name", "") == c.stream_name()) {
      out = e;
      break;
    }
  }
  if (out.is_null()) {
    for (const json& e : cases) {
      if (!e.contains("sweep")) continue;
      out = e;
      out.erase("sweep");
      break;
    }
  }
  if (out.is_null()) out = json::object();
  out["name"] = c.stream_name();
  out["params"] = params_as_written(c.params);  // every value, the kernel's defaults merged in
  return out;
}

// Text inside a shell comment: a newline in a case name must not end the comment and start a
// command.
std::string comment_text(std::string s) {
  for (char& ch : s)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
  return s;
}

// The one-case manifest stands in the repro folder: what the kernel entry found through the
// project's folders is named absolutely. Headers beside the kernel are found in its own folder,
// and a reference of the project's own (not one of hkcheck's) is named as the file it is in.
void point_at_the_project(json& entry, const KernelSpec& k, const std::string& reference_file) {
  std::vector<std::string> include_dirs = k.include_dirs;
  include_dirs.push_back(fs::absolute(k.source).parent_path().lexically_normal().string());
  entry["include_dirs"] = include_dirs;
  std::error_code ec;
  const fs::path builtin = fs::weakly_canonical(builtin_references_dir(), ec);
  if (!k.reference_source.empty()) entry["reference_source"] = k.reference_source;  // absolute already
  else if (!reference_file.empty() && fs::weakly_canonical(reference_file, ec).parent_path() != builtin)
    entry["reference_source"] = fs::absolute(reference_file).lexically_normal().string();
}

}  // namespace

std::string repro_subdir(const std::string& kernel, const std::string& case_name) {
  return "repro/" + file_name_slug(kernel) + "/" + file_name_slug(case_name);  // one folder per case, whatever the names
}

void write_repro(const std::string& dir, const KernelSpec& k, const CaseSpec& c, const ReproSettings& s) {
  fs::create_directories(dir + "/inputs");
  const std::string source_name = source_copy_name(k.source);
  // The copy keeps its source's permissions: a private kernel stays private.
  write_file_atomic_or_throw(dir + "/" + source_name, read_file(k.source), file_mode(k.source));

  json manifest = json::parse(read_file(k.manifest));
  json entry = manifest.at(json::json_pointer(k.json_path));
  entry["source"] = source_name;
  point_at_the_project(entry, k, s.reference_file);
  // The defines and options of the run's target only, so that a rerun anywhere compiles as it did.
  entry["defines"] = k.defines;
  entry["options"] = k.compile_options;
  entry["cases"] = json::array({one_case(entry.value("cases", json::array()), c)});
  write_file_atomic_or_throw(dir + "/manifest.json", json{{"hkcheck_manifest", manifest.value("hkcheck_manifest", 1)}, {"kernels", {entry}}}.dump(2) + "\n",
             file_mode(k.manifest));

  // Inputs exactly as the worker builds them: the same seed stream, rounded to the dtype.
  const uint64_t seed = c.seed.value_or(s.spec.seed);
  const CasePlan plan = plan_case(k, c);
  std::string left_out;
  for (const TensorPlan& t : plan.tensors) {
    if (t.role == Role::out) continue;
    if (t.bytes() > kMaxReproTensorBytes) {
      left_out += fmt::format("{}: {} bytes\n", t.name, t.bytes());
      continue;
    }
    std::vector<double> v = generate(t.init, t.numel, tensor_seed(seed, k.name, c.stream_name(), t.name));
    for (double& x : v) x = round_to_dtype(t.dtype, x);
    write_tensor_file(dir + "/inputs/" + file_name_slug(t.name) + ".hkt", TensorFile{t.name, t.dtype, t.shape, pack(t.dtype, v)});
  }

  if (!left_out.empty())
    write_file_atomic_or_throw(dir + "/inputs/LEFT_OUT.txt", fmt::format("Inputs over {} bytes are not written; rerun.sh builds them again from the seed.\n{}",
                                                          kMaxReproTensorBytes, left_out));

  std::string opts;
  for (const std::string& o : base_compile_options(s.spec.backend, s.arch)) opts += o + "\n";
  for (const std::string& o : kernel_compile_options(define_options(plan), k.source, k.include_dirs, k.compile_options)) opts += o + "\n";
  write_file_atomic_or_throw(dir + "/compile_options.txt", opts);

  std::string options;
  for (const std::string& o : spec_options(rerun_spec(s.spec, seed))) options += " " + shell_word(o);
  const std::string rerun = fmt::format(
      "#!/bin/sh\n"
      "# Runs case '{}' of kernel '{}' alone, with the settings of the run that wrote this folder.\n"
      "# HKCHECK=/path/to/hkcheck picks another binary; extra arguments are passed on (e.g. --timeout 60).\n"
      "here=$(cd \"$(dirname \"$0\")\" && pwd)\n"
      "hkcheck=${{HKCHECK:-{}}}\n"
      "exec \"$hkcheck\" --manifests \"$here\" --out \"$here.rerun\"{} \"$@\"\n",
      comment_text(c.stream_name()), comment_text(k.name), shell_quote(s.hkcheck_exe), options);
  write_file_atomic_or_throw(dir + "/rerun.sh", rerun);
  fs::permissions(dir + "/rerun.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
}

}  // namespace hk
