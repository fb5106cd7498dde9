#include "select/root_relative.h"

#include <filesystem>

namespace hk {
namespace fs = std::filesystem;
namespace {

// Stands for the root in kept text; not a path any compiler writes.
constexpr const char* kRootToken = "<project-root>";

fs::path absolute_normal(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) a = fs::path(p);
  a = a.lexically_normal();
  if (a.has_filename() || a == a.root_path()) return a;
  return a.parent_path();  // "dir/" -> "dir"
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

}  // namespace

RootRelative::RootRelative(const std::string& root) {
  if (root.empty()) return;
  root_ = absolute_normal(root).string();
  if (root_ == "/") root_.clear();  // every path is inside "/": nothing would stay absolute
}

std::string RootRelative::path(const std::string& p) const {
  const fs::path a = absolute_normal(p);
  if (root_.empty()) return a.string();
  const fs::path rel = a.lexically_relative(root_);
  if (rel.empty() || *rel.begin() == "..") return a.string();
  return rel == "." ? kRootToken : std::string(kRootToken) + "/" + rel.string();
}

std::string RootRelative::option(const std::string& o) const {
  if (o.size() > 2 && o.rfind("-I", 0) == 0) return "-I" + path(o.substr(2));
  return without_root(o);
}

std::string RootRelative::without_root(const std::string& text) const {
  if (root_.empty()) return text;
  return replace_all(text, root_ + "/", std::string(kRootToken) + "/");
}

std::string RootRelative::with_root(const std::string& text) const {
  if (root_.empty()) return text;
  return replace_all(text, std::string(kRootToken) + "/", root_ + "/");
}

}  // namespace hk
