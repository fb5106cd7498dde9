# Writes OUT, a source file defining hk::git_commit(), at every build; the file changes (and so
# recompiles) only when the commit does. COMMIT, when given, is used as is (a copy of the tree
# without .git, e.g. on a test machine); else git is asked, with "-dirty" for local changes.
if(NOT COMMIT)
  execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC_DIR}
    OUTPUT_VARIABLE COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC_DIR}
    OUTPUT_VARIABLE DIRTY OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(COMMIT AND DIRTY)
    string(APPEND COMMIT "-dirty")
  endif()
endif()
if(NOT COMMIT)
  set(COMMIT unknown)
endif()
file(WRITE "${OUT}.tmp" "// Generated at build time by cmake/git_commit.cmake.\n#include \"run/git_commit.h\"\n\nconst char* hk::git_commit() { return \"${COMMIT}\"; }\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
