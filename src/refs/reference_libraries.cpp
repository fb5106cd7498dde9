#include "refs/reference_libraries.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

namespace hk {
namespace {

// Builds the files' libraries, giving each to `ready` as it is done, and prints a line when any
// had to be compiled, and each note.
void build_and_report(const std::vector<std::string>& files, const ReferenceBuildOptions& opt, const LibraryReady& ready) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<ReferenceLibrary> libs = build_reference_libraries(files, opt, ready);
  int built = 0;
  std::set<std::string> said;
  for (const ReferenceLibrary& l : libs) {
    built += !l.cached;
    for (const std::string& n : l.notes)
      if (said.insert(n).second) fmt::print(stderr, "hkcheck: note: {}\n", n);
  }
  if (built)
    fmt::print(stderr, "hkcheck: compiled {} reference file(s) of {} in {:.1f} s, beside the cases\n", built, files.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace

std::shared_ptr<ReferenceLibraries> ReferenceLibraries::start(const std::vector<const KernelSpec*>& kernels, const ReferenceIndex& index,
                                                              ReferenceBuildOptions opt) {
  std::vector<std::string> files;
  std::map<std::string, size_t> file_of;
  for (const KernelSpec* k : kernels) {
    const auto it = index.file_of.find(k->reference);
    if (it == index.file_of.end()) continue;
    const size_t i = std::find(files.begin(), files.end(), it->second) - files.begin();
    if (i == files.size()) files.push_back(it->second);
    file_of[k->reference] = i;
  }
  opt.runtime_dir = index.runtime;
  return start(std::move(file_of), index.notes, [files, opt](const LibraryReady& ready, const std::atomic<bool>& stop) mutable {
    opt.stop = &stop;
    build_and_report(files, opt, ready);
  });
}

std::shared_ptr<ReferenceLibraries> ReferenceLibraries::start(std::map<std::string, size_t> file_of, std::map<std::string, std::string> notes,
                                                              Build build) {
  auto libs = std::make_shared<ReferenceLibraries>();
  libs->file_of_ = std::move(file_of);
  libs->notes_ = std::move(notes);
  libs->builder_ = std::thread(&ReferenceLibraries::run_build, libs.get(), std::move(build));
  return libs;
}

ReferenceLibraries::~ReferenceLibraries() {
  stop_ = true;
  if (builder_.joinable()) builder_.join();
}

void ReferenceLibraries::run_build(const Build& build) {
  size_t files = 0;
  for (const auto& [name, i] : file_of_) files = std::max(files, i + 1);
  std::vector<bool> placed(files, false);
  std::string why = "its library was never built";
  try {
    if (build)
      build(
          [&](size_t i, const ReferenceLibrary& lib) {  // one call at a time
            if (i >= files) return;
            placed[i] = true;
            place(i, lib);
          },
          stop_);
  } catch (const std::exception& e) {
    why = std::string("the reference libraries could not be built: ") + e.what();
  }
  // Never leave a case waiting for a library that will not come.
  for (size_t i = 0; i < files; ++i)
    if (!placed[i]) place(i, ReferenceLibrary{false, "", why, false, 0, {}});
}

void ReferenceLibraries::place(size_t file, const ReferenceLibrary& lib) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [name, i] : file_of_) {
    if (i != file) continue;
    ReferenceLibrary& mine = built_[name] = lib;
    if (const auto note = notes_.find(name); note != notes_.end()) mine.notes.push_back(note->second);
  }
  changed_.notify_all();
  for (const auto& [id, fn] : listeners_) fn();
}

bool ReferenceLibraries::ready(const std::string& reference) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return built_.count(reference) || !file_of_.count(reference);
}

const ReferenceLibrary* ReferenceLibraries::get(const std::string& reference) const {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!file_of_.count(reference) && !built_.count(reference)) return nullptr;
  changed_.wait(lock, [&] { return built_.count(reference) > 0; });
  return &built_.at(reference);  // a map's elements stay where they are, and each is placed once
}

ReferenceLibraries::Listening::Listening(ReferenceLibraries* libs, std::function<void()> fn) : libs_(libs) {
  if (!libs_) return;
  std::lock_guard<std::mutex> lock(libs_->mutex_);
  id_ = libs_->next_listener_++;
  libs_->listeners_[id_] = std::move(fn);
}

ReferenceLibraries::Listening::~Listening() {
  if (!libs_) return;
  std::lock_guard<std::mutex> lock(libs_->mutex_);
  libs_->listeners_.erase(id_);
}

}  // namespace hk
