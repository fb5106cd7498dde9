#include "run/prestarted_workers.h"

namespace hk {

PrestartedWorkers::~PrestartedWorkers() {
  for (auto& [device, list] : pending_)
    for (auto& p : list)
      if (p->started.valid()) p->started.wait();
}

void PrestartedWorkers::start(int device, WorkerLaunch launch) {
  auto p = std::make_unique<Pending>();
  p->session = std::make_unique<WorkerSession>(std::move(launch));
  Pending* raw = p.get();
  p->started = std::async(std::launch::async, [raw] { raw->dev = raw->session->start(&raw->why); });
  std::lock_guard<std::mutex> lock(mutex_);
  pending_[device].push_back(std::move(p));
}

std::optional<DeviceInfo> PrestartedWorkers::hello(int device, std::string* why) {
  Pending* first = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pending_.find(device);
    if (it == pending_.end() || it->second.empty()) {
      why->clear();
      return std::nullopt;
    }
    first = it->second.front().get();
  }
  first->started.wait();
  if (!first->dev) *why = first->why;
  return first->dev;
}

std::unique_ptr<WorkerSession> PrestartedWorkers::take(int device) {
  std::unique_ptr<Pending> p;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pending_.find(device);
    if (it == pending_.end() || it->second.empty()) return nullptr;
    p = std::move(it->second.front());
    it->second.pop_front();
  }
  p->started.wait();
  if (!p->dev) return nullptr;  // its start failed: the caller starts one of its own, which says why
  return std::move(p->session);
}

}  // namespace hk
