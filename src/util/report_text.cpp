#include "util/report_text.h"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

namespace hk {
namespace {

using nlohmann::json;

bool byte_in(unsigned char c, unsigned char lo, unsigned char hi) { return c >= lo && c <= hi; }

// The length of the well-formed UTF-8 sequence at text[i] (Unicode's table 3-7: no overlong
// forms, no surrogates, nothing past U+10FFFF), or 0 when the byte there starts none.
size_t sequence_at(std::string_view t, size_t i) {
  const auto at = [&](size_t k) -> unsigned char { return i + k < t.size() ? static_cast<unsigned char>(t[i + k]) : 0; };
  const unsigned char c = at(0);
  if (c < 0x80) return 1;
  const auto tail = [&](size_t from, size_t to) {
    for (size_t k = from; k <= to; ++k)
      if (!byte_in(at(k), 0x80, 0xBF)) return false;
    return true;
  };
  if (byte_in(c, 0xC2, 0xDF)) return tail(1, 1) ? 2 : 0;
  if (c == 0xE0) return byte_in(at(1), 0xA0, 0xBF) && tail(2, 2) ? 3 : 0;
  if (byte_in(c, 0xE1, 0xEC) || byte_in(c, 0xEE, 0xEF)) return tail(1, 2) ? 3 : 0;
  if (c == 0xED) return byte_in(at(1), 0x80, 0x9F) && tail(2, 2) ? 3 : 0;
  if (c == 0xF0) return byte_in(at(1), 0x90, 0xBF) && tail(2, 3) ? 4 : 0;
  if (byte_in(c, 0xF1, 0xF3)) return tail(1, 3) ? 4 : 0;
  if (c == 0xF4) return byte_in(at(1), 0x80, 0x8F) && tail(2, 3) ? 4 : 0;
  return 0;
}

std::string byte_escape(unsigned char c) { return fmt::format("\\x{:02x}", c); }

bool is_control_byte(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Every string of a JSON value through utf8_escaped, in place.
void escape_strings(json& j) {
  if (j.is_string()) {
    auto& s = j.get_ref<std::string&>();
    if (!is_valid_utf8(s)) s = utf8_escaped(s);
  } else if (j.is_array()) {
    for (json& e : j) escape_strings(e);
  } else if (j.is_object()) {
    bool bad_key = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      escape_strings(it.value());
      bad_key |= !is_valid_utf8(it.key());
    }
    if (!bad_key) return;
    json fixed = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) fixed[utf8_escaped(it.key())] = std::move(it.value());
    j = std::move(fixed);
  }
}

// The longest run of backticks in s.
size_t longest_backtick_run(std::string_view s) {
  size_t best = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

// Control characters as \xNN, except those `keep` names; line breaks as spaces when one_line.
std::string controls_escaped(std::string_view s, bool one_line, std::string_view keep = "") {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (one_line && (ch == '\n' || ch == '\r')) out += ' ';
    else if (is_control_byte(c) && keep.find(ch) == std::string_view::npos) out += byte_escape(c);
    else out += ch;
  }
  return out;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequence_at(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string utf8_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequence_at(text, i);
    if (n == 0) {
      out += byte_escape(static_cast<unsigned char>(text[i]));
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string json_text(json doc, int indent) {
  escape_strings(doc);
  return doc.dump(indent);  // strict: after escape_strings nothing is left that it would refuse
}

std::string terminal_line(std::string_view text) { return controls_escaped(utf8_escaped(text), true, "\t"); }

std::string fit_columns(std::string_view line, size_t columns) {
  std::vector<size_t> starts;  // the byte at which each code point begins
  for (size_t i = 0; i < line.size(); ++i)
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() <= columns) return std::string(line);
  static constexpr std::string_view kGap = " ... ";
  if (columns <= kGap.size()) return std::string(line.substr(0, starts[columns]));
  const size_t keep = columns - kGap.size(), head = keep / 2, tail = keep - head;
  return std::string(line.substr(0, starts[head])) + std::string(kGap) + std::string(line.substr(starts[starts.size() - tail]));
}

std::string xml_escape(std::string_view text) {
  const std::string s = utf8_escaped(text);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;  // also keeps "]]>", which XML content must not hold, out
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\r': out += "&#13;"; break;
      case '\n':
      case '\t': out += s[i]; break;
      default:
        if (is_control_byte(c)) {
          out += byte_escape(c);
        } else if (c == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
                   (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE) {  // U+FFFE, U+FFFF: not XML characters
          out += static_cast<unsigned char>(s[i + 2]) == 0xBE ? "\\uFFFE" : "\\uFFFF";
          i += 2;
        } else {
          out += s[i];
        }
    }
  }
  return out;
}

std::string md_inline(std::string_view text, size_t max_bytes) {
  std::string s = utf8_escaped(text);
  if (s.size() > max_bytes) {
    size_t cut = max_bytes > 3 ? max_bytes - 3 : 0;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    s = s.substr(0, cut) + "...";
  }
  s = controls_escaped(s, true);
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char ch : s) {
    switch (ch) {
      case '|': case '\\': case '`': case '[': case ']': out += '\\', out += ch; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '@': out += "@&#8203;"; break;  // a zero-width space: "@name" mentions no one
      default: out += ch;
    }
  }
  return out;
}

std::string md_code_span(std::string_view text, bool in_table) {
  std::string s = controls_escaped(utf8_escaped(text), true);
  if (in_table) {
    std::string piped;
    for (char ch : s) piped += ch == '|' ? std::string("\\|") : std::string(1, ch);
    s = std::move(piped);
  }
  const std::string fence(longest_backtick_run(s) + 1, '`');
  // A span that starts or ends with a backtick needs a space between it and the fence.
  const std::string pad = !s.empty() && (s.front() == '`' || s.back() == '`') ? " " : "";
  return fence + pad + s + pad + fence;
}

std::string md_code_block(std::string_view text) {
  const std::string s = controls_escaped(utf8_escaped(text), false, "\n\t");
  const std::string fence(std::max<size_t>(3, longest_backtick_run(s) + 1), '`');
  return fence + "\n" + s + (s.empty() || s.back() != '\n' ? "\n" : "") + fence + "\n";
}

}  // namespace hk
