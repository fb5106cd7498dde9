#include "compile/include_closure.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "util/file_util.h"
#include "util/fnv1a.h"
#include "compile/header_fingerprint.h"

namespace hk {
namespace fs = std::filesystem;
// Named, not anonymous: a unity batch shares one anonymous namespace among its files.
namespace include_walk {

// One include line (or __has_include): the name as written, and how it is searched for.
struct Directive {
  std::string name;
  bool angle = false;  // <x>: the include folders only
  bool next = false;   // include_next: any folder may hold the file meant
};

// What one file's text asks for.
struct Scanned {
  std::string hash;
  std::vector<Directive> includes;
  bool computed = false;  // an include whose name a macro gives
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

size_t skip_space(const std::string& s, size_t i, size_t end) {
  while (i < end && is_space(s[i])) ++i;
  return i;
}

// The name at s[i] ("x" or <x>) into d; false when none is there (a macro, or nothing).
bool read_name(const std::string& s, size_t i, size_t end, Directive& d) {
  if (i >= end || (s[i] != '"' && s[i] != '<')) return false;
  const char close = s[i] == '"' ? '"' : '>';
  const size_t stop = s.find(close, i + 1);
  if (stop == std::string::npos || stop >= end || stop == i + 1) return false;
  d.angle = close == '>';
  d.name = s.substr(i + 1, stop - i - 1);
  return true;
}

bool keyword_at(const std::string& s, size_t i, size_t end, const char* word) {
  const size_t n = std::char_traits<char>::length(word);
  return i + n <= end && s.compare(i, n, word) == 0 && (i + n == end || !(std::isalnum(static_cast<unsigned char>(s[i + n])) || s[i + n] == '_'));
}

// The __has_include(...) tests on one line: a file whose presence changes the compile.
void scan_has_include(const std::string& s, size_t begin, size_t end, Scanned& out) {
  for (size_t at = s.find("__has_include", begin); at != std::string::npos && at < end; at = s.find("__has_include", at + 1)) {
    size_t i = at + 13;
    Directive d;
    if (keyword_at(s, i, end, "_next")) i += 5, d.next = true;
    i = skip_space(s, i, end);
    if (i >= end || s[i] != '(') continue;
    if (read_name(s, skip_space(s, i + 1, end), end, d)) out.includes.push_back(d);
    else out.computed = true;
  }
}

void scan_line(const std::string& s, size_t begin, size_t end, Scanned& out) {
  scan_has_include(s, begin, end, out);
  size_t i = skip_space(s, begin, end);
  if (i >= end || s[i] != '#') return;
  i = skip_space(s, i + 1, end);
  Directive d;
  if (keyword_at(s, i, end, "include_next")) i += 12, d.next = true;
  else if (keyword_at(s, i, end, "include")) i += 7;
  else if (keyword_at(s, i, end, "import")) i += 6;
  else return;
  i = skip_space(s, i, end);
  if (read_name(s, i, end, d)) out.includes.push_back(d);
  else if (i < end) out.computed = true;
}

Scanned scan(const std::string& text) {
  Scanned out;
  out.hash = fmt::format("{:016x}", fnv1a(text));
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    scan_line(text, begin, end, out);
    begin = end + 1;
  }
  return out;
}

// Each file is read and scanned once while its size and time stay the same.
std::shared_ptr<const Scanned> scanned_file(const std::string& path) {
  struct Known {
    std::uintmax_t size;
    fs::file_time_type time;
    std::shared_ptr<const Scanned> scanned;
  };
  static std::mutex m;
  static std::map<std::string, Known> known;
  std::error_code size_ec, time_ec;
  const std::uintmax_t size = fs::file_size(path, size_ec);
  const fs::file_time_type time = fs::last_write_time(path, time_ec);
  const bool stat_ok = !size_ec && !time_ec;
  {
    std::lock_guard<std::mutex> lock(m);
    if (const auto it = known.find(path); stat_ok && it != known.end() && it->second.size == size && it->second.time == time)
      return it->second.scanned;
  }
  std::shared_ptr<Scanned> s;
  try {
    s = std::make_shared<Scanned>(scan(read_file(path, "header")));
  } catch (const std::exception& e) {
    s = std::make_shared<Scanned>();
    s->hash = std::string("unreadable: ") + e.what();
  }
  std::lock_guard<std::mutex> lock(m);
  if (stat_ok) known[path] = Known{size, time, s};
  return s;
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The files d can mean from a file in folder `from`: the first found, or for include_next every
// one found (which one is meant depends on where the includer was found: all of them count).
std::vector<fs::path> resolve(const Directive& d, const fs::path& from, const IncludeSearch& s) {
  if (fs::path(d.name).is_absolute()) return is_file(d.name) ? std::vector<fs::path>{fs::path(d.name).lexically_normal()} : std::vector<fs::path>{};
  std::vector<fs::path> folders;
  if (!d.angle) {
    folders.push_back(from);
    folders.insert(folders.end(), s.quote.begin(), s.quote.end());
  }
  folders.insert(folders.end(), s.dirs.begin(), s.dirs.end());
  std::vector<fs::path> found;
  for (const fs::path& f : folders) {
    const fs::path p = fs::absolute(f / d.name).lexically_normal();
    if (!is_file(p) || std::find(found.begin(), found.end(), p) != found.end()) continue;
    found.push_back(p);
    if (!d.next) break;
  }
  return found;
}

// The walk over every file reachable from the source.
class Closure {
 public:
  Closure(const IncludeSearch& s, const RootRelative& root) : search_(s), root_(root) {}

  void visit(const Scanned& text, const fs::path& folder) {
    folders_.insert(folder.string());
    if (text.computed) computed_ = true;
    for (const Directive& d : text.includes) {
      const std::vector<fs::path> files = resolve(d, folder, search_);
      if (files.empty()) lines_.insert(fmt::format("missing {}{}{}", d.angle ? '<' : '"', d.name, d.angle ? '>' : '"'));
      for (const fs::path& f : files) enqueue(f);
    }
  }

  void enqueue(const fs::path& file) {
    if (seen_.size() >= kMaxClosureFiles) {
      truncated_ = true;
      return;
    }
    if (seen_.insert(file.string()).second) todo_.push_back(file);
  }

  void drain() {
    while (!todo_.empty()) {
      const fs::path file = todo_.front();
      todo_.pop_front();
      const std::shared_ptr<const Scanned> s = scanned_file(file.string());
      lines_.insert(root_.path(file.string()) + " " + s->hash);
      visit(*s, file.parent_path());
    }
  }

  // Every file reachable; where an include cannot be followed, every header of every folder it
  // may search is taken as reached, and followed in turn.
  void run() {
    std::set<std::string> expanded;
    for (;;) {
      drain();
      if (!computed_) return;
      std::vector<std::string> dirs(folders_.begin(), folders_.end());
      dirs.insert(dirs.end(), search_.quote.begin(), search_.quote.end());
      dirs.insert(dirs.end(), search_.dirs.begin(), search_.dirs.end());
      bool more = false;
      for (const std::string& d : dirs) {
        if (!expanded.insert(fs::absolute(d).lexically_normal().string()).second) continue;
        more = true;
        for (const fs::path& f : header_files(d)) enqueue(fs::absolute(f).lexically_normal());
      }
      if (!more || truncated_) return;
    }
  }

  const std::set<std::string>& files() const { return seen_; }

  std::string key() const {
    std::string text;
    for (const std::string& l : lines_) text += l + "\n";
    if (computed_) text += "computed: every header of the folders searched\n";
    if (truncated_) text += fmt::format("more than {} files: the rest do not count\n", kMaxClosureFiles);
    return text;
  }

 private:
  const IncludeSearch& search_;
  const RootRelative& root_;
  std::set<std::string> seen_, lines_, folders_;
  std::deque<fs::path> todo_;
  bool computed_ = false, truncated_ = false;
};


}  // namespace include_walk

using namespace include_walk;

IncludeSearch include_search(const std::vector<std::string>& options) {
  IncludeSearch s;
  std::vector<std::string> system, after;
  for (size_t i = 0; i < options.size(); ++i) {
    const std::optional<IncludeOption> opt = include_option_at(options, i);
    if (!opt) continue;
    i += opt->strings - 1;
    switch (opt->kind) {
      case IncludeOptionKind::quote: s.quote.push_back(opt->value); break;
      case IncludeOptionKind::system: system.push_back(opt->value); break;
      case IncludeOptionKind::after: after.push_back(opt->value); break;
      case IncludeOptionKind::forced: s.forced.push_back(opt->value); break;
      case IncludeOptionKind::dir: s.dirs.push_back(opt->value); break;
    }
  }
  s.dirs.insert(s.dirs.end(), system.begin(), system.end());
  s.dirs.insert(s.dirs.end(), after.begin(), after.end());
  return s;
}

std::vector<std::string> included_names(const std::string& path) {
  std::vector<std::string> names;
  for (const include_walk::Directive& d : include_walk::scanned_file(path)->includes) names.push_back(d.name);
  return names;
}

std::string include_closure_key(const std::string& source_text, const std::string& source_path, const IncludeSearch& search,
                                const RootRelative& root) {
  Closure walk(search, root);
  Scanned forced;  // -include x is searched for as #include "x" written in the working folder
  for (const std::string& f : search.forced) forced.includes.push_back({f, false, false});
  walk.visit(forced, fs::current_path());
  walk.visit(scan(source_text), fs::absolute(source_path).parent_path());
  walk.run();
  return walk.key();
}

std::vector<std::string> include_closure_files(const std::string& source_text, const std::string& source_path, const IncludeSearch& search) {
  const RootRelative root("");
  Closure walk(search, root);
  walk.visit(scan(source_text), fs::absolute(source_path).parent_path());
  walk.run();
  return std::vector<std::string>(walk.files().begin(), walk.files().end());
}

}  // namespace hk
