// The messages between hkcheck and its worker processes (worker.h runs cases,
// compile_worker.h only compiles), one JSON object a line, each with one to_json/from_json:
//   worker -> parent, first:  WorkerHello  {"type":"hello","protocol":P,"ok":true,"device":{...}}
//                                          (a compile worker: "compiler":"NVRTC 13.0" instead)
//                                          or {"type":"hello","protocol":P,"ok":false,"error":"..."}
//   parent -> case worker:    CaseRequest  {"type":"run","id":I,"kernel":K,"case":C,"job":{...CaseJob...}}
//                                          or {"type":"exit"}
//   case worker -> parent:    CaseAnswer   {"type":"started","id":I,"kernel":K,"case":C}
//                                          {"type":"phase",...,"phase":"compile"|"kernel"|"reference"|"checks"} (case_phase.h)
//                                          {"type":"phase",...,"phase":"timing","checked":{...CaseResult...}}
//                                          then {"type":"result","id":I,"kernel":K,"case":C,"result":{...CaseResult...}}
//   parent -> compile worker: CompileJob, compile worker -> parent: CompileAnswer (compile_messages.h)
// The parent takes only answers carrying its request's id (AnswerHeader is read first), and a
// hello of another protocol version is refused: a worker binary of another hkcheck would
// otherwise be misread.
#pragma once

#include <chrono>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "platform/backend.h"
#include "contracts/case_job.h"
#include "contracts/result.h"

namespace hk {

// The descriptor a worker (a case worker or a compile worker) speaks its protocol on: its stdout
// stays free for a kernel's printf.
constexpr int kWorkerProtocolFd = 3;
// How long a parent waits for a worker's hello (a GPU context, a compiler's library to open).
constexpr std::chrono::seconds kWorkerHello{120};
constexpr double kWorkerHelloSeconds = static_cast<double>(kWorkerHello.count());  // for the settings that take seconds

// Bumped whenever a message of either worker changes shape or meaning.
constexpr int kWorkerProtocolVersion = 4;  // 3: a case worker says which part of the case it runs; 4: "compile", "timing"

struct WorkerHello {
  int protocol = kWorkerProtocolVersion;  // 0 when the hello names none (a worker older than versions)
  bool ok = false;
  std::string error;                  // why not ok
  std::optional<DeviceInfo> device;   // a case worker's device
  std::string compiler;               // a compile worker's compiler, by its own name
};

// Why the parent cannot talk to the worker that said this hello, or "" when it can.
std::string hello_mismatch(const WorkerHello& h, const std::string& worker_exe);

struct CaseRequest {
  bool exit = false;  // {"type":"exit"}: the worker ends; nothing else is set
  std::string id, kernel, case_name;
  std::optional<CaseJob> job;
  std::string job_error;  // why job could not be read: the worker answers the case with an ERROR
};

// What identifies an answer, read before the rest of it: a line of a kernel's printf, or one
// left from an earlier request, has not the request's id and is ignored unread.
struct AnswerHeader {
  std::string type;  // "started", "phase" or "result"
  std::string id;
};

struct CaseAnswer {
  AnswerHeader header;
  std::string kernel, case_name;
  std::optional<CaseResult> result;  // for "result"
  std::string phase;                 // for "phase": case_phase.h
  std::optional<CaseResult> checked;  // for the "timing" phase: the verdict before the timed launches
};

void to_json(nlohmann::json& j, const WorkerHello& h);
void from_json(const nlohmann::json& j, WorkerHello& h);  // of another protocol: only h.protocol is read
void to_json(nlohmann::json& j, const CaseRequest& r);
void from_json(const nlohmann::json& j, CaseRequest& r);  // a bad job fills job_error, it does not throw
void from_json(const nlohmann::json& j, AnswerHeader& h);
void to_json(nlohmann::json& j, const CaseAnswer& a);
void from_json(const nlohmann::json& j, CaseAnswer& a);

}  // namespace hk
