#include "model/manifest_load.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "model/case_plan.h"
#include "model/check_rule.h"
#include "model/dtype.h"
#include "model/expectation.h"
#include "model/kernel_entries.h"
#include "model/manifest.h"
#include "model/manifest_compile.h"
#include "model/manifest_read.h"
#include "model/plan_case.h"
#include "model/results_folder.h"
#include "platform/backend_table.h"

namespace hk {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using manifest_read::check_keys;
using manifest_read::fail;
using manifest_read::FieldError;
using manifest_read::is_identifier;
using manifest_read::kind_of;
using manifest_read::kMaxNameLength;
using manifest_read::check_derived_tensors;
using manifest_read::read_derived_init;
using manifest_read::expr_text;
using manifest_read::need;
using manifest_read::need_string;
using manifest_read::read_arg;

std::vector<std::string> expr_list(const json& v, const std::string& path, size_t min, size_t max) {
  if (!v.is_array() || v.size() < min || v.size() > max)
    fail(path, fmt::format("expected an array of {} to {} expressions, got {}", min, max, kind_of(v)));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(expr_text(v[i], fmt::format("{}/{}", path, i)));
  return out;
}

Params read_params(const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, fmt::format("expected an object of parameters, got {}", kind_of(v)));
  Params p;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it->is_number()) p[it.key()] = it->get<double>();
    else if (it->is_string()) p[it.key()] = it->get<std::string>();
    else fail(path + "/" + it.key(), fmt::format("expected a number or a string, got {}", kind_of(*it)));
  }
  return p;
}

ToleranceSpec read_tolerance(const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, fmt::format("expected an object with atol, rtol, ulps; got {}", kind_of(v)));
  check_keys(v, path, {"atol", "rtol", "ulps", "max_mismatch_fraction", "hard_ulps", "why"});
  // "why" is for the manifest's reader (why this much error is right for this kernel); JSON has
  // no comments, and a tolerance with no reason is the first thing a reviewer asks about.
  if (v.contains("why") && (!v["why"].is_string() || v["why"].get<std::string>().empty()))
    fail(path + "/why", "expected a non-empty string: the reason for this tolerance");
  ToleranceSpec t;
  auto get = [&](const char* key, std::optional<double>& out) {
    if (!v.contains(key)) return;
    if (!v[key].is_number() || v[key].get<double>() < 0)
      fail(path + "/" + key, "expected a number >= 0");
    out = v[key].get<double>();
  };
  get("atol", t.atol);
  get("rtol", t.rtol);
  get("ulps", t.ulps);
  get("max_mismatch_fraction", t.max_mismatch_fraction);
  get("hard_ulps", t.hard_ulps);
  if (v.contains("why")) t.why = v["why"].get<std::string>();
  if (t.max_mismatch_fraction && *t.max_mismatch_fraction > 1)
    fail(path + "/max_mismatch_fraction", "expected a fraction between 0 and 1");
  return t;
}

// An output's rule: "compare": {"rule": R, ...} or "compare": "R" for a comparison rule, and
// "dequant": {...} for the extra check of that name. Fields are read by the kinds the rule
// declares (output_check.cpp); tensors and expressions are resolved when a case is planned.
CheckSpec read_check(const json& v, const std::string& key, const std::string& path) {
  CheckSpec c;
  c.field = key;
  const bool compare = key == "compare";
  if (compare && v.is_string()) {
    c.rule = v.get<std::string>();
  } else {
    if (!v.is_object()) fail(path, fmt::format("expected an object, got {}", kind_of(v)));
    c.rule = compare ? need_string(v, "rule", path) : key;
  }
  const CheckRule* rule = find_check_rule(c.rule);
  if (!rule || rule->compares != compare)
    fail(path + (v.is_object() ? "/rule" : ""), "unknown comparison rule '" + c.rule + "' (expected one of: " + check_rule_names(true) + ")");
  if (!v.is_object()) return c;
  for (auto f = v.begin(); f != v.end(); ++f) {
    if (compare && f.key() == "rule") continue;
    const std::string at = path + "/" + f.key();
    const auto field = std::find_if(rule->fields.begin(), rule->fields.end(), [&](const CheckField& cf) { return f.key() == cf.name; });
    if (field == rule->fields.end()) fail(at, "unknown field for rule '" + c.rule + "'");
    switch (field->kind) {
      case FieldKind::tensor:
      case FieldKind::text:
        if (!f->is_string()) fail(at, fmt::format("expected a tensor name, got {}", kind_of(*f)));
        c.fields[f.key()] = f->get<std::string>();
        break;
      case FieldKind::expr: c.fields[f.key()] = expr_text(*f, at); break;
      case FieldKind::number:
        if (!f->is_number() || f->get<double>() <= 0) fail(at, "expected a number > 0");
        c.fields[f.key()] = f->dump();
        break;
      case FieldKind::flag:
        if (!f->is_boolean()) fail(at, "expected true or false");
        c.fields[f.key()] = f->get<bool>() ? "true" : "false";
        break;
    }
  }
  for (const CheckField& cf : rule->fields)
    if (cf.required && !c.fields.count(cf.name)) fail(path + "/" + cf.name, "required field is missing");
  return c;
}

