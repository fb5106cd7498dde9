#include "compile/header_being_made.h"

#include <algorithm>

namespace hk {

HeaderBeingMade::HeaderBeingMade(std::function<std::string()> make) {
  thread_ = std::thread([this, make = std::move(make)] {
    std::string header;
    try {
      header = make();
    } catch (...) {  // no header: the compiles go without it
    }
    std::lock_guard<std::mutex> lock(mutex_);
    header_ = std::move(header);
    changed_.notify_all();
  });
}

HeaderBeingMade::~HeaderBeingMade() { thread_.join(); }

std::optional<std::string> HeaderBeingMade::now() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return header_;
}

std::string HeaderBeingMade::wait() const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return header_.has_value(); });
  return *header_;
}

EarlyCompiles::EarlyCompiles(int jobs) : free_(std::max(1, jobs / 4)) {}

bool EarlyCompiles::try_take() {
  for (int n = free_.load(); n > 0;)
    if (free_.compare_exchange_weak(n, n - 1)) return true;
  return false;
}

void EarlyCompiles::give_back() { ++free_; }

std::string header_for_compile(const HeaderBeingMade* header, EarlyCompiles& early, bool* took_early) {
  *took_early = false;
  if (!header) return "";
  if (std::optional<std::string> ready = header->now()) return *ready;
  if ((*took_early = early.try_take())) return "";
  return header->wait();
}

}  // namespace hk
