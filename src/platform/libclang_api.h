// libclang's C API, opened at run time: only a process that parses a kernel file with host code
// loads it (and the LLVM under it), and hkcheck still runs where it is absent. Each function is a
// pointer named as the API names it, so code in namespace hk calls it as written.
#pragma once

#include <clang-c/Index.h>

#define HK_LIBCLANG_FUNCTIONS(X)                                                                                          \
  X(clang_Cursor_isNull) X(clang_File_isEqual) X(clang_createIndex) X(clang_disposeIndex) X(clang_disposeString)           \
  X(clang_disposeTranslationUnit) X(clang_equalCursors) X(clang_getCString) X(clang_getCursorExtent) X(clang_getCursorKind) \
  X(clang_getCursorKindSpelling) X(clang_getCursorLocation) X(clang_getCursorReferenced) X(clang_getCursorSpelling)        \
  X(clang_getFile) X(clang_getFileLocation) X(clang_getFileName) X(clang_getIncludedFile) X(clang_getInclusions)            \
  X(clang_getLocationForOffset) X(clang_getNullCursor) X(clang_getNumOverloadedDecls) X(clang_getOverloadedDecl)           \
  X(clang_getRangeEnd) X(clang_getRangeStart) X(clang_getSpecializedCursorTemplate) X(clang_getTranslationUnitCursor)      \
  X(clang_isDeclaration) X(clang_parseTranslationUnit2) X(clang_visitChildren) X(clang_tokenize) X(clang_disposeTokens)     \
  X(clang_getTokenSpelling) X(clang_getTokenKind) X(clang_getTokenExtent) X(clang_getRange) X(clang_getSpellingLocation)  \
  X(clang_getCursorType) X(clang_isConstQualifiedType)

namespace hk {

#define HK_LIBCLANG_POINTER(name) inline decltype(&::name) name = nullptr;
HK_LIBCLANG_FUNCTIONS(HK_LIBCLANG_POINTER)
#undef HK_LIBCLANG_POINTER

// Opens libclang once (the library the build found, then other versions' sonames) and binds the
// functions above. Throws BackendUnavailable naming the candidates when none opens.
void load_libclang();

}  // namespace hk
