// Workers started before the run needs them. A worker's start is mostly its device context
// (about a second on a GPU); started together as the run begins, the contexts are made while the
// parent probes the device and plans the cases, instead of after. The probe's own worker is one
// of them and goes on to run cases.
#pragma once

#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "run/worker_session.h"

namespace hk {

class PrestartedWorkers {
 public:
  PrestartedWorkers() = default;
  ~PrestartedWorkers();  // waits for the starts in flight; workers never taken are closed
  PrestartedWorkers(const PrestartedWorkers&) = delete;
  PrestartedWorkers& operator=(const PrestartedWorkers&) = delete;

  // Starts a worker with `launch` for device, in the background.
  void start(int device, WorkerLaunch launch);
  // The device the first worker started for `device` found, waiting for its start, or nothing
  // with *why (its start failed); nothing and *why empty when none was started for it. The
  // worker stays for take().
  std::optional<DeviceInfo> hello(int device, std::string* why);
  // A started worker for device, or null when none is left or its start failed.
  std::unique_ptr<WorkerSession> take(int device);

 private:
  struct Pending {
    std::unique_ptr<WorkerSession> session;
    std::string why;
    std::optional<DeviceInfo> dev;
    std::future<void> started;  // declared last: destroyed (waited for) first
  };
  std::mutex mutex_;
  std::map<int, std::deque<std::unique_ptr<Pending>>> pending_;
};

}  // namespace hk
