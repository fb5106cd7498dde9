// Text that a case record quotes from outside (a compiler's log) is bounded: a record crosses a
// process, the journal and every report, and a log of warnings copied whole into each case of a
// kernel made 146 MiB of results from 10 cases.
#pragma once

#include <cstddef>
#include <string>

namespace hk {

// text when it holds at most max_bytes; else its first and last max_bytes / 2 bytes (cut at line
// ends where one is near) around a line saying how many bytes of what were left out.
std::string bounded_text(const std::string& text, size_t max_bytes, const std::string& what);

// What a case record keeps of a compiler's log.
inline constexpr size_t kMaxCaseCompileLog = 64 * 1024;

}  // namespace hk
