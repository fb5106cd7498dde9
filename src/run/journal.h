// The run's journal, results.jsonl in the results folder: a header line naming the run, then one
// line per finished case, appended and flushed to disk as each result arrives, so that an
// interrupted or crashed run loses nothing and `hkcheck --resume DIR` runs only what is missing.
// Format in docs/results.md.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "contracts/journal_header.h"
#include "contracts/result.h"

namespace hk {

constexpr const char* kJournalName = "results.jsonl";

struct JournalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A case line: the result, and the fingerprint of the case's plan when it ran
// (case_fingerprint.h), so that --resume keeps it only while the case is still the same.
struct JournaledCase {
  std::string plan;
  CaseResult result;
};
void to_json(nlohmann::json& j, const JournaledCase& c);
void from_json(const nlohmann::json& j, JournaledCase& c);

struct JournalContents {
  JournalHeader header;              // the run (contracts/journal_header.h)
  std::vector<JournaledCase> cases;  // finished cases, in the order they finished
  bool dropped_partial_line = false; // the last line was cut short (a crash mid-write) and ignored
  std::vector<int> damaged_lines;    // lines after the header that are not JSON (a write torn by a full disk): ignored, their cases run again
};

// Reads path; a last line that is incomplete or does not parse is ignored (it was being written
// when the run stopped). Throws JournalError naming the file and line for anything else.
JournalContents read_journal(const std::string& path);

class JournalWriter {
 public:
  // Starts a new journal at path (replacing an old one) with header, or, with append, continues
  // an existing one. Throws JournalError.
  JournalWriter(const std::string& path, const JournalHeader& header, bool append);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // Appends one case line and flushes it to disk. Throws JournalError.
  void append(const JournaledCase& c);

 private:
  void write_line(const nlohmann::json& j);
  std::string path_;
  int fd_ = -1;
};

}  // namespace hk
