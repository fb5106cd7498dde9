#include "compile/device_part.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "platform/backend.h"
#include "compile/compile_attribution.h"
#include "compile/include_closure.h"
#include "platform/libclang_api.h"
#include "platform/backend_table.h"

namespace hk {
namespace {

// What nvcc and hipcc define before any header: the parse needs the attributes to tell device
// code from host code, and nothing else of the toolkit (its headers are not parsed: the device
// compiler reads them, and clang 14 cannot parse CUDA 13's).
constexpr const char* kParsePrelude = R"(#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
)";
constexpr const char* kPreludeDir = "/hk-device-part";

struct Str {
  CXString s;
  explicit Str(CXString x) : s(x) {}
  ~Str() { clang_disposeString(s); }
  std::string str() const {
    const char* c = clang_getCString(s);
    return c ? c : "";
  }
};

unsigned offset_of(CXSourceLocation loc, CXFile* file = nullptr) {
  unsigned off = 0;
  clang_getFileLocation(loc, file, nullptr, nullptr, &off);
  return off;
}

// One top-level declaration of the main file (inside namespaces and extern "C" blocks too).
struct Unit {
  CXCursor cursor;
  unsigned begin = 0, end = 0;
  bool device = false;  // a kernel, a __device__ function or variable
  bool kernel = false;  // a __global__ function
  bool keep = false;
};

struct Include {
  unsigned begin = 0, end = 0;
  std::string name;
  std::string file;  // the file it includes, "" when clang did not find it
  bool resolved = false;
  bool keep = false;
};

bool first_token_is(CXTranslationUnit tu, CXCursor c, const char* word) {
  CXToken* tokens = nullptr;
  unsigned n = 0;
  clang_tokenize(tu, clang_getCursorExtent(c), &tokens, &n);
  const bool is = n > 0 && Str(clang_getTokenSpelling(tu, tokens[0])).str() == word;
  clang_disposeTokens(tu, tokens, n);
  return is;
}

// What the parse exposes of a file-scope declaration it has no cursor kind for (a concept, a
// variable template, a deduction guide): an extern "C" block holds declarations; anything else
// is one declaration, always kept, never split apart.
bool is_container(CXTranslationUnit tu, CXCursor c) {
  const CXCursorKind k = clang_getCursorKind(c);
  return k == CXCursor_Namespace || k == CXCursor_LinkageSpec || (k == CXCursor_UnexposedDecl && first_token_is(tu, c, "extern"));
}

// Whether c carries attr, or (attr = CXCursor_FirstInvalid) any of the device attributes.
bool has_attribute(CXCursor c, CXCursorKind attr) {
  struct Search {
    CXCursorKind attr;
    bool found = false;
  } search{attr};
  clang_visitChildren(
      c,
      [](CXCursor ch, CXCursor, CXClientData d) {
        auto* s = static_cast<Search*>(d);
        const CXCursorKind k = clang_getCursorKind(ch);
        const bool device = k == CXCursor_CUDAGlobalAttr || k == CXCursor_CUDADeviceAttr || k == CXCursor_CUDAConstantAttr ||
                            k == CXCursor_CUDASharedAttr;
        if (s->attr == CXCursor_FirstInvalid ? device : k == s->attr) {
          s->found = true;
          return CXChildVisit_Break;
        }
        return CXChildVisit_Continue;
      },
      &search);
  return search.found;
}

class Extractor {
 public:
  Extractor(CXTranslationUnit tu, const std::string& path, bool hip)
      : tu_(tu), main_(clang_getFile(tu, path.c_str())), hip_(hip), main_dir_(canonical_path(std::filesystem::path(path).parent_path().string()) + "/") {}

  void collect(unsigned source_size) {
    collect_units(clang_getTranslationUnitCursor(tu_));
    std::sort(units_.begin(), units_.end(), [](const Unit& a, const Unit& b) { return a.begin < b.begin; });
    clang_getInclusions(tu_, &Extractor::on_inclusion, this);
    find_explicit_instantiations(source_size);
  }

  bool any_device() const {
    return std::any_of(units_.begin(), units_.end(), [](const Unit& u) { return u.device; });
  }

