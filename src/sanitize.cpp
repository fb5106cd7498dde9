#include "sanitize.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool executable(const fs::path& p) { return fs::is_regular_file(p) && ::access(p.c_str(), X_OK) == 0; }

}  // namespace

std::optional<std::string> find_compute_sanitizer() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      if (!dir.empty() && executable(fs::path(dir) / "compute-sanitizer")) return fs::absolute(fs::path(dir) / "compute-sanitizer").string();
  }
  if (executable("/usr/local/cuda/bin/compute-sanitizer")) return std::string("/usr/local/cuda/bin/compute-sanitizer");
  return std::nullopt;
}

SanitizerReport parse_sanitizer_log(const std::string& log, size_t max_lines) {
  // Reports are blocks of "========= " lines separated by a bare "=========" line; the first
  // block is the tool's banner, the last line its ERROR SUMMARY.
  SanitizerReport rep;
  std::stringstream ss(log);
  std::string line, block;
  size_t lines = 0;
  bool in_error = false, done = false;
  while (std::getline(ss, line)) {
    if (line.rfind("=========", 0) != 0) continue;
    std::string body = line.substr(9);
    if (!body.empty() && body[0] == ' ') body.erase(0, 1);
    if (body.rfind("ERROR SUMMARY", 0) == 0) {
      rep.summary = body;
      continue;
    }
    if (done) continue;
    const bool blank = body.find_first_not_of(' ') == std::string::npos;
    if (!in_error) {
      if (blank || body.rfind("COMPUTE-SANITIZER", 0) == 0) continue;
      in_error = true;
    } else if (blank) {
      done = true;
      continue;
    }
    if (lines < max_lines) block += body + "\n";
    else if (lines == max_lines) block += "...\n";
    ++lines;
  }
  rep.first_error = block;
  return rep;
}

json sanitize_case(const RunOptions& opt, const std::string& sanitizer_path, const KernelSpec& k, const CaseSpec& c,
                   const std::string& log_dir) {
  json tools = json::array();
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  for (const std::string tool : {"memcheck", "racecheck"}) {
    const std::string log_path = log_dir + "/" + tool + ".log";
    fs::remove(log_path, ec);
    RunOptions o = opt;
    o.wrapper = {sanitizer_path, "--tool", tool, "--log-file", log_path, "--target-processes", "application-only"};
    o.timeout_s = opt.timeout_s * 20;  // the tools slow kernels down by one to two orders of magnitude
    Runner runner(o);
    const CaseResult r = runner.run(k, c);
    std::ifstream in(log_path);
    std::stringstream ss;
    ss << in.rdbuf();
    const SanitizerReport rep = parse_sanitizer_log(ss.str());
    json t = {{"tool", tool}, {"status", status_name(r.status)}, {"log", log_path}, {"summary", rep.summary}};
    t["first_error"] = rep.first_error.empty() ? json(nullptr) : json(rep.first_error);
    if (!in) t["note"] = "the tool wrote no log: " + r.message.substr(0, 500);
    tools.push_back(t);
    if (r.status == Status::NOT_RUN) break;  // interrupted
  }
  return {{"tool_path", sanitizer_path}, {"tools", tools}};
}

}  // namespace hk
