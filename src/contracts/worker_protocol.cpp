#include "contracts/worker_protocol.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/json_field.h"

namespace hk {

using nlohmann::json;

namespace {

void expect_type(const json& j, std::initializer_list<const char*> types) {
  std::string type;
  read_field(j, "type", type);
  for (const char* t : types)
    if (type == t) return;
  throw JsonFieldError("/type", "unexpected message type '" + type + "'");
}

}  // namespace

std::string hello_mismatch(const WorkerHello& h, const std::string& worker_exe) {
  if (h.protocol == kWorkerProtocolVersion) return "";
  const std::string which = h.protocol == 0 ? "a protocol older than versions" : fmt::format("protocol version {}", h.protocol);
  return fmt::format("the worker {} speaks {}, this hkcheck version {}: it is the binary of another hkcheck build", worker_exe, which,
                     kWorkerProtocolVersion);
}

void to_json(json& j, const WorkerHello& h) {
  j = {{"type", "hello"}, {"protocol", h.protocol}, {"ok", h.ok}};
  if (!h.ok) j["error"] = h.error;
  if (h.device) j["device"] = *h.device;
  if (!h.compiler.empty()) j["compiler"] = h.compiler;
}

void from_json(const json& j, WorkerHello& h) {
  h = WorkerHello{};
  expect_type(j, {"hello"});
  h.protocol = 0;
  read_optional_field(j, "protocol", h.protocol);
  if (h.protocol != kWorkerProtocolVersion) return;  // the rest may mean something else
  read_field(j, "ok", h.ok);
  if (!h.ok) read_field(j, "error", h.error);
  if (j.contains("device")) read_field(j, "device", h.device.emplace());
  read_optional_field(j, "compiler", h.compiler);
}

void to_json(json& j, const CaseRequest& r) {
  if (r.exit) {
    j = {{"type", "exit"}};
    return;
  }
  j = {{"type", "run"}, {"id", r.id}, {"kernel", r.kernel}, {"case", r.case_name}};
  if (r.job) j["job"] = *r.job;
}

void from_json(const json& j, CaseRequest& r) {
  r = CaseRequest{};
  expect_type(j, {"run", "exit"});
  std::string type;
  read_field(j, "type", type);
  if ((r.exit = type == "exit")) return;
  read_field(j, "id", r.id);
  read_field(j, "kernel", r.kernel);
  read_field(j, "case", r.case_name);
  try {
    read_field(j, "job", r.job.emplace());
  } catch (const JsonFieldError& e) {
    r.job.reset();
    r.job_error = e.what();
  }
}

void from_json(const json& j, AnswerHeader& h) {
  expect_type(j, {"started", "phase", "result"});
  read_field(j, "type", h.type);
  read_field(j, "id", h.id);
}

void to_json(json& j, const CaseAnswer& a) {
  j = {{"type", a.header.type}, {"id", a.header.id}, {"kernel", a.kernel}, {"case", a.case_name}};
  if (a.result) j["result"] = *a.result;
  if (a.header.type == "phase") j["phase"] = a.phase;
  if (a.checked) j["checked"] = *a.checked;
}

void from_json(const json& j, CaseAnswer& a) {
  a = CaseAnswer{};
  a.header = j.get<AnswerHeader>();
  read_field(j, "kernel", a.kernel);
  read_field(j, "case", a.case_name);
  if (a.header.type == "result") read_field(j, "result", a.result.emplace());
  if (a.header.type == "phase") read_field(j, "phase", a.phase);
  if (a.header.type == "phase" && j.contains("checked")) read_field(j, "checked", a.checked.emplace());
}

}  // namespace hk