  // Whether every name of roots is a kernel that a header of the file declares.
  bool kernels_in_headers(const std::set<std::string>& roots) {
    if (roots.empty()) return false;
    if (!header_kernels_built_) {
      header_kernels_built_ = true;
      clang_visitChildren(
          clang_getTranslationUnitCursor(tu_),
          [](CXCursor c, CXCursor, CXClientData d) {
            auto* self = static_cast<Extractor*>(d);
            CXFile file = nullptr;
            offset_of(clang_getCursorLocation(c), &file);
            const CXCursorKind k = clang_getCursorKind(c);
            if (!file || clang_File_isEqual(file, self->main_)) return CXChildVisit_Continue;
            if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
            if ((k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate) && has_attribute(c, CXCursor_CUDAGlobalAttr))
              self->header_kernels_.insert(Str(clang_getCursorSpelling(c)).str());
            return CXChildVisit_Continue;
          },
          this);
    }
    return std::all_of(roots.begin(), roots.end(), [&](const std::string& r) { return header_kernels_.count(r) > 0; });
  }

  // Keeps the device units (with roots: only the kernels named there), the units at the offsets
  // of used (what a file that includes this one uses of it) and, transitively, every unit and
  // include they refer to.
  void close_over_references(const std::set<std::string>& roots, const UsedDeclarations& used) {
    std::deque<size_t> todo;
    const auto used_here = used.find(canonical_path(Str(clang_getFileName(main_)).str()));
    auto used_by_includer = [&](const Unit& u) {
      if (used_here == used.end()) return false;
      const auto at = used_here->second.lower_bound(u.begin);
      return at != used_here->second.end() && *at < u.end;
    };
    for (size_t i = 0; i < units_.size(); ++i) {
      const Unit& u = units_[i];
      const bool root = roots.empty() ? u.device : u.kernel && roots.count(Str(clang_getCursorSpelling(u.cursor)).str());
      if (root || always_kept(u.cursor) || used_by_includer(u)) units_[i].keep = true, todo.push_back(i);
    }
    // A kernel the file only includes (from its _kernel.cuh, as samples keep them): the include it
    // comes through is kept, and the file's host code around it is dropped.
    std::set<std::string> elsewhere = roots;
    for (const Unit& u : units_)
      if (u.kernel) elsewhere.erase(Str(clang_getCursorSpelling(u.cursor)).str());
    if (!elsewhere.empty()) keep_headers_named_in(elsewhere);
    // What the includer uses of a header this one includes keeps that include.
    for (const auto& [file, offsets] : used)
      if (CXFile f = clang_getFile(tu_, file.c_str()); f && !clang_File_isEqual(f, main_)) keep_include_of(f);
    // A specialization is used through its primary template: it is kept with it.
    std::multimap<size_t, size_t> specializations;
    for (size_t i = 0; i < units_.size(); ++i) {
      const CXCursor primary = clang_getSpecializedCursorTemplate(units_[i].cursor);
      CXFile file = nullptr;
      if (clang_Cursor_isNull(primary)) continue;
      const unsigned off = offset_of(clang_getCursorLocation(primary), &file);
      if (const Unit* p = file && clang_File_isEqual(file, main_) ? unit_at(off) : nullptr) specializations.emplace(p - units_.data(), i);
    }
    while (!todo.empty()) {
      const size_t i = todo.front();
      todo.pop_front();
      for (auto [s, e] = specializations.equal_range(i); s != e; ++s)
        if (!units_[s->second].keep) units_[s->second].keep = true, todo.push_back(s->second);
      refs_.clear();
      clang_visitChildren(units_[i].cursor, &Extractor::on_descendant, this);
      note_macro_uses(units_[i]);
      for (const CXCursor& r : refs_) {
        CXFile file = nullptr;
        const unsigned off = offset_of(clang_getCursorLocation(r), &file);
        if (!file) continue;
        if (clang_File_isEqual(file, main_)) {
          if (Unit* u = unit_at(off); u && !u->keep) u->keep = true, todo.push_back(static_cast<size_t>(u - units_.data()));
        } else {
          keep_include_of(file);
          used_elsewhere_[canonical_path(Str(clang_getFileName(file)).str())].insert(off);
        }
      }
      const std::set<std::string> names = names_spelled_in(units_[i]);
      for (size_t t : declarations_named_in(names))
        if (!units_[t].keep) units_[t].keep = true, todo.push_back(t);
      keep_headers_named_in(names);
    }
    // An include clang did not find is the device compiler's to find. The HIP runtime's headers
    // are the device compiler's own even where clang finds a copy (/usr/include/hip): what they
    // give may not appear as a reference in the parse (hipBlockIdx_x, under another platform macro).
    for (Include& inc : includes_)
      if ((!inc.resolved || inc.name.rfind("hip/", 0) == 0) && !host_only_header(inc.name)) inc.keep = true;
  }

