#include "model/manifest_compile.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

#include "model/allowed_options.h"
#include "model/case_plan.h"
#include "model/compile_target.h"
#include "model/manifest_read.h"

namespace hk {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using manifest_read::fail;
using manifest_read::kind_of;

// Options whose argument may be the next string, and what that argument names: a folder or a
// file is resolved against the manifest's folder, as include_dirs are.
enum class ArgKind { text, folder, file };
struct ArgOption {
  const char* name;
  ArgKind kind;
};
constexpr ArgOption kArgOptions[] = {{"-I", ArgKind::folder},       {"-isystem", ArgKind::folder}, {"-idirafter", ArgKind::folder},
                                     {"-iquote", ArgKind::folder},  {"-include", ArgKind::file},   {"-imacros", ArgKind::file},
                                     {"-Xclang", ArgKind::text},    {"-mllvm", ArgKind::text}};

std::string arg_option_names() {
  std::string names;
  for (const ArgOption& o : kArgOptions) names += (names.empty() ? "" : ", ") + std::string(o.name);
  return names;
}

const char* kSectionKeys = "\"all\", a vendor (cuda, hip), a compiler (nvrtc, hiprtc, host) or a target (sm_90, gfx942, ...)";

void check_section_key(const std::string& key, const std::string& path) {
  if (!section_kind(key)) fail(path, "not a section: a section's key is " + std::string(kSectionKeys));
}

// The argument of option o: a relative folder must exist under the manifest's folder and is made
// absolute; a relative file is taken from there when it is there, else left for the compiler to
// find on its include path ("-include", "cuda_fp16.h"). Absolute paths are passed as written.
std::string option_argument(const ArgOption& o, const std::string& arg, const std::string& path, const std::string& file) {
  if (o.kind == ArgKind::text || fs::path(arg).is_absolute()) return arg;
  fs::path here = (fs::path(file).parent_path() / arg).lexically_normal();
  if (!here.has_filename()) here = here.parent_path();  // "inc/" -> "inc"
  std::error_code ec;
  if (o.kind == ArgKind::folder) {
    if (!fs::is_directory(here, ec))
      fail(path, fmt::format("{} {}: not a folder: {}{}", o.name, arg.substr(0, 256), here.string().substr(0, 1024), ec ? " (" + ec.message() + ")" : ""));
    return fs::absolute(here, ec).string();
  }
  return fs::is_regular_file(here, ec) ? fs::absolute(here, ec).string() : arg;
}

// One list of options: each starts with '-', except the argument that follows one of kArgOptions.
std::vector<std::string> read_options(const json& a, const std::string& path, const std::string& file) {
  if (!a.is_array()) fail(path, fmt::format("expected an array of compiler options, got {}", kind_of(a)));
  std::vector<std::string> out;
  const ArgOption* pending = nullptr;  // the option whose argument comes next
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string at = fmt::format("{}/{}", path, i);
    if (!a[i].is_string() || a[i].get<std::string>().empty()) fail(at, "expected a non-empty string");
    const std::string token = a[i].get<std::string>();
    if (pending) {
      out.push_back(option_argument(*pending, token, at, file));
      pending = nullptr;
      continue;
    }
    if (token[0] != '-')
      fail(at, fmt::format("'{}' is not a compiler option (options start with '-'); a separate argument may follow only {}",
                           token.substr(0, 256), arg_option_names()));
    const auto o = std::find_if(std::begin(kArgOptions), std::end(kArgOptions), [&](const ArgOption& x) { return token == x.name; });
    if (o != std::end(kArgOptions)) pending = o;
    out.push_back(token);
  }
  if (pending) fail(fmt::format("{}/{}", path, a.size() - 1), fmt::format("{} needs an argument: the next string", pending->name));
  // Refused before any compiler sees it; each compile checks again against its own compiler.
  if (const auto refused = refused_option(out, "")) fail(fmt::format("{}/{}", path, refused->index), refused->message);
  return out;
}

