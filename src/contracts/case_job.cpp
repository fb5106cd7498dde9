#include "contracts/case_job.h"

#include "model/check_rule.h"
#include "model/plan_case.h"
#include "util/json_field.h"
#include "platform/backend.h"
#include "util/json_number.h"
#include "model/kernel_entries.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hk {
namespace {

using nlohmann::json;

// Generator fields and scalars may be NaN or Inf (json_number.h).
json number(double v) { return json_number(v); }
double read_number(const json& j) { return read_json_number(j); }

// A string param that reads like "nan" stays a string: numbers are tagged.
json tagged_params(const Params& p) {
  json j = json::object();
  for (const auto& [name, v] : p)
    j[name] = std::holds_alternative<double>(v) ? json{{"n", number(std::get<double>(v))}} : json{{"s", std::get<std::string>(v)}};
  return j;
}
Params params_from(const json& j) {
  Params p;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->contains("n")) p[it.key()] = read_number(it->at("n"));
    else p[it.key()] = it->at("s").get<std::string>();
  }
  return p;
}

DType dtype_from(const json& j) {
  const auto t = parse_dtype(j.get<std::string>());
  if (!t) throw std::runtime_error("unknown dtype '" + j.get<std::string>() + "'");
  return *t;
}
Role role_from(const std::string& s) {
  for (Role r : {Role::in, Role::out, Role::inout})
    if (s == role_name(r)) return r;
  throw std::runtime_error("unknown role '" + s + "'");
}

json tensor_json(const TensorPlan& t) {
  json fields = json::object();
  for (const auto& [k, v] : t.init.fields) fields[k] = number(v);
  const Tolerance& tol = t.tolerance;
  json j = {{"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"numel", t.numel}, {"role", role_name(t.role)},
            {"init", {{"kind", t.init.kind}, {"fields", fields}}},
            {"tolerance", {number(tol.atol), number(tol.rtol), number(tol.ulps), number(tol.max_mismatch_fraction), number(tol.hard_ulps)}}};
  if (t.init.derived()) {
    j["init"]["reference"] = t.init.reference;
    j["init"]["output"] = t.init.output;
  }
  if (t.deterministic) j["deterministic"] = true;
  if (t.offset_bytes) j["offset_bytes"] = t.offset_bytes;
  for (const CheckPlan& c : t.checks) {
    json numbers = json::object();
    for (const auto& [k, v] : c.numbers) numbers[k] = number(v);
    j["checks"].push_back({{"rule", c.rule}, {"text", c.text}, {"numbers", numbers}});
  }
  return j;
}
std::map<std::string, double> numbers_from(const json& j) {
  std::map<std::string, double> out;
  for (auto it = j.begin(); it != j.end(); ++it) out[it.key()] = read_number(*it);
  return out;
}

CheckPlan check_from(const json& c) {
  CheckPlan p;
  read_field(c, "rule", p.rule);
  if (!find_check_rule(p.rule)) throw JsonFieldError("/rule", "an unknown rule '" + p.rule + "'");
  read_field(c, "text", p.text);
  p.numbers = read_field_with(c, "numbers", numbers_from);
  return p;
}

TensorPlan tensor_from(const json& j) {
  TensorPlan t;
  read_field(j, "name", t.name);
  t.dtype = read_field_with(j, "dtype", dtype_from);
  read_field(j, "shape", t.shape);
  read_field(j, "numel", t.numel);
  t.role = read_field_with(j, "role", [](const json& r) { return role_from(r.get<std::string>()); });
  read_optional_field(j, "deterministic", t.deterministic);
  read_optional_field(j, "offset_bytes", t.offset_bytes);
  if (t.offset_bytes < 0 || t.offset_bytes >= kMaxOffsetBytes) throw JsonFieldError("/offset_bytes", "outside 0.." + std::to_string(kMaxOffsetBytes - 1));
  read_field_with(j, "init", [&](const json& init) {
    read_field(init, "kind", t.init.kind);
    t.init.fields = read_field_with(init, "fields", numbers_from);
    read_optional_field(init, "reference", t.init.reference);
    read_optional_field(init, "output", t.init.output);
  });
  t.tolerance = read_field_with(j, "tolerance", [](const json& tol) {
    return Tolerance{read_number(tol.at(0)), read_number(tol.at(1)), read_number(tol.at(2)), read_number(tol.at(3)), read_number(tol.at(4))};
  });
  if (j.contains("checks")) for_each_item(j, "checks", [&](const json& c) { t.checks.push_back(check_from(c)); });
  return t;
}

const char* arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::tensor: return "tensor";
    case ArgKind::scalar: return "scalar";
    case ArgKind::record: return "struct";
    case ArgKind::zeros: return "bytes";
    case ArgKind::array: break;
  }
  throw std::logic_error("an array argument is planned as a record");
}