  // Using-directives, using-declarations and namespace aliases stay unless what they name comes
  // from a dropped header: a kernel's use of a name refers to its declaration, not to them.
  void keep_namespace_uses() {
    for (Unit& u : units_) {
      const CXCursorKind k = clang_getCursorKind(u.cursor);
      if (u.keep || (k != CXCursor_UsingDirective && k != CXCursor_NamespaceAlias && k != CXCursor_UsingDeclaration)) continue;
      // What it names: the namespace, or for a using-declaration ("using ns::f;") the declaration.
      CXCursor ns = clang_getNullCursor();
      clang_visitChildren(
          u.cursor,
          [](CXCursor ch, CXCursor, CXClientData d) {
            const CXCursorKind ck = clang_getCursorKind(ch);
            const CXCursor r = ck == CXCursor_OverloadedDeclRef ? clang_getOverloadedDecl(ch, 0) : clang_getCursorReferenced(ch);
            if (!clang_Cursor_isNull(r)) *static_cast<CXCursor*>(d) = r;  // the last part of ns::f
            return CXChildVisit_Continue;
          },
          &ns);
      CXFile file = nullptr;
      if (!clang_Cursor_isNull(ns)) offset_of(clang_getCursorLocation(ns), &file);
      const Include* from = file ? include_of(file) : nullptr;
      u.keep = !file || clang_File_isEqual(file, main_) || (from && from->keep) || Str(clang_getCursorSpelling(ns)).str() == "std";
    }
  }

  // The text with the dropped units and includes blanked; lines stay where they were. whole:
  // blank what is dropped even in a file without host functions (a part for some kernels only).
  DevicePart blank(const std::string& source, bool whole) const {
    DevicePart out;
    out.source = source;
    std::vector<std::pair<unsigned, unsigned>> kept;
    for (const Unit& u : units_)
      if (u.keep) kept.emplace_back(u.begin, u.end);
    auto overlaps_kept = [&](unsigned b, unsigned e) {
      return std::any_of(kept.begin(), kept.end(), [&](const auto& k) { return b < k.second && k.first < e; });
    };
    bool host_code = false;
    for (const Instantiation& x : instantiations_) {
      if (instantiates(x, true) || !instantiates(x, false)) continue;
      blank_range(out.source, x.begin, x.end);
      out.dropped.push_back(fmt::format("explicit instantiation (line {})", line_of(x.begin)));
    }
    for (const Unit& u : units_) {
      if (u.keep || overlaps_kept(u.begin, u.end)) continue;
      const CXCursorKind k = clang_getCursorKind(u.cursor);
      host_code |= k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate;
      blank_range(out.source, u.begin, u.end);
      out.dropped.push_back(describe(u));
    }
    for (const Include& inc : includes_) {
      if (inc.keep) {
        if (!inc.resolved) out.missing_headers.push_back(inc.name);
        else out.kept_includes.push_back({inc.begin, inc.end, line_of(inc.begin), inc.name, inc.file});
        continue;
      }
      blank_range(out.source, inc.begin, inc.end);
      out.dropped.push_back(fmt::format("#include <{}> (line {})", inc.name, line_of(inc.begin)));
      for (const std::string& h : device_headers_of(inc.name, hip_)) out.device_headers.insert(h);
    }
    // A file without host functions is compiled as it is, as before (a global the parse could not
    // make sense of, e.g. under a macro the compile defines per case, is no reason to split it).
    out.used_elsewhere = used_elsewhere_;
    for (const auto& [file, in] : directive_of_) out.reached_files.push_back(file);
    if (!host_code && !whole) {
      DevicePart as_written{source, {}, out.missing_headers, out.kept_includes, {}, used_elsewhere_, {}};
      as_written.reached_files = out.reached_files;
      return as_written;
    }
    return out;
  }