GeneratorSpec read_generator(const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, fmt::format("expected a generator object, got {}", kind_of(v)));
  if (v.contains("kind") && v["kind"] == kDerivedKind) return read_derived_init(v, path);
  GeneratorSpec g;
  g.kind = need_string(v, "kind", path);
  static const std::map<std::string, std::vector<std::string>> kFields = {
      {"normal", {"mean", "std"}},     {"uniform", {"low", "high"}},    {"int", {"low", "high"}},
      {"arange", {"start", "step", "mod"}}, {"constant", {"value"}}, {"permutation", {"start", "step"}}, {"values", {"values"}},
  };
  const auto it = kFields.find(g.kind);
  if (it == kFields.end())
    fail(path + "/kind", "unknown generator '" + g.kind + "' (expected normal, uniform, int, arange, constant, permutation, values or reference)");
  for (auto f = v.begin(); f != v.end(); ++f) {
    if (f.key() == "kind") continue;
    if (g.kind == "values" && f.key() == "values") {  // each element becomes the field "values.<i>"
      if (!f->is_array() || f->empty() || f->size() > kMaxGeneratorValues)
        fail(path + "/values", fmt::format("expected a list of 1 to {} numbers or expressions, one per element", kMaxGeneratorValues));
      for (size_t i = 0; i < f->size(); ++i) g.fields[values_field(i)] = expr_text((*f)[i], fmt::format("{}/values/{}", path, i));
      continue;
    }
    if (std::find(it->second.begin(), it->second.end(), f.key()) == it->second.end())
      fail(path + "/" + f.key(), "unknown field for generator '" + g.kind + "'");
    g.fields[f.key()] = expr_text(*f, path + "/" + f.key());
  }
  if ((g.kind == "int" && (!g.fields.count("low") || !g.fields.count("high"))))
    fail(path, "generator 'int' needs both 'low' and 'high'");
  if (g.kind == "constant" && !g.fields.count("value")) fail(path + "/value", "required field is missing");
  if (g.kind == "values" && !g.fields.count(values_field(0))) fail(path + "/values", "required field is missing");
  return g;
}

TensorSpec read_tensor(const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, fmt::format("expected a tensor object, got {}", kind_of(v)));
  check_keys(v, path, {"name", "dtype", "shape", "role", "init", "tolerance", "compare", "dequant", "deterministic", "offset_bytes"});
  TensorSpec t;
  t.name = need_string(v, "name", path);
  t.dtype = need_string(v, "dtype", path);
  if (t.dtype[0] != '$' && !parse_dtype(t.dtype))
    fail(path + "/dtype", "unknown dtype '" + t.dtype + "' (expected one of: " + dtype_list() + ", or $param)");
  t.shape = expr_list(need(v, "shape", path), path + "/shape", 0, 8);
  const std::string role = need_string(v, "role", path);
  if (role == "in") t.role = Role::in;
  else if (role == "out") t.role = Role::out;
  else if (role == "inout") t.role = Role::inout;
  else fail(path + "/role", "expected \"in\", \"out\" or \"inout\", got \"" + role + "\"");
  // An output is poisoned before the launch so that unwritten elements show: initial values
  // would be thrown away, so asking for them is a mistake (the kernel reads them: "inout").
  if (v.contains("init") && t.role == Role::out)
    fail(path + "/init", "'" + t.name + "' is an output, poisoned before the launch, so its init would be ignored; a "
                         "kernel that reads its initial values needs role \"inout\"");
  if (v.contains("init")) t.init = read_generator(v["init"], path + "/init");
  else if (t.role != Role::out) fail(path + "/init", "required for a tensor with role '" + role + "'");
  if (v.contains("tolerance")) {
    if (t.role == Role::in) fail(path + "/tolerance", "an input tensor is not compared; tolerance applies to out/inout");
    t.tolerance = read_tolerance(v["tolerance"], path + "/tolerance");
  }
  for (const char* key : {"compare", "dequant"}) {
    if (!v.contains(key)) continue;
    if (t.role == Role::in) fail(path + "/" + key, std::string("an input tensor is not compared; ") + key + " applies to out/inout");
    t.checks.push_back(read_check(v[key], key, path + "/" + key));
  }
  if (v.contains("deterministic")) {
    if (!v["deterministic"].is_boolean()) fail(path + "/deterministic", "expected true or false");
    if (t.role == Role::in) fail(path + "/deterministic", "an input tensor is not compared; deterministic applies to out/inout");
    t.deterministic = v["deterministic"].get<bool>();
  }
  if (v.contains("offset_bytes")) t.offset_bytes = expr_text(v["offset_bytes"], path + "/offset_bytes");
  return t;
}

