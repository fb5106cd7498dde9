// The reference libraries of a run, built beside it. On an empty cache the libraries take tens of
// seconds to compile; the workers start, and every case whose reference is ready runs, while the
// rest are still being compiled. A case asks for its library and waits only for its own.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "model/manifest.h"
#include "refs/runtime_references.h"

namespace hk {

class ReferenceLibraries {
 public:
  ReferenceLibraries() = default;  // none yet: start() gives them
  // Starts building the libraries of the kernels' references (cached by content and sealed) on a
  // thread of its own. When any had to be compiled it prints a line once all are done, and each
  // note. opt.runtime_dir is index.runtime.
  static std::shared_ptr<ReferenceLibraries> start(const std::vector<const KernelSpec*>& kernels, const ReferenceIndex& index,
                                                   ReferenceBuildOptions opt);
  // The same for libraries that `build` makes: it gives each file's library (file_of: reference
  // name -> index of its file; notes: reference name -> a note its cases carry) to `ready` as
  // soon as it is ready, and starts no further work once `stop` is true (the libraries are being
  // destroyed). A file it never gives, or gives no more after throwing, gets a library that is
  // not ok, saying so: no case waits for ever.
  using Build = std::function<void(const LibraryReady& ready, const std::atomic<bool>& stop)>;
  static std::shared_ptr<ReferenceLibraries> start(std::map<std::string, size_t> file_of, std::map<std::string, std::string> notes,
                                                   Build build);
  ~ReferenceLibraries();  // starts no further compile and waits for those under way
  ReferenceLibraries(const ReferenceLibraries&) = delete;
  ReferenceLibraries& operator=(const ReferenceLibraries&) = delete;

  // Whether the library of `reference` is ready, or the run has none for it (get() then returns
  // at once).
  bool ready(const std::string& reference) const;
  // The library of `reference` (or its compiler message), waiting until it is built; null when
  // the run gathered no library for it. Carries the notes its cases get.
  const ReferenceLibrary* get(const std::string& reference) const;
  // While it lives, fn is called (from the building thread, holding the libraries' lock: fn must
  // take no lock of its own) each time a library becomes ready. Null libraries: nothing.
  class Listening {
   public:
    Listening(ReferenceLibraries* libs, std::function<void()> fn);
    ~Listening();
    Listening(const Listening&) = delete;
    Listening& operator=(const Listening&) = delete;

   private:
    ReferenceLibraries* libs_;
    size_t id_ = 0;
  };

 private:
  void run_build(const Build& build);
  void place(size_t file, const ReferenceLibrary& lib);

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::map<std::string, size_t> file_of_;             // reference name -> index of its file
  std::map<std::string, std::string> notes_;          // reference name -> a note for its cases
  std::map<std::string, ReferenceLibrary> built_;     // reference name -> library with its notes
  std::map<size_t, std::function<void()>> listeners_;
  size_t next_listener_ = 0;
  std::atomic<bool> stop_{false};
  std::thread builder_;
};

}  // namespace hk