 private:
  // The file's declarations among names (names_spelled_in: u's tokens and those of the file's macros u expands). A
  // kernel whose body the parse cannot make sense of (a library's types it could not resolve, a
  // call on cub's) refers to nothing, yet the names it spells are what it uses: a type, an
  // alias, a class template or a constant of the file is kept by its name. Never a function or a
  // mutable variable: keeping host code by a name would put it into the compile.
  std::vector<size_t> declarations_named_in(const std::set<std::string>& names) {
    static const std::set<CXCursorKind> kTypes = {CXCursor_StructDecl,   CXCursor_ClassDecl,   CXCursor_UnionDecl,
                                                  CXCursor_EnumDecl,     CXCursor_ClassTemplate, CXCursor_TypedefDecl,
                                                  CXCursor_TypeAliasDecl, CXCursor_TypeAliasTemplateDecl,
                                                  CXCursor_ClassTemplatePartialSpecialization};
    std::map<std::string, std::vector<size_t>> decls;
    for (size_t t = 0; t < units_.size(); ++t) {
      const CXCursor c = units_[t].cursor;
      const CXCursorKind k = clang_getCursorKind(c);
      const bool constant = k == CXCursor_VarDecl && clang_isConstQualifiedType(clang_getCursorType(c));
      if (!units_[t].keep && (kTypes.count(k) || constant)) decls[Str(clang_getCursorSpelling(c)).str()].push_back(t);
    }
    std::vector<size_t> named;
    if (decls.empty()) return named;
    for (const std::string& name : names)
      if (const auto it = decls.find(name); it != decls.end()) named.insert(named.end(), it->second.begin(), it->second.end());
    return named;
  }

  // A kept unit whose names (names_spelled_in) hold one a header declares (a helper its unresolved call names:
  // 8_wave.cu's load_st_to_rt from ./utils.cpp, layernorm's rocrand_init from <rocrand_kernel.h>)
  // keeps the include it came through. A header of the file's folder is split later
  // (device_part_headers.h), so its host code never comes with it; a library's header is kept by
  // a name only when neither it nor the include it came through includes a host-only header (a
  // library's Python bindings, pyutils.cuh with <pybind11/pybind11.h>, stay out).
  void keep_headers_named_in(const std::set<std::string>& names) {
    if (!header_names_built_) build_header_names();
    if (header_names_.empty()) return;
    for (const std::string& name : names) {
      const auto it = header_names_.find(name);
      if (it == header_names_.end()) continue;
      for (CXFile f : it->second) {
        const Include* inc = include_of(f);
        if (!inc || inc->keep) continue;
        const std::string file = canonical_path(Str(clang_getFileName(f)).str());
        if (file.rfind(main_dir_, 0) == 0 || (!includes_host_only(file) && !includes_host_only(inc->file))) keep_include_of(f);
      }
    }
  }

  // Whether the header's text includes a host-only header (host_only_header), every #if branch alike.
  static bool includes_host_only(const std::string& file) {
    const std::vector<std::string> names = included_names(file);
    return std::any_of(names.begin(), names.end(), [](const std::string& n) { return host_only_header(n); });
  }

  void build_header_names() {
    header_names_built_ = true;
    std::deque<CXCursor> scopes = {clang_getTranslationUnitCursor(tu_)};
    while (!scopes.empty()) {
      const CXCursor scope = scopes.front();
      scopes.pop_front();
      struct Walk {
        Extractor* self;
        std::deque<CXCursor>* scopes;
      } walk{this, &scopes};
      clang_visitChildren(
          scope,
          [](CXCursor c, CXCursor, CXClientData d) {
            auto* w = static_cast<Walk*>(d);
            CXFile file = nullptr;
            offset_of(clang_getCursorLocation(c), &file);
            if (!file || clang_File_isEqual(file, w->self->main_)) return CXChildVisit_Continue;
            const CXCursorKind k = clang_getCursorKind(c);
            if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec) {
              w->scopes->push_back(c);
            } else if (clang_isDeclaration(k)) {
              w->self->header_names_[Str(clang_getCursorSpelling(c)).str()].push_back(file);
            }
            return CXChildVisit_Continue;
          },
          &walk);
    }
  }

