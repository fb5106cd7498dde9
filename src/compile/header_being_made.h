// A precompiled header made on a thread of its own while the compiles that would use it go on.
// The precompiled reference.h takes about two library compiles' time and saves a second or so on
// each library after it; a cold --all's cases waited the whole of it for their first library,
// beside idle cores. So a few libraries are compiled without it while it is made (EarlyCompiles),
// and the rest with it: the header only makes a compile faster, never different.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace hk {

class HeaderBeingMade {
 public:
  // make() returns the header's path, or "" when it could not be made (as does a throw).
  explicit HeaderBeingMade(std::function<std::string()> make);
  ~HeaderBeingMade();  // waits for make() to return
  HeaderBeingMade(const HeaderBeingMade&) = delete;
  HeaderBeingMade& operator=(const HeaderBeingMade&) = delete;

  // The header ("" when it could not be made), or nothing while it is being made.
  std::optional<std::string> now() const;
  std::string wait() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::optional<std::string> header_;
  std::thread thread_;
};

// How many compiles may go without the header while it is being made: a quarter of the compile
// jobs (at least one), so that the cores the run's other compilers leave idle are used, not
// oversubscribed.
class EarlyCompiles {
 public:
  explicit EarlyCompiles(int jobs);
  bool try_take();
  void give_back();

 private:
  std::atomic<int> free_;
};

// The header one compile includes: the made one once it is ready; none while it is being made if
// an early slot is free (*took_early then says so: give it back after the compile); else the made
// one, waited for. "" also when there is no header at all (null).
std::string header_for_compile(const HeaderBeingMade* header, EarlyCompiles& early, bool* took_early);

}  // namespace hk
