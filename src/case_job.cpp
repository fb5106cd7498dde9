#include "case_job.h"

#include "json_number.h"

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
  if (t.deterministic) j["deterministic"] = true;
  for (const CheckPlan& c : t.checks) {
    json numbers = json::object();
    for (const auto& [k, v] : c.numbers) numbers[k] = number(v);
    j["checks"].push_back({{"rule", c.rule}, {"text", c.text}, {"numbers", numbers}});
  }
  return j;
}
TensorPlan tensor_from(const json& j) {
  TensorPlan t;
  t.name = j.at("name");
  t.dtype = dtype_from(j.at("dtype"));
  t.shape = j.at("shape").get<std::vector<int64_t>>();
  t.numel = j.at("numel");
  t.role = role_from(j.at("role"));
  t.deterministic = j.value("deterministic", false);
  t.init.kind = j.at("init").at("kind");
  for (auto it = j.at("init").at("fields").begin(); it != j.at("init").at("fields").end(); ++it) t.init.fields[it.key()] = read_number(*it);
  const json& tol = j.at("tolerance");
  t.tolerance = {read_number(tol.at(0)), read_number(tol.at(1)), read_number(tol.at(2)), read_number(tol.at(3)), read_number(tol.at(4))};
  for (const json& c : j.value("checks", json::array())) {
    CheckPlan p{c.at("rule"), c.at("text").get<std::map<std::string, std::string>>(), {}};
    if (!find_check_rule(p.rule)) throw std::runtime_error("output '" + t.name + "' names an unknown rule '" + p.rule + "'");
    for (auto it = c.at("numbers").begin(); it != c.at("numbers").end(); ++it) p.numbers[it.key()] = read_number(*it);
    t.checks.push_back(std::move(p));
  }
  return t;
}

}  // namespace

CaseJob make_case_job(const KernelSpec& k, const CaseSpec& c, uint64_t seed, int run_repeat, const std::string& repro_dir) {
  CaseJob job;
  job.kernel = k.name;
  job.case_name = c.name;
  job.manifest = k.manifest;
  job.source = k.source;
  job.entry = k.entry;
  job.reference = k.reference;
  job.file_entries = k.file_entries.empty() ? std::vector<std::string>{k.entry} : k.file_entries;
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
  for (const ArgPlan& a : p.args) args.push_back({a.tensor, dtype_name(a.dtype), number(a.value)});
  j = {{"kernel", job.kernel}, {"case", job.case_name}, {"manifest", job.manifest}, {"source", job.source},
       {"entry", job.entry}, {"reference", job.reference}, {"file_entries", job.file_entries},
       {"include_dirs", job.include_dirs}, {"compile_options", job.compile_options}, {"gpu_only", job.gpu_only}, {"reference_library", job.reference_library}, {"reference_error", job.reference_error},
       {"seed", job.seed}, {"stream_name", job.stream_name}, {"repeat", job.repeat}, {"repro_dir", job.repro_dir}, {"time_launches", job.time_launches},
       {"reference_cache", job.reference_cache},
       {"plan", {{"params", tagged_params(p.params)}, {"tensors", tensors}, {"args", args}, {"grid", p.grid},
                 {"block", p.block}, {"shared_bytes", p.shared_bytes}, {"defines", p.defines}}}};
}

void from_json(const json& j, CaseJob& job) {
  job.kernel = j.at("kernel");
  job.case_name = j.at("case");
  job.manifest = j.at("manifest");
  job.source = j.at("source");
  job.entry = j.at("entry");
  job.reference = j.at("reference");
  job.file_entries = j.at("file_entries").get<std::vector<std::string>>();
  job.include_dirs = j.at("include_dirs").get<std::vector<std::string>>();
  job.compile_options = j.at("compile_options").get<std::vector<std::string>>();
  job.gpu_only = j.at("gpu_only");
  job.reference_library = j.at("reference_library");
  job.reference_error = j.at("reference_error");
  job.seed = j.at("seed");
  job.stream_name = j.value("stream_name", job.case_name);
  job.repeat = j.at("repeat");
  job.time_launches = j.value("time_launches", 0);
  job.reference_cache = j.value("reference_cache", true);
  job.repro_dir = j.value("repro_dir", "");
  const json& p = j.at("plan");
  CasePlan& plan = job.plan;
  plan.kernel = job.kernel;
  plan.case_name = job.case_name;
  plan.params = params_from(p.at("params"));
  plan.tensors.clear();
  for (const json& t : p.at("tensors")) plan.tensors.push_back(tensor_from(t));
  plan.args.clear();
  for (const json& a : p.at("args")) plan.args.push_back({a.at(0).get<int>(), dtype_from(a.at(1)), read_number(a.at(2))});
  for (const ArgPlan& a : plan.args)
    if (a.tensor >= static_cast<int>(plan.tensors.size()))
      throw std::runtime_error("argument names tensor " + std::to_string(a.tensor) + " of " + std::to_string(plan.tensors.size()));
  // A rule's tensor fields index plan.tensors: a job that names no such tensor is refused here.
  for (const TensorPlan& t : plan.tensors)
    for (const CheckPlan& c : t.checks)
      for (const CheckField& f : find_check_rule(c.rule)->fields)
        if (f.kind == FieldKind::tensor && c.numbers.count(f.name) &&
            (c.tensor(f.name) < 0 || c.tensor(f.name) >= static_cast<int>(plan.tensors.size())))
          throw std::runtime_error(c.rule + " rule of '" + t.name + "' names tensor " + std::to_string(c.tensor(f.name)));
  plan.grid = p.at("grid");
  plan.block = p.at("block");
  plan.shared_bytes = p.at("shared_bytes");
  plan.defines = p.at("defines").get<std::vector<std::pair<std::string, std::string>>>();
}

}  // namespace hk