  // The identifiers of u's text, and of the definitions of the file's macros it expands, theirs
  // in turn (NUM_THREADS expands NUM_WORKERS).
  std::set<std::string> names_spelled_in(const Unit& u) {
    // The unit's bytes of this file: a cursor's own extent starts where a macro (__global__) was
    // defined, in another file, and tokenizes to nothing.
    std::set<std::string> names =
        identifiers_in(clang_getRange(clang_getLocationForOffset(tu_, main_, u.begin), clang_getLocationForOffset(tu_, main_, u.end)));
    std::deque<std::string> macros(names.begin(), names.end());
    std::set<std::string> expanded;
    while (!macros.empty()) {
      const std::string m = macros.front();
      macros.pop_front();
      const auto def = macro_definitions_.find(m);
      if (def == macro_definitions_.end() || !expanded.insert(m).second) continue;
      for (const std::string& n : identifiers_in(def->second))
        if (names.insert(n).second) macros.push_back(n);
    }
    return names;
  }

  std::set<std::string> identifiers_in(CXSourceRange range) {
    std::set<std::string> names;
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(tu_, range, &tokens, &n);
    for (unsigned k = 0; k < n; ++k)
      if (clang_getTokenKind(tokens[k]) == CXToken_Identifier) names.insert(Str(clang_getTokenSpelling(tu_, tokens[k])).str());
    clang_disposeTokens(tu_, tokens, n);
    return names;
  }

  // libclang exposes no cursor for an explicit instantiation ("template void f<int>(int*);"):
  // its tokens outside every declaration are, up to the ';', with the names they use.
  struct Instantiation {
    unsigned begin = 0, end = 0;
    std::set<std::string> names;
  };

  void find_explicit_instantiations(unsigned source_size) {
    CXToken* tokens = nullptr;
    unsigned n = 0;
    const CXSourceRange all = clang_getRange(clang_getLocationForOffset(tu_, main_, 0), clang_getLocationForOffset(tu_, main_, source_size));
    clang_tokenize(tu_, all, &tokens, &n);
    auto spelling = [&](unsigned i) { return Str(clang_getTokenSpelling(tu_, tokens[i])).str(); };
    auto offset = [&](unsigned i, bool end) {
      const CXSourceRange r = clang_getTokenExtent(tu_, tokens[i]);
      return offset_of(end ? clang_getRangeEnd(r) : clang_getRangeStart(r));
    };
    for (unsigned i = 0; i + 1 < n; ++i) {
      if (clang_getTokenKind(tokens[i]) != CXToken_Keyword || spelling(i) != "template" || spelling(i + 1) == "<") continue;
      const unsigned at = offset(i, false);
      if (unit_at(at)) continue;
      Instantiation x;
      x.begin = (i > 0 && spelling(i - 1) == "extern") ? offset(i - 1, false) : at;
      unsigned j = i + 1;
      for (; j < n && spelling(j) != ";"; ++j)
        if (clang_getTokenKind(tokens[j]) == CXToken_Identifier) x.names.insert(spelling(j));
      if (j == n) break;
      x.end = offset(j, true);
      instantiations_.push_back(std::move(x));
      i = j;
    }
    clang_disposeTokens(tu_, tokens, n);
  }

  // Whether x instantiates a template of the file that is kept (kept = true) or dropped.
  bool instantiates(const Instantiation& x, bool kept) const {
    return std::any_of(units_.begin(), units_.end(), [&](const Unit& u) {
      const CXCursorKind k = clang_getCursorKind(u.cursor);
      return u.keep == kept && (k == CXCursor_FunctionTemplate || k == CXCursor_ClassTemplate) &&
             x.names.count(Str(clang_getCursorSpelling(u.cursor)).str());
    });
  }