ExpectedVerdict read_one_expectation(const json& v, const std::string& path) {
  if (!v.is_object()) fail(path, fmt::format("expected an object {{\"status\", \"arch\", \"why\"}}, got {}", kind_of(v)));
  check_keys(v, path, {"status", "arch", "why"});
  ExpectedVerdict e;
  e.status = need_string(v, "status", path);
  const auto& names = expectable_statuses();
  if (std::find(names.begin(), names.end(), e.status) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    fail(path + "/status", "cannot expect '" + e.status + "' (expected one of: " + list + ")");
  }
  if (v.contains("arch")) e.arch = need_string(v, "arch", path);
  e.why = need_string(v, "why", path);
  return e;
}

// "expect": one expectation or an array of them (one per arch, at most one for every device).
std::vector<ExpectedVerdict> read_expectations(const json& v, const std::string& path) {
  std::vector<ExpectedVerdict> out;
  if (v.is_array()) {
    if (v.empty()) fail(path, "expected an expectation object or a non-empty array of them");
    for (size_t i = 0; i < v.size(); ++i) out.push_back(read_one_expectation(v[i], fmt::format("{}/{}", path, i)));
  } else {
    out.push_back(read_one_expectation(v, path));
  }
  std::set<std::string> archs;
  for (size_t i = 0; i < out.size(); ++i)
    if (!archs.insert(out[i].arch).second)
      fail(v.is_array() ? fmt::format("{}/{}/arch", path, i) : path,
           out[i].arch.empty() ? "more than one expectation for every device" : "more than one expectation for arch '" + out[i].arch + "'");
  return out;
}

std::optional<int> read_repeat(const json& obj, const std::string& path) {
  if (!obj.contains("repeat")) return std::nullopt;
  const json& v = obj["repeat"];
  if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 1000)
    fail(path + "/repeat", "expected an integer from 1 to 1000 (launches on the same inputs)");
  return v.get<int>();
}

// Expands the manifest's "cases" array (explicit cases and sweeps) into concrete cases. With
// overridden (-a gave some sweep new values), two sweeps may now make the same case: the first
// is kept, since the manifest did not write the duplicate.
// What every case a case object makes shares: all but its name (and a sweep's params).
CaseSpec read_case_settings(const json& c, const std::string& p, const Params& defaults) {
  std::string tier = "small";
  if (c.contains("tier")) {
    tier = need_string(c, "tier", p);
    if (tier != "small" && tier != "large") fail(p + "/tier", "expected \"small\" or \"large\", got \"" + tier + "\"");
  }
  const std::vector<ExpectedVerdict> expect = c.contains("expect") ? read_expectations(c["expect"], p + "/expect") : std::vector<ExpectedVerdict>{};
  const std::optional<int> repeat = read_repeat(c, p);
  Params base = defaults;
  if (c.contains("params"))
    for (auto& [k, val] : read_params(c["params"], p + "/params")) base[k] = val;
  std::map<std::string, ToleranceSpec> tol;
  if (c.contains("tolerance")) {
    if (!c["tolerance"].is_object()) fail(p + "/tolerance", "expected an object: tensor name -> tolerance");
    for (auto t = c["tolerance"].begin(); t != c["tolerance"].end(); ++t)
      tol[t.key()] = read_tolerance(*t, p + "/tolerance/" + t.key());
  }
  CaseSpec cs{"", base, tol, tier, expect, repeat};
  if (c.contains("offset_bytes")) {
    if (!c["offset_bytes"].is_object()) fail(p + "/offset_bytes", "expected an object: tensor name -> bytes after an aligned address");
    for (auto t = c["offset_bytes"].begin(); t != c["offset_bytes"].end(); ++t)
      cs.offset_bytes[t.key()] = expr_text(*t, p + "/offset_bytes/" + t.key());
  }
  return cs;
}

