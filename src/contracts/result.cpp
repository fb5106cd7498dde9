#include "contracts/result.h"
#include "util/json_field.h"

#include "util/json_number.h"

#include <cmath>
#include <iterator>

namespace hk {

using nlohmann::json;

namespace {

// JSON has no NaN or Inf: json_number.h writes them as strings so a report stays valid JSON.
json number(double v) { return json_number(v); }
double read_number(const json& j) { return read_json_number(j); }

json numbers(const std::vector<double>& v) {
  json j = json::array();
  for (double x : v) j.push_back(number(x));
  return j;
}
std::vector<double> read_numbers(const json& j) {
  std::vector<double> v;
  for (const json& x : j) v.push_back(read_number(x));
  return v;
}

json diff_json(const ElementDiff& d) { return {{"index", d.index}, {"got", number(d.got)}, {"expected", number(d.expected)}}; }
ElementDiff diff_from(const json& j) { return {j.at("index").get<std::vector<int64_t>>(), read_number(j.at("got")), read_number(j.at("expected"))}; }

json params_json(const Params& p) {
  json j = json::object();
  for (const auto& [k, v] : p) {
    if (const auto* s = std::get_if<std::string>(&v)) j[k] = *s;
    else j[k] = std::get<double>(v);
  }
  return j;
}

Status status_from(const json& j, const char* field) {
  const auto st = parse_status(j.get<std::string>());
  if (!st) throw std::runtime_error(std::string("unknown ") + field + " '" + j.get<std::string>() + "'");
  return *st;
}

json leak_json(const LeakFinding& l) {
  return {{"in_worker", status_name(l.in_worker)}, {"in_worker_message", l.in_worker_message},
          {"alone", status_name(l.alone)},         {"alone_message", l.alone_message},
          {"after", l.after},                      {"after_count", l.after_count}};
}
LeakFinding leak_from(const json& j) {
  return {status_from(j.at("in_worker"), "leak.in_worker"), j.value("in_worker_message", ""), status_from(j.at("alone"), "leak.alone"),
          j.value("alone_message", ""), j.value("after", std::vector<std::string>{}), j.value("after_count", int64_t{0})};
}

// Quantized outputs' mismatch allowance, the comparison rule and the extra checks (docs/results.md).
json tolerance_json(const Tolerance& t) {
  return {{"atol", t.atol}, {"rtol", t.rtol}, {"ulps", t.ulps}, {"max_mismatch_fraction", t.max_mismatch_fraction}, {"hard_ulps", t.hard_ulps}};
}
void add_rule_fields(json& j, const OutputMetrics& m) {
  j["beyond_hard_ulps"] = m.beyond_hard_ulps;
  j["compare"] = m.compare;
  j["checks"] = json::array();
  for (const CheckOutcome& c : m.checks) {
    json figures = json::object();
    for (const auto& [k, v] : c.figures) figures[k] = number(v);
    j["checks"].push_back({{"rule", c.rule}, {"pass", c.pass}, {"summary", c.summary}, {"figures", figures}});
  }
}
void read_rule_fields(const json& j, OutputMetrics& m) {  // absent in older results
  const json& t = j.at("tolerance");
  m.tolerance.max_mismatch_fraction = t.value("max_mismatch_fraction", 0.0);
  m.tolerance.hard_ulps = t.value("hard_ulps", 0.0);
  m.beyond_hard_ulps = j.value("beyond_hard_ulps", int64_t{0});
  m.compare = j.value("compare", std::string("elementwise"));
  for (const json& c : j.value("checks", json::array())) {
    CheckOutcome o{c.at("rule"), c.at("pass"), c.value("summary", ""), {}};
    for (auto it = c.at("figures").begin(); it != c.at("figures").end(); ++it) o.figures[it.key()] = read_number(*it);
    m.checks.push_back(std::move(o));
  }
}
json timing_json(const KernelTiming& t) {
  return {{"launches", t.launches}, {"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms}, {"bytes", t.bytes},
          {"gb_per_s", t.gb_per_s}};
}
KernelTiming timing_from(const json& j) {
  return {j.at("launches"), j.at("median_ms"), j.at("min_ms"), j.at("max_ms"), j.at("bytes"), j.at("gb_per_s")};
}

json sanitizer_json(const CaseSanitizer& s) {
  json tools = json::array();
  for (const SanitizerTool& t : s.tools) {
    json tj = {{"tool", t.tool}, {"status", status_name(t.status)}, {"errors", t.errors}, {"summary", t.summary},
               {"first_error", t.first_error.empty() ? json(nullptr) : json(t.first_error)}, {"log", t.log}};
    if (!t.note.empty()) tj["note"] = t.note;
    tools.push_back(tj);
  }
  return {{"tool_path", s.tool_path}, {"tools", tools}};
}
CaseSanitizer sanitizer_from(const json& j) {
  CaseSanitizer s{j.at("tool_path"), {}};
  for (const json& t : j.at("tools"))
    s.tools.push_back({t.at("tool"), status_from(t.at("status"), "sanitizer status"), t.at("errors"), t.at("summary"),
                       t.at("first_error").is_null() ? "" : t["first_error"].get<std::string>(), t.at("log"), t.value("note", "")});
  return s;
}

}  // namespace


void to_json(json& j, const OutputMetrics& m) {
  j = {{"name", m.name},
       {"dtype", m.dtype},
       {"shape", m.shape},
       {"numel", m.numel},
       {"tolerance", tolerance_json(m.tolerance)},
       {"max_abs_diff", number(m.max_abs_diff)},
       {"max_rel_diff", number(m.max_rel_diff)},
       {"rel_l2", number(m.rel_l2)},
       {"max_ulps", number(m.max_ulps)},
       {"mismatches", m.mismatches},
       {"mismatch_fraction", m.mismatch_fraction},
       {"unwritten", m.unwritten},
       {"nonfinite", m.nonfinite},
       {"pass", m.pass}};
  j["first_mismatch"] = m.first_mismatch ? diff_json(*m.first_mismatch) : json(nullptr);
  j["worst"] = m.worst ? diff_json(*m.worst) : json(nullptr);
  if (m.window) {
    json got = json::array(), expected = json::array();
    for (const auto& row : m.window->got) got.push_back(numbers(row));
    for (const auto& row : m.window->expected) expected.push_back(numbers(row));
    j["window"] = {{"origin", m.window->origin}, {"rows", m.window->rows}, {"cols", m.window->cols},
                   {"got", got}, {"expected", expected}, {"wrong", m.window->wrong}};
  } else {
    j["window"] = nullptr;
  }
  j["slices"] = json::array();
  for (const SliceSummary& s : m.slices)
    j["slices"].push_back({{"dim", s.dim}, {"size", s.size}, {"wrong_count", s.wrong_count}, {"wrong", s.wrong}, {"right", s.right}});
  add_rule_fields(j, m);
}

void from_json(const json& j, OutputMetrics& m) {
  read_field(j, "name", m.name);
  read_field(j, "dtype", m.dtype);
  read_field(j, "shape", m.shape);
  read_field(j, "numel", m.numel);
  const json& t = j.at("tolerance");
  m.tolerance = {t.at("atol"), t.at("rtol"), t.at("ulps")};
  read_rule_fields(j, m);
  m.max_abs_diff = read_number(j.at("max_abs_diff"));
  m.max_rel_diff = read_number(j.at("max_rel_diff"));
  m.rel_l2 = read_number(j.at("rel_l2"));
  m.max_ulps = read_number(j.at("max_ulps"));
  read_field(j, "mismatches", m.mismatches);
  read_field(j, "mismatch_fraction", m.mismatch_fraction);
  read_field(j, "unwritten", m.unwritten);
  read_field(j, "nonfinite", m.nonfinite);
  read_field(j, "pass", m.pass);
  if (!j.at("first_mismatch").is_null()) m.first_mismatch = diff_from(j["first_mismatch"]);
  if (!j.at("worst").is_null()) m.worst = diff_from(j["worst"]);
  if (j.contains("window") && !j["window"].is_null()) {
    const json& w = j["window"];
    MismatchWindow win;
    read_field(w, "origin", win.origin);
    read_field(w, "rows", win.rows);
    read_field(w, "cols", win.cols);
    for (const json& row : w.at("got")) win.got.push_back(read_numbers(row));
    for (const json& row : w.at("expected")) win.expected.push_back(read_numbers(row));
    read_field(w, "wrong", win.wrong);
    m.window = win;
  }
  m.slices.clear();
  for (const json& s : j.value("slices", json::array()))
    m.slices.push_back({s.at("dim"), s.at("size"), s.at("wrong_count"), s.at("wrong"), s.at("right")});
}

void to_json(json& j, const CaseResult& r) {
  j = {{"kernel", r.kernel},
       {"case", r.case_name},
       {"manifest", r.manifest},
       {"params", params_json(r.params)},
       {"status", status_name(r.status)},
       {"reason", r.reason},
       {"message", r.message},
       {"outputs", r.outputs},
       {"launch", r.launch.is_null() ? json::object() : r.launch},
       {"timings_ms",
        {{"compile", r.timings.compile_ms},
         {"compile_cached", r.timings.compile_cached},
         {"kernel", r.timings.kernel_ms},
         {"reference", r.timings.reference_ms},
         {"reference_cached", r.timings.reference_cached},
         {"inputs", r.timings.inputs_ms},
         {"compare", r.timings.compare_ms},
         {"worker_start", r.timings.worker_start_ms},
         {"reference_store", r.timings.reference_store_ms},
         {"wall", r.timings.wall_ms}}},
       {"cpu_ms",
        {{"inputs", r.cpu.inputs_ms},
         {"reference", r.cpu.reference_ms},
         {"reference_store", r.cpu.reference_store_ms},
         {"compare", r.cpu.compare_ms},
         {"case", r.cpu.case_ms}}},
       {"notes", r.notes},
       {"repro", r.repro.empty() ? json(nullptr) : json(r.repro)},
       {"sanitizer", r.sanitizer ? sanitizer_json(*r.sanitizer) : json(nullptr)}};
  if (!r.compile_log.empty()) j["compile_log"] = r.compile_log;
  if (!r.resources.is_null()) j["resources"] = r.resources;
  if (r.timing) j["timing"] = timing_json(*r.timing);
  if (r.seed) j["seed"] = *r.seed, j["swept_from"] = r.swept_from;
  j["launches"] = r.launches;
  j["guards"] = json::array();
  for (const GuardViolation& g : r.guards)
    j["guards"].push_back({{"tensor", g.tensor}, {"side", g.side}, {"bytes", g.bytes}, {"first_offset", g.first_offset}, {"last_offset", g.last_offset}});
  if (const auto& g = r.read_outside)
    j["read_outside"] = {{"tensor", g->tensor}, {"side", g->side}, {"bytes", g->bytes}, {"first_offset", g->first_offset}, {"last_offset", g->last_offset}};
  j["repeat_diffs"] = json::array();
  for (const RepeatDiff& d : r.repeat_diffs)
    j["repeat_diffs"].push_back({{"tensor", d.tensor}, {"launch", d.launch}, {"elements", d.elements}});
  j["expected"] = r.expected ? json{{"status", r.expected->status}, {"arch", r.expected->arch}, {"why", r.expected->why}} : json(nullptr);
  j["actual_status"] = r.actual_status ? json(status_name(*r.actual_status)) : json(nullptr);
  j["leak"] = r.leak ? leak_json(*r.leak) : json(nullptr);
  j["placement"] = r.placement.device < 0 ? json(nullptr) : json{{"device", r.placement.device}, {"position", r.placement.position}};
  if (r.limit)
    j["limit"] = {{"what", r.limit->what},
                  {"requested", r.limit->requested},
                  {"limit", r.limit->limit},
                  {"over_by", r.limit->requested - r.limit->limit}};
  else
    j["limit"] = nullptr;
}

void from_json(const json& j, CaseResult& r) {
  read_field(j, "kernel", r.kernel);
  read_field(j, "case", r.case_name);
  r.manifest = j.value("manifest", "");
  r.params.clear();
  for (auto it = j.at("params").begin(); it != j.at("params").end(); ++it) {
    if (it->is_string()) r.params[it.key()] = it->get<std::string>();
    else r.params[it.key()] = it->get<double>();
  }
  const auto st = parse_status(j.at("status").get<std::string>());
  if (!st) throw std::runtime_error("unknown status '" + j.at("status").get<std::string>() + "'");
  r.status = *st;
  r.reason = j.value("reason", "");
  r.message = j.value("message", "");
  r.compile_log = j.value("compile_log", "");
  r.resources = j.value("resources", nlohmann::json());
  r.timing.reset();
  if (j.contains("timing") && !j["timing"].is_null()) r.timing = timing_from(j["timing"]);
  if (j.contains("seed")) r.seed = j["seed"].get<uint64_t>(), r.swept_from = j.value("swept_from", r.case_name);
  read_field(j, "outputs", r.outputs);
  r.launch = j.value("launch", json::object());
  const json& t = j.at("timings_ms");
  r.timings = {t.at("compile"), t.at("kernel"), t.at("reference"), t.at("wall"), t.at("compile_cached"), t.value("inputs", 0.0),
               t.value("compare", 0.0), t.value("worker_start", 0.0), t.value("reference_cached", false),
               t.value("reference_store", 0.0)};
  const json cpu = j.value("cpu_ms", json::object());  // absent from results written before it was measured
  r.cpu = {cpu.value("inputs", 0.0), cpu.value("reference", 0.0), cpu.value("reference_store", 0.0), cpu.value("compare", 0.0),
           cpu.value("case", 0.0)};
  r.notes = j.value("notes", std::vector<std::string>{});
  r.launches = j.value("launches", 0);
  r.guards.clear();
  for (const json& g : j.value("guards", json::array()))
    r.guards.push_back({g.at("tensor"), g.at("side"), g.at("bytes"), g.at("first_offset"), g.at("last_offset")});
  r.read_outside.reset();
  if (const auto g = j.find("read_outside"); g != j.end() && g->is_object())
    r.read_outside = GuardViolation{g->at("tensor"), g->at("side"), g->at("bytes"), g->at("first_offset"), g->at("last_offset")};
  r.repeat_diffs.clear();
  for (const json& d : j.value("repeat_diffs", json::array())) r.repeat_diffs.push_back({d.at("tensor"), d.at("launch"), d.at("elements")});
  if (j.contains("expected") && !j["expected"].is_null())
    r.expected = ExpectedVerdict{j["expected"].at("status"), j["expected"].value("arch", ""), j["expected"].value("why", "")};
  if (j.contains("actual_status") && !j["actual_status"].is_null()) {
    const auto actual = parse_status(j["actual_status"].get<std::string>());
    if (!actual) throw std::runtime_error("unknown actual_status '" + j["actual_status"].get<std::string>() + "'");
    r.actual_status = *actual;
  }
  r.repro = j.contains("repro") && j["repro"].is_string() ? j["repro"].get<std::string>() : "";
  r.sanitizer.reset();
  if (j.contains("sanitizer") && !j["sanitizer"].is_null()) r.sanitizer = sanitizer_from(j["sanitizer"]);
  r.leak.reset();
  if (j.contains("leak") && !j["leak"].is_null()) r.leak = leak_from(j["leak"]);
  r.placement = {};
  if (j.contains("placement") && !j["placement"].is_null()) r.placement = {j["placement"].at("device"), j["placement"].at("position")};
  if (j.contains("limit") && !j["limit"].is_null())
    r.limit = LimitExceeded{j["limit"].at("what"), j["limit"].at("requested"), j["limit"].at("limit")};
}

CaseResult blank_result(const KernelSpec& k, const CaseSpec& c, Status st) {
  CaseResult r;
  r.kernel = k.name;
  r.case_name = c.name;
  r.manifest = k.manifest;
  r.params = c.params;
  r.seed = c.seed;
  r.swept_from = c.swept_from;
  r.status = st;
  return r;
}

}  // namespace hk