  void collect_units(CXCursor parent) {
    clang_visitChildren(
        parent,
        [](CXCursor c, CXCursor, CXClientData d) {
          auto* self = static_cast<Extractor*>(d);
          CXFile file = nullptr;
          const unsigned off = offset_of(clang_getCursorLocation(c), &file);
          if (!file || !clang_File_isEqual(file, self->main_)) return CXChildVisit_Continue;
          const CXCursorKind k = clang_getCursorKind(c);
          if (k == CXCursor_InclusionDirective) {
            CXSourceRange r = clang_getCursorExtent(c);
            const CXFile included = clang_getIncludedFile(c);
            self->includes_.push_back({off, offset_of(clang_getRangeEnd(r)), Str(clang_getCursorSpelling(c)).str(),
                                       included ? Str(clang_getFileName(included)).str() : "", included != nullptr, false});
          } else if (k == CXCursor_MacroExpansion) {
            self->macro_uses_.emplace_back(off, c);
          } else if (k == CXCursor_MacroDefinition) {
            self->macro_definitions_[Str(clang_getCursorSpelling(c)).str()] = clang_getCursorExtent(c);
          } else if (is_container(self->tu_, c)) {
            const size_t before = self->units_.size();
            self->collect_units(c);
            // extern "C" void f() {...}: a linkage without braces holds one declaration, and
            // blanking the declaration blanks the linkage with it (else `extern "C"` stays behind).
            const CXSourceRange r = clang_getCursorExtent(c);
            if (self->units_.size() == before + 1 && self->units_.back().end == offset_of(clang_getRangeEnd(r)))
              self->units_.back().begin = offset_of(clang_getRangeStart(r));
          } else if (clang_isDeclaration(k)) {
            CXSourceRange r = clang_getCursorExtent(c);
            self->units_.push_back({c, offset_of(clang_getRangeStart(r)), offset_of(clang_getRangeEnd(r)),
                                    has_attribute(c, CXCursor_FirstInvalid), has_attribute(c, CXCursor_CUDAGlobalAttr), false});
          }
          return CXChildVisit_Continue;
        },
        this);
  }

  // A concept is an UnexposedDecl to libclang 14 and a kind of its own to later ones, which these
  // headers may not name: the library loaded at run time may be either, so it is asked by name.
  static bool always_kept(CXCursor c) {
    const CXCursorKind k = clang_getCursorKind(c);
    return k == CXCursor_StaticAssert || k == CXCursor_UnexposedDecl || Str(clang_getCursorKindSpelling(k)).str() == "ConceptDecl";
  }

  static CXChildVisitResult on_descendant(CXCursor c, CXCursor, CXClientData d) {
    auto* self = static_cast<Extractor*>(d);
    if (clang_getCursorKind(c) == CXCursor_OverloadedDeclRef) {
      for (unsigned i = 0, n = clang_getNumOverloadedDecls(c); i < n; ++i) self->refs_.push_back(clang_getOverloadedDecl(c, i));
    } else {
      // A namespace is opened in many headers, and the parse names whichever it saw last (a
      // library's Python bindings reopen kittens::): naming it needs none of them in particular.
      const CXCursor r = clang_getCursorReferenced(c);
      if (!clang_Cursor_isNull(r) && !clang_equalCursors(r, c) && clang_getCursorKind(r) != CXCursor_Namespace) self->refs_.push_back(r);
    }
    return CXChildVisit_Recurse;
  }

  // A macro of a header used inside a kept unit keeps that header's include.
  void note_macro_uses(const Unit& u) {
    for (const auto& [off, use] : macro_uses_) {
      if (off < u.begin || off >= u.end) continue;
      const CXCursor def = clang_getCursorReferenced(use);
      CXFile file = nullptr;
      if (!clang_Cursor_isNull(def)) offset_of(clang_getCursorLocation(def), &file);
      if (file && !clang_File_isEqual(file, main_)) keep_include_of(file);
    }
  }

