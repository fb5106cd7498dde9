// What compile-only's parent (compile_only.cpp) and its compile worker (compile_worker.cpp) say
// to each other after the hello (worker_protocol.h), one JSON line each way per compile.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/backend.h"
#include "contracts/code_object_resources.h"

namespace hk {

// One compile of a kernel file for the worker's target.
struct CompileJob {
  std::string id;      // echoed in the answer
  std::string source;  // the kernel file's path
  std::vector<std::string> options;
  std::vector<std::string> entries;  // every entry the file is compiled with
  // Set for a compile made ahead of a run's workers on this device (compile_ahead.h): it is kept
  // under their key, as their backend compiles it, and the answer says only whether it was made.
  std::optional<DeviceInfo> run_device;
};

// What the compiled code says of one entry, or why it says nothing.
struct EntryResources {
  std::optional<KernelResources> figures;
  std::string error;  // set when figures is not
};

struct CompileAnswer {
  std::string id;  // the job's; "" when the job could not be read
  bool ok = false;
  std::string log;      // the compiler's, without the per-kernel figures resources came from
  // A failed compile's error for each entry, attributed to it (compile_attribution.h): the one
  // answer serves every kernel of the file, so each gets its own words, whichever asked first.
  std::map<std::string, std::string> summaries;
  uint64_t bytes = 0;   // of the compiled code
  double ms = 0;
  bool cached = false;  // read from the compile cache (compile_cache.h), not compiled now
  bool left_to_another = false;  // a run_device job another process was compiling: nothing done
  std::map<std::string, std::string> symbols;       // entry -> the symbol the code holds it under
  std::map<std::string, std::string> entry_errors;  // entry -> why the file holds none such
  std::map<std::string, EntryResources> resources_by_entry;  // when ok
};

void to_json(nlohmann::json& j, const CompileJob& c);
void from_json(const nlohmann::json& j, CompileJob& c);
void to_json(nlohmann::json& j, const EntryResources& r);
void from_json(const nlohmann::json& j, EntryResources& r);
void to_json(nlohmann::json& j, const CompileAnswer& a);
void from_json(const nlohmann::json& j, CompileAnswer& a);

}  // namespace hk
