#include "run/journal.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "util/json_field.h"
#include "util/file_util.h"
#include "util/report_text.h"

namespace hk {

using nlohmann::json;

void to_json(json& j, const JournaledCase& c) { j = {{"type", "case"}, {"plan", c.plan}, {"result", c.result}}; }

void from_json(const json& j, JournaledCase& c) {
  std::string type;
  read_field(j, "type", type);
  if (type != "case") throw JsonFieldError("/type", "expected \"case\", found \"" + type + "\"");
  read_field(j, "plan", c.plan);
  read_field(j, "result", c.result);  // its errors name /result/...
}

JournalContents read_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JournalError(fmt::format("{}: cannot read the journal ({})", path, std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  JournalContents out;
  size_t pos = 0;
  int line_no = 0;
  bool have_header = false;
  while (pos < text.size()) {
    ++line_no;
    const size_t nl = text.find('\n', pos);
    const bool complete = nl != std::string::npos;
    const std::string line = text.substr(pos, complete ? nl - pos : std::string::npos);
    pos = complete ? nl + 1 : text.size();
    const bool last = pos >= text.size();
    json j;
    try {
      j = json::parse(line);
    } catch (const std::exception& e) {
      if (last) {  // cut short by a crash while it was written
        out.dropped_partial_line = true;
        break;
      }
      if (line_no == 1) throw JournalError(fmt::format("{}:{}: not a JSON line: {}", path, line_no, e.what()));
      out.damaged_lines.push_back(line_no);  // its case has no trusted result: it runs again
      continue;
    }
    if (!complete && last) {  // parses, but was never finished with its newline: not trusted
      out.dropped_partial_line = true;
      break;
    }
    if (line_no == 1) {
      try {
        out.header = j.get<JournalHeader>();
        have_header = true;
      } catch (const std::exception& e) {
        throw JournalError(fmt::format("{}:1: {}", path, e.what()));
      }
      continue;
    }
    try {
      out.cases.push_back(j.get<JournaledCase>());
    } catch (const std::exception& e) {
      throw JournalError(fmt::format("{}:{}: {}", path, line_no, e.what()));
    }
  }
  if (!have_header) throw JournalError(fmt::format("{}: the journal has no whole run header (empty, or cut short)", path));
  return out;
}

JournalWriter::JournalWriter(const std::string& path, const JournalHeader& header, bool append) : path_(path) {
  // Never through a link: a new journal replaces one, a resumed run refuses it (ELOOP).
  std::string replaced;
  fd_ = open_no_follow(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (append ? 0 : O_TRUNC), 0644, !append, &replaced);
  if (!replaced.empty()) fmt::print(stderr, "hkcheck: {}\n", replaced);
  if (fd_ < 0) throw JournalError(fmt::format("{}: cannot open the journal: {}", path, errno == ELOOP ? "it is a symbolic link, and hkcheck follows none in a results folder" : std::strerror(errno)));
  if (append) {
    // A line cut short by a crash must not run into the next one: cut it off.
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const size_t keep = text.empty() ? 0 : text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    if (keep < text.size() && ::ftruncate(fd_, static_cast<off_t>(keep)) != 0)
      throw JournalError(fmt::format("{}: cannot cut off its partial last line: {}", path, std::strerror(errno)));
  } else {
    write_line(header);
  }
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::append(const JournaledCase& c) { write_line(c); }

void JournalWriter::write_line(const json& j) {
  const std::string line = json_text(j) + "\n";
  const off_t before = ::lseek(fd_, 0, SEEK_END);
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      // Take back what part of the line was written (a full disk), so the next line does not
      // continue it; a journal holds whole lines only.
      if (done > 0 && (before < 0 || ::ftruncate(fd_, before) != 0)) {
        [[maybe_unused]] const ssize_t ended = ::write(fd_, "\n", 1);  // else end the torn line: it stands alone
      }
      throw JournalError(fmt::format("{}: cannot write: {}", path_, why));
    }
    done += static_cast<size_t>(n);
  }
  ::fdatasync(fd_);  // a result on disk survives a crash of the parent or of the machine
}

}  // namespace hk
