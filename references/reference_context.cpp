// The reference registry and the Context that references read and write (reference.h). Compiled
// into every reference library, so a library needs nothing of hkcheck but this folder's headers.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "reference.h"

namespace hk::ref {
namespace {
std::map<std::string, Function>& registry() {
  static std::map<std::string, Function> r;
  return r;
}
}  // namespace

int64_t Tensor::dim(int i) const {
  const int n = static_cast<int>(shape.size());
  const int k = i < 0 ? n + i : i;
  if (k < 0 || k >= n)
    throw std::runtime_error("tensor '" + name + "' has " + std::to_string(n) + " dimensions; dim(" + std::to_string(i) + ") asked");
  return shape[static_cast<size_t>(k)];
}

double Context::num(const std::string& name) const {
  const auto it = numbers.find(name);
  if (it == numbers.end()) throw std::runtime_error("the reference needs numeric parameter '" + name + "', which the case does not set");
  return it->second;
}

int64_t Context::integer(const std::string& name) const { return static_cast<int64_t>(std::llround(num(name))); }

std::string Context::str(const std::string& name) const {
  const auto it = strings.find(name);
  if (it == strings.end()) throw std::runtime_error("the reference needs string parameter '" + name + "', which the case does not set");
  return it->second;
}

bool Context::has(const std::string& name) const { return numbers.count(name) || strings.count(name); }

Tensor& Context::tensor(const std::string& name) {
  const auto it = tensors.find(name);
  if (it == tensors.end()) throw std::runtime_error("the reference needs tensor '" + name + "', which the manifest does not declare");
  return it->second;
}

MatrixMap Context::matrix(const std::string& name) {
  Tensor& t = tensor(name);
  const int64_t cols = t.shape.empty() ? 1 : t.shape.back();
  return matrix(name, cols ? t.numel() / cols : 0, cols);
}

MatrixMap Context::matrix(const std::string& name, int64_t rows, int64_t cols) {
  Tensor& t = tensor(name);
  if (rows * cols != t.numel())
    throw std::runtime_error("tensor '" + name + "' has " + std::to_string(t.numel()) + " elements, not " + std::to_string(rows) + " x " +
                             std::to_string(cols));
  return MatrixMap(t.data.data(), rows, cols);
}

double Context::round_to(const std::string& tensor_name, double v) const {
  const auto it = tensors.find(tensor_name);
  if (it == tensors.end()) throw std::runtime_error("round_to: no tensor '" + tensor_name + "'");
  if (!round_dtype) throw std::runtime_error("round_to: hkcheck gave the reference no rounding function");
  return round_dtype(it->second.dtype, v);
}

void Context::parallel_for(int64_t n, const std::function<void(int64_t)>& fn) const {
  if (n <= 0) return;
  const int64_t count = std::min<int64_t>(std::max(threads, 1), n);
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (int64_t i; (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (int64_t t = 1; t < count; ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
  if (error) std::rethrow_exception(error);
}

const Function* find(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& [n, f] : registry()) out.push_back(n);
  return out;
}

Registrar::Registrar(const char* name, Function fn) {
  if (!registry().emplace(name, std::move(fn)).second)
    throw std::logic_error(std::string("two references registered as '") + name + "'");
}

}  // namespace hk::ref

extern "C" int hk_reference_abi() { return HK_REFERENCE_ABI; }
extern "C" const hk::ref::Function* hk_reference_find(const char* name) { return hk::ref::find(name); }
