#include "backends/host/header_mirror.h"

#include <filesystem>
#include <fstream>

#include "process/compile_user.h"
#include "backends/host/source_rewrite.h"
#include "util/file_util.h"
#include "compile/include_closure.h"
#include "compile/line_directive.h"

namespace fs = std::filesystem;

namespace hk::host {
namespace {

std::string inside(const std::string& root, const std::string& absolute) { return root + absolute; }

}  // namespace

MirroredHeaders mirror_headers_for_host(const std::string& source, const std::string& source_path,
                                        const std::vector<std::string>& options, const std::string& into) {
  MirroredHeaders out{options, ""};
  const std::vector<std::string> files = include_closure_files(source, source_path, include_search(options));
  // The compile's own folders: a header there is the project's even where its folder is private.
  std::vector<std::string> folders = {fs::absolute(source_path).parent_path().lexically_normal().string()};
  for (size_t i = 0; i < options.size(); ++i)
    if (const std::optional<IncludeOption> o = include_option_at(options, i)) {
      if (o->kind != IncludeOptionKind::forced) folders.push_back(fs::absolute(o->value).lexically_normal().string());
      i += o->strings - 1;
    }
  std::vector<std::pair<std::string, std::string>> copies;  // absolute path, text to write
  bool changed = false;
  for (const std::string& f : files) {
    std::string text;
    const std::string path = fs::absolute(f).lexically_normal().string();
    if (!compile_user_may_read(path, folders)) continue;  // the compiler is refused it, not given a copy
    try {
      text = read_file(path, "header");
    } catch (const std::exception&) {
      continue;  // the compiler says what it cannot read
    }
    std::string rewritten = rewrite_header_for_host(text);
    changed |= rewritten != text;
    copies.emplace_back(path, line_directive(1, path) + "\n" + rewritten);
  }
  if (!changed) return out;
  std::error_code ec;
  for (const auto& [path, text] : copies) {
    const fs::path to = inside(into, path);
    fs::create_directories(to.parent_path(), ec);
    std::ofstream(to, std::ios::binary) << text;
  }
  out.root = into;
  for (size_t i = 0; i < out.options.size(); ++i) {
    const std::optional<IncludeOption> o = include_option_at(out.options, i);
    if (!o) continue;
    if (o->kind != IncludeOptionKind::forced) {
      const std::string dir = fs::absolute(o->value).lexically_normal().string();
      const std::string moved = inside(into, dir);
      fs::create_directories(moved, ec);
      std::string& last = out.options[i + o->strings - 1];
      last.replace(last.size() - o->value.size(), o->value.size(), moved);
    }
    i += o->strings - 1;
  }
  return out;
}

}  // namespace hk::host
