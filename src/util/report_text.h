// Text a kernel controls (its printf output, its compiler's log, the names in its manifest) made
// safe for each form a report takes. Every report writer passes such text through these, so that
// no kernel can make a report invalid UTF-8, ill-formed XML, or markdown that closes a code block,
// starts a heading, mentions someone or carries HTML. docs/results.md says what is escaped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hk {

// Valid UTF-8: each byte that is not part of a well-formed UTF-8 sequence becomes the four
// characters \xNN (lowercase hex). Valid text comes back unchanged.
std::string utf8_escaped(std::string_view text);
bool is_valid_utf8(std::string_view text);

// A JSON document as text, every string in it (keys included) through utf8_escaped first: what
// every JSON writer of hkcheck (reports, journal, worker protocol) writes.
std::string json_text(nlohmann::json doc, int indent = -1);

// One line for a terminal: utf8_escaped, line breaks as spaces, other control characters (the
// escape that starts a terminal's control sequences included) as \xNN.
std::string terminal_line(std::string_view text);
// A terminal_line cut to at most columns characters by losing its middle (" ... "), so that the
// end a message is read for (a fault address, a race's lines) stays. Code points count as columns.
std::string fit_columns(std::string_view line, size_t columns);

// XML 1.0 element text or attribute value: utf8_escaped; & < > " ' as entities; a carriage
// return as &#13; (a parser would turn it into a line feed); the characters XML 1.0 cannot hold
// at all (control characters but tab and line feed, U+FFFE, U+FFFF) as \xNN / \uFFFE text.
std::string xml_escape(std::string_view text);

// Markdown text inside one line (a table cell, a heading, a list item): line breaks as spaces,
// control characters as \xNN, `|` `\` `` ` `` `[` `]` backslash-escaped, `<` `>` `&` as entities
// (no HTML, no autolink), and `@` followed by a zero-width space (no one is mentioned). At most
// max_bytes of the text are kept, cut at a character and marked "...".
std::string md_inline(std::string_view text, size_t max_bytes = std::string::npos);

// Markdown inline code: a backtick fence longer than any run of backticks in the text, line
// breaks as spaces, control characters as \xNN. in_table: `|` escaped as a table cell needs.
std::string md_code_span(std::string_view text, bool in_table = false);

// A fenced markdown code block holding text verbatim (control characters but tab and line feed
// as \xNN): its fence is longer than any run of backticks in the text, so no line of the text can
// close it. Ends with a line break; the caller puts a blank line or a line start before it.
std::string md_code_block(std::string_view text);

}  // namespace hk