ArgKind arg_kind_from(const json& j) {
  const std::string k = j.get<std::string>();
  for (ArgKind kind : {ArgKind::tensor, ArgKind::scalar, ArgKind::record, ArgKind::zeros})
    if (k == arg_kind_name(kind)) return kind;
  throw std::runtime_error("unknown argument kind '" + k + "'");
}

json arg_json(const ArgPlan& a) {
  json j = {{"kind", arg_kind_name(a.kind)}};
  if (!a.name.empty()) j["name"] = a.name;
  switch (a.kind) {
    case ArgKind::tensor: j["tensor"] = a.tensor; break;
    case ArgKind::scalar: j["dtype"] = dtype_name(a.dtype), j["bool"] = a.boolean, j["value"] = number(a.value); break;
    case ArgKind::zeros: j["bytes"] = a.bytes; break;
    case ArgKind::record: {
      json fields = json::array();
      for (const ArgPlan& f : a.fields) fields.push_back(arg_json(f));
      j["fields"] = fields, j["align"] = a.align;
      break;
    }
    case ArgKind::array: break;
  }
  return j;
}

// depth: structs inside structs, bounded so that a corrupt job cannot exhaust the stack.
ArgPlan arg_from(const json& j, size_t tensors, int depth = 0) {
  if (depth > 64) throw std::runtime_error("arguments nested more than 64 deep");
  ArgPlan a;
  a.kind = arg_kind_from(j.at("kind"));
  if (j.contains("name")) a.name = j.at("name").get<std::string>();
  switch (a.kind) {
    case ArgKind::tensor:
      a.tensor = j.at("tensor").get<int>();
      if (a.tensor < 0 || a.tensor >= static_cast<int>(tensors))
        throw std::runtime_error("argument names tensor " + std::to_string(a.tensor) + " of " + std::to_string(tensors));
      break;
    case ArgKind::scalar: a.dtype = dtype_from(j.at("dtype")), a.boolean = j.at("bool").get<bool>(), a.value = read_number(j.at("value")); break;
    case ArgKind::zeros:
      a.bytes = j.at("bytes").get<int64_t>();
      if (a.bytes < 1 || a.bytes > (int64_t{1} << 20)) throw std::runtime_error("a zero-bytes argument of " + std::to_string(a.bytes) + " bytes");
      break;
    case ArgKind::record:
      for (const json& f : j.at("fields")) a.fields.push_back(arg_from(f, tensors, depth + 1));
      a.align = j.at("align").get<int64_t>();
      if (a.align < 0 || a.align > static_cast<int64_t>(kMaxArgumentAlign) || (a.align & (a.align - 1))) throw std::runtime_error("a struct argument aligned to " + std::to_string(a.align));
      break;
    case ArgKind::array: break;
  }
  return a;
}

// The plan a job carries: its tensors, arguments, launch and defines, checked against each other.
void read_plan(const json& p, CaseJob& job) {
  CasePlan& plan = job.plan;
  plan.kernel = job.kernel;
  plan.case_name = job.case_name;
  plan.params = read_field_with(p, "params", params_from);
  plan.tensors.clear();
  for_each_item(p, "tensors", [&](const json& t) { plan.tensors.push_back(tensor_from(t)); });
  plan.args.clear();
  for_each_item(p, "args", [&](const json& a) { plan.args.push_back(arg_from(a, plan.tensors.size())); });
  // A rule's tensor fields index plan.tensors: a job that names no such tensor is refused here.
  for (const TensorPlan& t : plan.tensors)
    for (const CheckPlan& c : t.checks)
      for (const CheckField& f : find_check_rule(c.rule)->fields)
        if (f.kind == FieldKind::tensor && c.numbers.count(f.name) &&
            (c.tensor(f.name) < 0 || c.tensor(f.name) >= static_cast<int>(plan.tensors.size())))
          throw std::runtime_error(c.rule + " rule of '" + t.name + "' names tensor " + std::to_string(c.tensor(f.name)));
  read_field(p, "grid", plan.grid);
  read_field(p, "block", plan.block);
  read_field(p, "shared_bytes", plan.shared_bytes);
  read_field(p, "defines", plan.defines);
}

}  // namespace