using SweepAxes = std::vector<std::pair<std::string, std::vector<ParamValue>>>;

// "sweep": parameter -> values; at most kMaxCasesPerKernel cases with the `already` read before.
SweepAxes read_sweep(const json& sw, const std::string& p, size_t already) {
  if (!sw.is_object() || sw.empty()) fail(p + "/sweep", "expected an object: parameter -> array of values");
  SweepAxes axes;
  for (auto a = sw.begin(); a != sw.end(); ++a) {
    if (!a->is_array() || a->empty()) fail(p + "/sweep/" + a.key(), "expected a non-empty array of values");
    std::vector<ParamValue> vals;
    for (const json& x : *a) {
      if (x.is_number()) vals.emplace_back(x.get<double>());
      else if (x.is_string()) vals.emplace_back(x.get<std::string>());
      else fail(p + "/sweep/" + a.key(), "values must be numbers or strings");
    }
    axes.emplace_back(a.key(), vals);
  }
  // A few short axes multiply fast: 20 axes of 2 values are a million cases from 2 KB of JSON.
  size_t product = 1;
  for (const auto& [name, vals] : axes) {
    product *= vals.size();
    if (product + already > kMaxCasesPerKernel)
      fail(p + "/sweep", fmt::format("expands to more than {} cases (axis '{}' reaches {})", kMaxCasesPerKernel, name, product + already));
  }
  return axes;
}

// One case per point of the axes' product, named "prefix" then "a=1,b=x".
void expand_sweep(const CaseSpec& settings, const std::string& prefix, const SweepAxes& axes, std::vector<CaseSpec>& cases) {
  std::vector<size_t> idx(axes.size(), 0);
  for (;;) {
    CaseSpec cs = settings;
    cs.name = prefix;
    for (size_t a = 0; a < axes.size(); ++a) {
      cs.params[axes[a].first] = axes[a].second[idx[a]];
      cs.name += (a ? "," : "") + axes[a].first + "=" + param_to_string(axes[a].second[idx[a]]);
    }
    cases.push_back(cs);
    size_t a = axes.size();
    while (a > 0 && ++idx[a - 1] == axes[a - 1].second.size()) idx[--a] = 0;
    if (a == 0) break;
  }
}

std::vector<CaseSpec> read_cases(const json& v, const std::string& path, const Params& defaults, bool overridden) {
  if (!v.is_array() || v.empty()) fail(path, "expected a non-empty array of cases");
  std::vector<CaseSpec> cases;
  std::vector<std::string> case_paths;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string p = fmt::format("{}/{}", path, i);
    const json& c = v[i];
    if (!c.is_object()) fail(p, fmt::format("expected a case object, got {}", kind_of(c)));
    check_keys(c, p, {"name", "params", "sweep", "tolerance", "tier", "expect", "repeat", "offset_bytes"});
    CaseSpec settings = read_case_settings(c, p, defaults);
    if (!c.contains("sweep")) {
      settings.name = need_string(c, "name", p);
      cases.push_back(settings);
    } else {
      const SweepAxes axes = read_sweep(c["sweep"], p, cases.size());
      expand_sweep(settings, c.contains("name") ? need_string(c, "name", p) + "/" : "", axes, cases);
    }
    case_paths.resize(cases.size(), p);
  }
  std::set<std::string> seen;
  std::vector<CaseSpec> unique;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (seen.insert(cases[i].name).second) unique.push_back(std::move(cases[i]));
    else if (!overridden) fail(case_paths[i], "duplicate case name '" + cases[i].name + "'");
  }
  return unique;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// An entry is an extern "C" name or a C++ name expression ("ns::f<float, 4>"): any text a