  static void on_inclusion(CXFile included, CXSourceLocation* stack, unsigned depth, CXClientData d) {
    auto* self = static_cast<Extractor*>(d);
    if (depth == 0) return;  // the main file itself
    Inclusion& in = self->directive_of_[Str(clang_getFileName(included)).str()];
    in.offset = offset_of(stack[depth - 1]);
    in.chain = {Str(clang_getFileName(included)).str()};
    for (unsigned k = 0; k + 1 < depth; ++k) {
      CXFile f = nullptr;
      offset_of(stack[k], &f);
      if (f) in.chain.push_back(Str(clang_getFileName(f)).str());
    }
  }

  // The main file's include that brings file in: one that names a file of its inclusion chain
  // itself (a header included twice, guarded, counts for the directive that names it, not for
  // another header that happened to include it first), else the one it came in through.
  const Include* include_of(CXFile file) const {
    const auto it = directive_of_.find(Str(clang_getFileName(file)).str());
    if (it == directive_of_.end()) return nullptr;
    for (const std::string& f : it->second.chain)
      for (const Include& inc : includes_)
        if (inc.resolved && inc.file == f) return &inc;
    for (const Include& inc : includes_)
      if (it->second.offset >= inc.begin && it->second.offset < inc.end + 1) return &inc;
    return nullptr;
  }

  void keep_include_of(CXFile file) {
    if (const Include* inc = include_of(file)) const_cast<Include*>(inc)->keep = true;
  }

  // Units do not nest; two declarators of one declaration may overlap, so look at a few before.
  Unit* unit_at(unsigned off) {
    auto it = std::upper_bound(units_.begin(), units_.end(), off, [](unsigned o, const Unit& u) { return o < u.begin; });
    for (int back = 0; back < 4 && it != units_.begin(); ++back) {
      --it;
      if (off >= it->begin && off < it->end) return &*it;
    }
    return nullptr;
  }

  unsigned line_of(unsigned off) const {
    unsigned line = 0;
    clang_getFileLocation(clang_getLocationForOffset(tu_, main_, off), nullptr, &line, nullptr, nullptr);
    return line;
  }

  std::string describe(const Unit& u) const {
    const std::string kind = Str(clang_getCursorKindSpelling(clang_getCursorKind(u.cursor))).str();
    return fmt::format("{} {} (line {})", kind, Str(clang_getCursorSpelling(u.cursor)).str(), line_of(u.begin));
  }

  static void blank_range(std::string& text, unsigned b, unsigned e) {
    for (unsigned i = b; i < e && i < text.size(); ++i)
      if (text[i] != '\n') text[i] = ' ';
  }

  CXTranslationUnit tu_;
  CXFile main_;
  bool hip_;
  std::string main_dir_;  // the file's folder, canonical, with a trailing slash
  std::vector<Unit> units_;
  std::vector<Include> includes_;
  std::vector<std::pair<unsigned, CXCursor>> macro_uses_;
  std::map<std::string, CXSourceRange> macro_definitions_;  // the file's own, by name
  std::map<std::string, std::vector<CXFile>> header_names_;  // file-scope names of the headers, by name
  bool header_names_built_ = false;
  struct Inclusion {
    unsigned offset = 0;             // of the main file's directive it came in through
    std::vector<std::string> chain;  // the file, the file that included it, ... up to one the main file includes
  };
  std::map<std::string, Inclusion> directive_of_;  // by included file
  std::vector<CXCursor> refs_;
  std::vector<Instantiation> instantiations_;
  UsedDeclarations used_elsewhere_;
  std::set<std::string> header_kernels_;  // kernels the file's headers declare (kernels_in_headers)
  bool header_kernels_built_ = false;
};

// The options of the compile that shape the parse: macros, include folders, the language standard.
std::vector<std::string> parse_options(const std::vector<std::string>& options) {
  std::vector<std::string> out;
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    const bool separate = o == "-I" || o == "-isystem" || o == "-iquote" || o == "-D" || o == "-U";
    if (separate && i + 1 < options.size()) {
      out.push_back(o);
      out.push_back(options[++i]);
    } else if (o.rfind("-D", 0) == 0 || o.rfind("-U", 0) == 0 || o.rfind("-I", 0) == 0 || o.rfind("-std=", 0) == 0) {
      out.push_back(o.rfind("-std=", 0) == 0 && o.find("++2") == std::string::npos && o.find("++1") == std::string::npos ? "-std=c++17" : o);
    }
  }
  return out;
}

}  // namespace