CaseJob make_case_job(const KernelSpec& k, const CaseSpec& c, uint64_t seed, int run_repeat, const std::string& repro_dir) {
  CaseJob job;
  job.kernel = k.name;
  job.case_name = c.name;
  job.manifest = k.manifest;
  job.source = k.source;
  job.entry = entry_of(k, c);
  job.reference = k.reference;
  job.file_entries = k.file_entries.empty() ? entries_of(k) : k.file_entries;
  job.include_dirs = k.include_dirs;
  job.compile_options = k.compile_options;
  job.gpu_only = k.gpu_only;
  job.plan = plan_case(k, c);
  job.seed = c.seed.value_or(seed);
  job.stream_name = c.stream_name();
  job.repeat = std::max(run_repeat, manifest_repeat(k, c));
  job.repro_dir = repro_dir;
  return job;
}

std::vector<std::string> kernel_compile_options(const std::vector<std::string>& define_options, const std::string& source,
                                                const std::vector<std::string>& include_dirs,
                                                const std::vector<std::string>& manifest_options) {
  std::vector<std::string> out = define_options;
  const std::string own = std::filesystem::absolute(source).parent_path().string();
  out.push_back("-I" + own);
  for (const std::string& d : include_dirs) out.push_back("-I" + d);
  out.insert(out.end(), manifest_options.begin(), manifest_options.end());
  return out;
}

CompileRequest case_compile(const CaseJob& job, std::string source_text) {
  return CompileRequest{std::move(source_text), job.source,
                        kernel_compile_options(define_options(job.plan), job.source, job.include_dirs, job.compile_options),
                        job.file_entries};
}

std::string plan_error_text(const KernelSpec& k, const PlanError& e) { return k.manifest + ": " + e.path + ": " + e.what(); }

CaseResult plan_error_result(const KernelSpec& k, const CaseSpec& c, const PlanError& e) {
  CaseResult r = blank_result(k, c);
  r.message = plan_error_text(k, e);
  return r;
}

CaseResult job_result(const CaseJob& job) {
  CaseResult r;
  r.kernel = job.kernel;
  r.case_name = job.case_name;
  r.manifest = job.manifest;
  r.params = job.plan.params;
  if (job.stream_name != job.case_name) r.seed = job.seed, r.swept_from = job.stream_name;  // a sweep's copy
  r.status = Status::ERROR;
  return r;
}

void to_json(json& j, const CaseJob& job) {
  const CasePlan& p = job.plan;
  json tensors = json::array(), args = json::array();
  for (const TensorPlan& t : p.tensors) tensors.push_back(tensor_json(t));
  for (const ArgPlan& a : p.args) args.push_back(arg_json(a));
  j = {{"kernel", job.kernel}, {"case", job.case_name}, {"manifest", job.manifest}, {"source", job.source},
       {"entry", job.entry}, {"reference", job.reference}, {"file_entries", job.file_entries},
       {"include_dirs", job.include_dirs}, {"compile_options", job.compile_options}, {"gpu_only", job.gpu_only}, {"reference_library", job.reference_library}, {"reference_error", job.reference_error},
       {"seed", job.seed}, {"stream_name", job.stream_name}, {"repeat", job.repeat}, {"repro_dir", job.repro_dir}, {"time_launches", job.time_launches},
       {"reference_cache", job.reference_cache},
       {"plan", {{"params", tagged_params(p.params)}, {"tensors", tensors}, {"args", args}, {"grid", p.grid},
                 {"block", p.block}, {"shared_bytes", p.shared_bytes}, {"defines", p.defines}}}};
}

void from_json(const json& j, CaseJob& job) {
  read_field(j, "kernel", job.kernel);
  read_field(j, "case", job.case_name);
  read_field(j, "manifest", job.manifest);
  read_field(j, "source", job.source);
  read_field(j, "entry", job.entry);
  read_field(j, "reference", job.reference);
  read_field(j, "file_entries", job.file_entries);
  read_field(j, "include_dirs", job.include_dirs);
  read_field(j, "compile_options", job.compile_options);
  read_field(j, "gpu_only", job.gpu_only);
  read_field(j, "reference_library", job.reference_library);
  read_field(j, "reference_error", job.reference_error);
  read_field(j, "seed", job.seed);
  job.stream_name = job.case_name;
  read_optional_field(j, "stream_name", job.stream_name);
  read_field(j, "repeat", job.repeat);
  job.time_launches = 0;
  read_optional_field(j, "time_launches", job.time_launches);
  job.reference_cache = true;
  read_optional_field(j, "reference_cache", job.reference_cache);
  job.repro_dir.clear();
  read_optional_field(j, "repro_dir", job.repro_dir);
  read_field_with(j, "plan", [&](const json& p) { read_plan(p, job); });
}


}  // namespace hk