// compiler could read as one, on one line.
void check_entry(const std::string& entry, const std::string& path) {
  if (entry.empty() || entry.size() > 1024) fail(path + "/entry", "expected a kernel name of 1 to 1024 characters");
  if (std::any_of(entry.begin(), entry.end(), [](char c) { return c == '\n' || c == '\r' || c == '"' || c == '\\' || c == '\0'; }))
    fail(path + "/entry", "a kernel name or C++ name expression on one line, without quotes or backslashes");
}

// A kernel file, resolved against the manifest's folder; it must exist.
std::string kernel_file(const json& v, const std::string& path, const std::string& file) {
  if (!v.is_string()) fail(path, fmt::format("expected the kernel file's path, got {}", kind_of(v)));
  const std::string source = (fs::path(file).parent_path() / v.get<std::string>()).lexically_normal().string();
  std::error_code ec;  // a symlink loop or an overlong path is an error of this field, not of the run
  if (!fs::is_regular_file(source, ec))
    fail(path, "kernel file not found: " + source.substr(0, 1024) + (ec ? " (" + ec.message() + ")" : ""));
  return source;
}

// "source": "k.cu", or one file per vendor, {"cuda": "k.cu", "hip": "k.hip"}: a port and its
// original under one entry, one reference and the same cases.
void read_sources(const json& v, const std::string& path, const std::string& file, KernelSpec& k) {
  if (!v.contains("source")) fail(path + "/source", "missing (the kernel file)");
  const json& s = v["source"];
  if (!s.is_object()) {
    k.source = kernel_file(s, path + "/source", file);
    return;
  }
  std::vector<std::string> vendors;  // in the table's order: the first one present is the kernel's default file
  for (const BackendRow& r : backend_table())
    if (*r.source_vendor) vendors.push_back(r.source_vendor);
  check_keys(s, path + "/source", vendors);
  if (s.empty()) fail(path + "/source", fmt::format("expected a file for one or more of: {}", fmt::join(vendors, ", ")));
  for (auto it = s.begin(); it != s.end(); ++it) k.vendor_sources[it.key()] = kernel_file(*it, path + "/source/" + it.key(), file);
  for (auto v = vendors.rbegin(); v != vendors.rend(); ++v)
    if (k.vendor_sources.count(*v)) k.source = k.vendor_sources[*v];
}

// "equivalent_mutants": [{"id": "arith_swap@12:30/-", "why": "..."}], each id once.
std::vector<EquivalentMutant> read_equivalent_mutants(const json& v, const std::string& path) {
  if (!v.is_array()) fail(path, fmt::format("expected an array of {{\"id\", \"why\"}}, got {}", kind_of(v)));
  std::vector<EquivalentMutant> out;
  std::set<std::string> ids;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string p = fmt::format("{}/{}", path, i);
    if (!v[i].is_object()) fail(p, fmt::format("expected an object {{\"id\", \"why\"}}, got {}", kind_of(v[i])));
    check_keys(v[i], p, {"id", "why"});
    EquivalentMutant m{need_string(v[i], "id", p), need_string(v[i], "why", p)};
    if (m.id.find('@') == std::string::npos) fail(p + "/id", "expected a mutant id as `hkcheck mutate` reports it, OPERATOR@LINE:COLUMN/EDIT");
    if (m.why.empty()) fail(p + "/why", "expected the reason no output can change");
    if (!ids.insert(m.id).second) fail(p + "/id", "mutant '" + m.id + "' is listed twice");
    out.push_back(std::move(m));
  }
  return out;
}

void read_reference(const json& v, const std::string& path, const std::string& file, KernelSpec& k) {
  k.reference = need_string(v, "reference", path);
  if (!is_identifier(k.reference)) fail(path + "/reference", "a reference name is a C identifier, as HK_REFERENCE(name) defines it");
  if (v.contains("reference_source")) {  // the name is looked up when the run gathers its references
    if (!v["reference_source"].is_string()) fail(path + "/reference_source", "expected the path of a reference .cpp file");
    const fs::path src = (fs::path(file).parent_path() / v["reference_source"].get<std::string>()).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(src, ec)) fail(path + "/reference_source", "reference file not found: " + src.string().substr(0, 1024));
    k.reference_source = fs::absolute(src, ec).string();
  }
}