DevicePart device_part(const std::string& source, const std::string& path, const std::vector<std::string>& options, bool hip,
                       const std::vector<std::string>& roots, const UsedDeclarations& used, const std::vector<IncluderText>& context) {
  load_libclang();
  const BackendRow& row = backend_row(hip ? BackendId::hip : BackendId::cuda);
  std::vector<std::string> args = {"-x", row.clang_language, "--cuda-device-only", hip ? "-nogpuinc" : "-nocudainc",
                                   hip ? "-nogpulib" : "-nocudalib", hip ? "--offload-arch=gfx90a" : "--cuda-gpu-arch=sm_80",
                                   "-std=c++17", "-w", "-ferror-limit=0", "-I", kPreludeDir, "-include",
                                   std::string(kPreludeDir) + "/hk_device_part.h",
                                   // hkcheck.h's own dialect, as the device compiler of that vendor sees it
                                   fmt::format("-D{}=1", row.macro)};
  // The run-time compiler's macro as the compile will see it: hipRTC 7.2 leaves __HIPCC_RTC__
  // undefined in its no-builtin-header mode (and defining it there breaks the real HIP headers),
  // so code under #ifndef __HIPCC_RTC__ is compiled there, and is parsed here as such.
  // nvcc includes <cuda_runtime.h> into every file, so code under #ifdef __DRIVER_TYPES_H__ (a
  // helper of cuda-samples taking a cudaError_t) is live there, and under NVRTC where the file
  // includes it: parsed as live, its host functions are found and left out.
  if (!hip) args.insert(args.end(), {"-D__CUDACC_RTC__", "-D__DRIVER_TYPES_H__"});
  else if (std::find(options.begin(), options.end(), "--hiprtc-no-builtin-header") == options.end()) args.push_back("-D__HIPCC_RTC__");
  if (!context.empty()) args.insert(args.end(), {"-include", context.back().path});
  for (std::string& o : parse_options(options)) args.push_back(std::move(o));
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  // The file from memory (as read for the compile), the attribute prelude, and hkcheck's own
  // dialect headers, so a file written in that dialect is understood too.
  std::vector<std::pair<std::string, std::string>> files = {{path, source}, {std::string(kPreludeDir) + "/hk_device_part.h", kParsePrelude}};
  for (const auto& [name, text] : prelude_headers(row.prelude))
    if (name.rfind("hk", 0) == 0) files.emplace_back(std::string(kPreludeDir) + "/" + name, text);
  for (const IncluderText& c : context) files.emplace_back(c.path, c.text);
  std::vector<CXUnsavedFile> unsaved;
  for (const auto& [name, text] : files) unsaved.push_back({name.c_str(), text.data(), static_cast<unsigned long>(text.size())});

  std::unique_ptr<void, decltype(clang_disposeIndex)> index(clang_createIndex(0, 0), clang_disposeIndex);
  CXTranslationUnit tu = nullptr;
  const CXErrorCode rc = clang_parseTranslationUnit2(
      index.get(), path.c_str(), argv.data(), static_cast<int>(argv.size()), unsaved.data(), static_cast<unsigned>(unsaved.size()),
      CXTranslationUnit_KeepGoing | CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_Incomplete, &tu);
  if (rc != CXError_Success || !tu) throw std::runtime_error(fmt::format("clang could not parse {} (libclang error {})", path, static_cast<int>(rc)));
  std::unique_ptr<CXTranslationUnitImpl, decltype(clang_disposeTranslationUnit)> owned(tu, clang_disposeTranslationUnit);
  Extractor x(tu, path, hip);
  x.collect(static_cast<unsigned>(source.size()));
  std::set<std::string> root_names;
  for (const std::string& r : roots) root_names.insert(entry_function(r));
  // Nothing recognisably device code, and no kernel of its headers asked for: leave the file to the compiler.
  if (!x.any_device() && used.empty() && !x.kernels_in_headers(root_names)) return DevicePart{source, {}, {}, {}};
  x.close_over_references(root_names, used);
  x.keep_namespace_uses();
  return x.blank(source, !roots.empty());
}

}  // namespace hk
