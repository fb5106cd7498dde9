// The typed messages between hkcheck and its workers (contracts/worker_protocol.h,
// contracts/compile_messages.h) and the field reader their from_json use (util/json_field.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "contracts/compile_messages.h"
#include "util/json_field.h"
#include "contracts/worker_protocol.h"

namespace hk {
namespace {

using nlohmann::json;

template <class T>
T round_trip(const T& v) {
  return json::parse(json(v).dump()).get<T>();
}

std::string error_of(const json& j, void (*read)(const json&)) {
  try {
    read(j);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(WorkerProtocol, CompileMessagesRoundTrip) {
  const CompileJob job{"7", "/k/a.cu", {"-DT=float", "-I/k"}, {"a", "b"}};
  const CompileJob back = round_trip(job);
  EXPECT_EQ(back.id, "7");
  EXPECT_EQ(back.options, job.options);
  EXPECT_EQ(back.entries, job.entries);
  CompileAnswer a;
  a.id = "7", a.ok = true, a.log = "warning", a.bytes = 4096, a.ms = 12.5;
  a.symbols = {{"a", "_Z1av"}}, a.entry_errors = {{"b", "no kernel b"}}, a.summaries = {{"a", "a does not compile"}, {"b", "b has no error"}};
  KernelResources k;
  k.registers = 40;
  a.resources_by_entry["a"].figures = k;
  a.resources_by_entry["b"].error = "no resources for this backend";
  const CompileAnswer b = round_trip(a);
  EXPECT_EQ(b.id, "7");
  EXPECT_TRUE(b.ok);
  EXPECT_EQ(b.bytes, 4096u);
  EXPECT_EQ(b.symbols, a.symbols);
  EXPECT_EQ(b.entry_errors, a.entry_errors);
  EXPECT_EQ(b.summaries, a.summaries);
  ASSERT_TRUE(b.resources_by_entry.at("a").figures);
  EXPECT_EQ(b.resources_by_entry.at("a").figures->registers, 40);
  EXPECT_FALSE(b.resources_by_entry.at("b").figures);
  EXPECT_EQ(b.resources_by_entry.at("b").error, "no resources for this backend");
}

// A field missing or of another type is an error naming its path, nested records included.
TEST(WorkerProtocol, ABadFieldIsNamedByItsPath) {
  json a = CompileAnswer{};
  a["resources_by_entry"] = {{"k", {{"error", 3}}}};
  EXPECT_EQ(error_of(a, [](const json& j) { j.get<CompileAnswer>(); }), "/resources_by_entry/k/error: type must be string, but is number");
  json job = CompileJob{"1", "a.cu", {}, {}};
  job.erase("source");
  EXPECT_EQ(error_of(job, [](const json& j) { j.get<CompileJob>(); }), "/source: missing");
  job["source"] = 3;
  EXPECT_EQ(error_of(job, [](const json& j) { j.get<CompileJob>(); }), "/source: type must be string, but is number");
  EXPECT_NE(error_of(json::array(), [](const json& j) { j.get<CompileJob>(); }).find("expected an object"), std::string::npos);
}

TEST(WorkerProtocol, HelloCarriesTheProtocolVersion) {
  WorkerHello h;
  h.ok = true;
  h.compiler = "NVRTC 13.0";
  const json j = h;
  EXPECT_EQ(j.at("protocol"), kWorkerProtocolVersion);
  const WorkerHello back = j.get<WorkerHello>();
  EXPECT_EQ(hello_mismatch(back, "hk"), "");
  EXPECT_EQ(back.compiler, "NVRTC 13.0");
  // Another version: nothing else is read (its fields may mean other things), and it is refused.
  json other = {{"type", "hello"}, {"protocol", kWorkerProtocolVersion + 1}, {"ok", "yes"}};
  const WorkerHello o = other.get<WorkerHello>();
  EXPECT_NE(hello_mismatch(o, "/old/hkcheck").find("/old/hkcheck speaks protocol version"), std::string::npos);
  other.erase("protocol");
  EXPECT_NE(hello_mismatch(other.get<WorkerHello>(), "hk").find("older than versions"), std::string::npos);
}

// A request whose job cannot be read still names its case, so the worker answers it.
TEST(WorkerProtocol, ARequestWithABadJobKeepsItsCase) {
  CaseRequest r;
  r.id = "x-1", r.kernel = "k", r.case_name = "c";
  json j = r;
  j["job"] = {{"kernel", "k"}};
  const CaseRequest back = j.get<CaseRequest>();
  EXPECT_EQ(back.id, "x-1");
  EXPECT_EQ(back.case_name, "c");
  EXPECT_FALSE(back.job);
  EXPECT_EQ(back.job_error.rfind("/job/", 0), 0u) << back.job_error;
  CaseRequest exit;
  exit.exit = true;
  EXPECT_TRUE(round_trip(exit).exit);
}

TEST(WorkerProtocol, AnAnswerIsKnownByItsHeader) {
  CaseResult res;
  res.kernel = "k", res.case_name = "c", res.status = Status::PASS;
  const CaseAnswer a{{"result", "id-1"}, "k", "c", res};
  const json j = a;
  EXPECT_EQ(j.get<AnswerHeader>().id, "id-1");
  const CaseAnswer back = j.get<CaseAnswer>();
  ASSERT_TRUE(back.result);
  EXPECT_EQ(back.result->status, Status::PASS);
  EXPECT_FALSE(round_trip(CaseAnswer{{"started", "id-1"}, "k", "c", std::nullopt}).result);
  EXPECT_THROW((json{{"type", "result"}}.get<AnswerHeader>()), JsonFieldError);
  EXPECT_THROW((json{{"type", "hello"}, {"id", "id-1"}}.get<AnswerHeader>()), JsonFieldError);
}

}  // namespace
}  // namespace hk