void read_define(const std::string& name, const json& v, const std::string& path, std::map<std::string, std::string>& out) {
  if (!manifest_read::is_identifier(name)) fail(path, "not a valid macro name");
  if (out.count(name)) fail(path, "defined twice for all targets: at the top of \"defines\" and in its \"all\" section");
  if (v.is_string()) out[name] = v.get<std::string>();
  else if (v.is_number()) out[name] = param_to_string(v.get<double>());
  else fail(path, "expected a string or a number");
}

// "defines": {"NAME": value, ..., "KEY": {"NAME": value}}: a member whose value is an object is
// the section for KEY; the others apply everywhere, as the "all" section's do.
void read_defines(const json& d, const std::string& path, std::map<std::string, CompileSection>& sections) {
  if (!d.is_object()) fail(path, "expected an object: NAME -> value, or a section " + std::string(kSectionKeys) + " -> {NAME: value}");
  for (auto it = d.begin(); it != d.end(); ++it) {
    const std::string at = path + "/" + it.key().substr(0, manifest_read::kMaxNameLength);
    if (!it->is_object()) {
      read_define(it.key(), *it, at, sections["all"].defines);
      continue;
    }
    check_section_key(it.key(), at);
    CompileSection& s = sections[it.key()];
    for (auto m = it->begin(); m != it->end(); ++m)
      read_define(m.key(), *m, at + "/" + m.key().substr(0, manifest_read::kMaxNameLength), s.defines);
  }
}

std::vector<std::string> read_include_dirs(const json& v, const std::string& path, const std::string& file) {
  std::vector<std::string> out;
  if (!v.is_array()) fail(path, "expected an array of strings");
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string at = fmt::format("{}/{}", path, i);
    if (!v[i].is_string() || v[i].get<std::string>().empty()) fail(at, "expected a non-empty string");
    const fs::path dir = (fs::path(file).parent_path() / v[i].get<std::string>()).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) fail(at, "not a folder: " + dir.string().substr(0, 1024) + (ec ? " (" + ec.message() + ")" : ""));
    out.push_back(fs::absolute(dir, ec).string());
  }
  return out;
}

}  // namespace

void read_compile_settings(const json& v, const std::string& path, const std::string& file, KernelSpec& k) {
  if (v.contains("include_dirs")) k.include_dirs = read_include_dirs(v["include_dirs"], path + "/include_dirs", file);
  std::map<std::string, CompileSection> sections;
  if (v.contains("defines")) read_defines(v["defines"], path + "/defines", sections);
  if (v.contains("options")) {
    const json& o = v["options"];
    if (o.is_object()) {
      for (auto it = o.begin(); it != o.end(); ++it) {
        check_section_key(it.key(), path + "/options/" + it.key().substr(0, manifest_read::kMaxNameLength));
        sections[it.key()].options = read_options(*it, path + "/options/" + it.key(), file);
      }
    } else if (o.is_array()) {
      sections["all"].options = read_options(o, path + "/options", file);
    } else {
      fail(path + "/options", fmt::format("expected an array of compiler options, or an object of them per section {}; got {}",
                                          kSectionKeys, kind_of(o)));
    }
  }
  k.compile_sections.clear();
  if (const auto all = sections.find("all"); all != sections.end()) {
    k.defines = all->second.defines;
    k.compile_options = all->second.options;
  }
  for (auto& [key, s] : sections) {
    s.key = key;
    k.compile_sections.insert(key == "all" ? k.compile_sections.begin() : k.compile_sections.end(), s);
  }
}

void check_section_defines(const KernelSpec& k) {
  for (const CompileSection& s : k.compile_sections) {
    if (s.key == "all") continue;
    for (const auto& [name, value] : s.defines) {
      const std::string path = k.json_path + "/defines/" + s.key + "/" + name;
      for (const CaseSpec& c : k.cases) {
        try {
          substitute_params(value, c.params, path);
        } catch (const PlanError& e) {
          fail(e.path, fmt::format("case '{}': {}", c.name, e.what()));
        }
      }
    }
  }
}

}  // namespace hk
