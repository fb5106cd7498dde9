#include "util/threads.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace hk {

void on_threads(int n, const std::function<void(int t)>& body) {
  std::exception_ptr error;
  std::mutex error_mutex;
  auto guarded = [&](int t) {
    try {
      body(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int t = 0; t < n; ++t) threads.emplace_back(guarded, t);
  for (std::thread& th : threads) th.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace hk
