#include "compile/device_part_headers.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <sstream>

#include "process/compile_user.h"
#include "util/file_util.h"
#include "compile/include_closure.h"
#include "util/fnv1a.h"
#include "compile/line_directive.h"

namespace hk {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxDepth = 8;  // headers including headers; deeper ones stay includes

fs::path canonical_or_same(const fs::path& p) { return canonical_path(p.string()); }

// Where a header may be split: the kernel file's folder and below, always; an -I folder of the
// compile (include_dirs, cuda-samples' Common/) only for a header no header the compile keeps
// as an include also includes. A tile library's headers include each other: split, one of them
// would come in twice, as the copy and as the real file another header includes, and define its
// concepts twice; such a library is compiled as it is.
struct SplitScope {
  fs::path kernel_dir;
  std::vector<fs::path> include_dirs;
  std::map<std::string, std::set<std::string>> includers;  // a header's file name -> the reached files that #include it
  std::vector<std::string> folders() const {
    std::vector<std::string> all = {kernel_dir.string()};
    for (const fs::path& d : include_dirs) all.push_back(d.string());
    return all;
  }
};

SplitScope split_scope(const std::string& path, const std::vector<std::string>& options, const DevicePart& part) {
  SplitScope scope{canonical_or_same(fs::path(path).parent_path()), {}, {}};
  for (size_t i = 0; i < options.size(); ++i) {
    if (options[i] == "-I" && i + 1 < options.size()) scope.include_dirs.push_back(canonical_or_same(options[++i]));
    else if (options[i].rfind("-I", 0) == 0 && options[i].size() > 2) scope.include_dirs.push_back(canonical_or_same(options[i].substr(2)));
  }
  if (scope.include_dirs.empty()) return scope;  // nothing outside the kernel's folder is split
  for (const std::string& r : part.reached_files)
    for (const std::string& name : included_names(r)) scope.includers[fs::path(name).filename().string()].insert(canonical_or_same(r).string());
  return scope;
}

// Whether a header other than those in split (the kernel file, the headers being split around
// this one) names file in an #include line, under any folder: a conservative answer, by name.
bool included_elsewhere(const fs::path& file, const SplitScope& scope, const std::set<std::string>& split) {
  const auto it = scope.includers.find(file.filename().string());
  if (it == scope.includers.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](const std::string& f) { return !split.count(f); });
}

bool inside(const fs::path& file, const std::vector<fs::path>& dirs) {
  const std::string f = file.string();
  return std::any_of(dirs.begin(), dirs.end(), [&](const fs::path& d) {
    const std::string p = d.string() + (d.string().empty() || d.string().back() == '/' ? "" : "/");
    return f.rfind(p, 0) == 0;
  });
}

// "#pragma once" means nothing once the text sits inside another file (and clang warns about it).
std::string without_pragma_once(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::string squeezed;
    for (char c : line)
      if (c != ' ' && c != '\t') squeezed += c;
    out += (squeezed == "#pragmaonce" ? std::string() : line) + "\n";
  }
  return out;
}

// used: what the files that include this one use of it and of the headers below it.
// context: what path itself was parsed after (empty for the kernel file).
// scope: where headers may be split; split: the files being split around this one.
void put_in(DevicePart& part, const std::string& path, const std::vector<std::string>& options, bool hip, UsedDeclarations used,
            const std::vector<IncluderText>& context, int depth, const SplitScope& scope, std::set<std::string> split) {
  if (depth >= kMaxDepth) return;
  for (const auto& [file, offsets] : part.used_elsewhere) used[file].insert(offsets.begin(), offsets.end());
  split.insert(canonical_or_same(path).string());
  struct Replacement {
    unsigned begin, end;
    std::string text;
  };
  std::vector<Replacement> replacements;
  std::set<std::string> seen;
  std::vector<KeptInclude> includes = part.kept_includes;
  std::sort(includes.begin(), includes.end(), [](const KeptInclude& a, const KeptInclude& b) { return a.begin < b.begin; });
  for (const KeptInclude& inc : includes) {
    const fs::path file = canonical_or_same(inc.file);
    if (!inside(file, {scope.kernel_dir}) && (!inside(file, scope.include_dirs) || included_elsewhere(file, scope, split))) continue;
    // Its text would reach the compiler in the source: only a header the compile may read itself.
    if (!host::compile_user_may_read(file.string(), scope.folders())) continue;
    if (seen.count(file.string())) {  // already put in above: a second copy would define it all again
      replacements.push_back({inc.begin, inc.end, ""});
      continue;
    }
    // The header is parsed after what precedes its #include here (and what preceded this file).
    std::vector<IncluderText> header_context = context;
    const fs::path here = canonical_or_same(path).parent_path() / fmt::format(".hk-includer-{}-{}.h", fs::path(path).filename().string(), inc.begin);
    header_context.push_back({here.string(), (context.empty() ? "" : "#include \"" + context.back().path + "\"\n") +
                                                 part.source.substr(0, inc.begin) + "\n"});
    DevicePart header;
    try {
      const std::string text = read_file(file.string(), "header");
      header = device_part(text, file.string(), options, hip, {}, used, header_context);
      put_in(header, file.string(), options, hip, used, header_context, depth + 1, scope, split);
    } catch (const std::exception&) {
      continue;  // the compiler reads it as an include, and says what is wrong with it
    }
    if (!header.changed()) continue;
    seen.insert(file.string());
    for (const std::string& d : header.dropped) part.dropped.push_back(fmt::format("{} in {}", d, inc.name));
    part.include_dirs.push_back(file.parent_path().string());
    part.device_headers.insert(header.device_headers.begin(), header.device_headers.end());
    part.include_dirs.insert(part.include_dirs.end(), header.include_dirs.begin(), header.include_dirs.end());
    // A guard of the header's path: a later #include of it, from any split header, is a no-op.
    const std::string guard = fmt::format("HK_DEVICE_PART_{:016x}", fnv1a(file.string()));
    replacements.push_back({inc.begin, inc.end,
                            fmt::format("#ifndef {0}\n#define {0}\n", guard) + line_directive(1, file.string()) + "\n" +
                                without_pragma_once(header.source) + "\n#endif\n" + line_directive(inc.line + 1, path)});
  }
  for (auto r = replacements.rbegin(); r != replacements.rend(); ++r) part.source.replace(r->begin, r->end - r->begin, r->text);
}

}  // namespace

void put_in_project_headers(DevicePart& part, const std::string& path, const std::vector<std::string>& options, bool hip) {
  put_in(part, path, options, hip, {}, {}, 0, split_scope(path, options, part), {});
}

}  // namespace hk