void read_tensors(const json& v, const std::string& path, KernelSpec& k) {
  const json& tensors = need(v, "tensors", path);
  if (!tensors.is_array() || tensors.empty()) fail(path + "/tensors", "expected a non-empty array of tensors");
  std::set<std::string> names;
  bool any_output = false;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string p = fmt::format("{}/tensors/{}", path, i);
    k.tensors.push_back(read_tensor(tensors[i], p));
    if (!names.insert(k.tensors.back().name).second) fail(p + "/name", "duplicate tensor name '" + k.tensors.back().name + "'");
    any_output |= k.tensors.back().role != Role::in;
  }
  if (!any_output) fail(path + "/tensors", "no tensor has role out or inout: nothing would be checked");
  check_derived_tensors(k.tensors, path);
}

// Every case must plan: a typo in an expression is reported now, not halfway through a run.
// A project rule it breaks (a loosened tolerance without "why") is a warning, once per field,
// and the kernel still runs; --strict makes it an error.
void check_cases_plan(const KernelSpec& k, const std::string& file, bool strict, std::vector<std::string>* warnings) {
  std::set<std::string> warned;
  for (const CaseSpec& c : k.cases) {
    std::vector<PlanError> style;
    try {
      plan_case(k, c, &style);
    } catch (const PlanError& e) {
      fail(e.path, fmt::format("case '{}': {}", c.name, e.what()));
    }
    for (const PlanError& e : style) {
      if (strict) fail(e.path, fmt::format("case '{}': {} (--strict)", c.name, e.what()));
      // One per field: cases of other dtypes differ only in the figures ("ulps 2 > 0 ... f32", "> 1 ... bf16").
      const std::string what = e.what();
      if (warned.insert(e.path + "\n" + what.substr(0, what.find_first_of("0123456789"))).second)
        warnings->push_back(fmt::format("{}: {}: {} (a warning: the kernel runs; --strict makes it an error)", file, e.path, e.what()));
    }
  }
}

KernelSpec read_kernel(const json& v, const std::string& path, const std::string& file, bool overridden, bool strict,
                       std::vector<std::string>* warnings) {
  if (!v.is_object()) fail(path, fmt::format("expected a kernel object, got {}", kind_of(v)));
  check_keys(v, path, {"name", "source", "entry", "defines", "include_dirs", "options", "gpu_only", "reference", "reference_source", "params", "cases", "tensors", "args", "launch", "timeout", "expect", "repeat", "equivalent_mutants"});
  KernelSpec k;
  k.manifest = file;
  k.json_path = path;
  k.name = need_string(v, "name", path);
  if (k.name.size() > kMaxNameLength) fail(path + "/name", fmt::format("longer than {} characters", kMaxNameLength));
  if (k.name.empty() || !std::all_of(k.name.begin(), k.name.end(), [](char c) { return is_word_char(c) || c == '.' || c == '-'; }))
    fail(path + "/name", "kernel names use letters, digits, '_', '.' and '-' only");
  read_sources(v, path, file, k);
  k.entry = need_string(v, "entry", path);
  check_entry(k.entry, path);
  read_compile_settings(v, path, file, k);
  if (v.contains("gpu_only")) {
    if (!v["gpu_only"].is_string() || v["gpu_only"].get<std::string>().empty())
      fail(path + "/gpu_only", "expected the reason the kernel cannot run on the host backend, as a string");
    k.gpu_only = v["gpu_only"].get<std::string>();
  }
  read_reference(v, path, file, k);
  if (v.contains("params")) k.params = read_params(v["params"], path + "/params");
  if (v.contains("timeout")) {
    if (!v["timeout"].is_number() || !(v["timeout"].get<double>() > 0 && v["timeout"].get<double>() <= kMaxTimeoutSeconds))
      fail(path + "/timeout", fmt::format("expected seconds, more than 0 and at most {:g}", kMaxTimeoutSeconds));
    k.timeout = v["timeout"].get<double>();
  }
  if (v.contains("expect")) k.expect = read_expectations(v["expect"], path + "/expect");
  k.repeat = read_repeat(v, path);
  if (v.contains("equivalent_mutants")) k.equivalent_mutants = read_equivalent_mutants(v["equivalent_mutants"], path + "/equivalent_mutants");
  read_tensors(v, path, k);
  const json& args = need(v, "args", path);
  if (!args.is_array()) fail(path + "/args", "expected an array of arguments");
  for (size_t i = 0; i < args.size(); ++i) k.args.push_back(read_arg(args[i], fmt::format("{}/args/{}", path, i), k.tensors));
  const json& launch = need(v, "launch", path);
  if (!launch.is_object()) fail(path + "/launch", "expected an object with grid, block and shared");
  check_keys(launch, path + "/launch", {"grid", "block", "shared"});
  k.launch.grid = expr_list(need(launch, "grid", path + "/launch"), path + "/launch/grid", 1, 3);
  k.launch.block = expr_list(need(launch, "block", path + "/launch"), path + "/launch/block", 1, 3);
  if (launch.contains("shared")) k.launch.shared = expr_text(launch["shared"], path + "/launch/shared");
  k.cases = read_cases(need(v, "cases", path), path + "/cases", k.params, overridden);
  check_cases_plan(k, file, strict, warnings);
  check_section_defines(k);
  for (const CaseSpec& c : k.cases) {
    try {
      check_entry(entry_of(k, c), path);
    } catch (const PlanError& e) {
      fail(e.path, fmt::format("case '{}': {}", c.name, e.what()));
    }
  }
  return k;
}

}  // namespace

ManifestLoad load_manifest(const std::string& file, const std::vector<AxisOverride>& axes, bool strict) {
  ManifestLoad out;
  json doc;
  {
    std::ifstream in(file);
    if (!in) {
      out.errors.push_back(file + ": cannot open the file");
      out.failed_kernels.push_back(file);
      return out;
    }
    try {
      doc = json::parse(in);
    } catch (const json::exception& e) {  // a syntax error, or a number beyond double's range
      out.errors.push_back(fmt::format("{}: not valid JSON: {}", file, e.what()));
      out.failed_kernels.push_back(file);
      return out;
    }
  }
  try {
    if (!doc.is_object()) fail("", fmt::format("expected a JSON object at the top level, got {}", kind_of(doc)));
    check_keys(doc, "", {"hkcheck_manifest", "kernels"});
    const json& ver = need(doc, "hkcheck_manifest", "");
    if (!ver.is_number_integer() || ver.get<int64_t>() != 1)  // 4294967297 must not read as 1
      fail("/hkcheck_manifest", "expected 1 (the only manifest version this hkcheck reads), got " + ver.dump());
    const json& kernels = need(doc, "kernels", "");
    if (!kernels.is_array()) fail("/kernels", "expected an array of kernels");
  } catch (const FieldError& e) {
    out.errors.push_back(fmt::format("{}: {}: {}", file, e.path.empty() ? "/" : e.path, e.what));
    out.failed_kernels.push_back(file);
    return out;
  }
  std::set<size_t> overridden;  // the kernels -a changed
  out.axes_applied = apply_axis_overrides(doc, axes, &overridden);
  const json& kernels = doc["kernels"];
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string p = fmt::format("/kernels/{}", i);
    try {
      out.kernels.push_back(read_kernel(kernels[i], p, file, overridden.count(i) > 0, strict, &out.warnings));
    } catch (const std::exception& e) {  // e.g. a value of the wrong JSON type deep in a field
      out.errors.push_back(fmt::format("{}: {}: {}", file, p, e.what()));
      out.failed_kernels.push_back(file + "#" + p);
    } catch (const FieldError& e) {
      out.errors.push_back(fmt::format("{}: {}: {}", file, e.path, e.what));
      const json& k = kernels[i];
      out.failed_kernels.push_back(k.is_object() && k.contains("name") && k["name"].is_string()
                                       ? k["name"].get<std::string>()
                                       : file + "#" + p);
    }
  }
  return out;
}

void link_file_entries(std::vector<KernelSpec>& kernels) {
  std::map<std::string, std::set<std::string>> by_source;
  for (const KernelSpec& k : kernels)
    for (const std::string& e : entries_of(k)) by_source[k.source].insert(e);
  for (KernelSpec& k : kernels) k.file_entries.assign(by_source[k.source].begin(), by_source[k.source].end());
}

std::vector<std::string> find_manifests(const std::string& dir, std::vector<std::string>* not_files) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code dir_ec;
    // A results folder's repro copies are not manifests, nor is hkcheck's own state (kStateFolderName),
    // which lies inside the manifests when they are the project's folder (--manifests .).
    if (it->is_directory(dir_ec) && (is_results_folder(it->path()) || it->path().filename() == kStateFolderName)) it.disable_recursion_pending();
    if (it->path().extension() != ".json") continue;
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) files.push_back(it->path().string());
    else if (not_files)
      not_files->push_back(it->path().string() + ": named like a manifest but not a regular file (a folder, a FIFO or a dangling link); not read");
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace hk
