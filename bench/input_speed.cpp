// A case's inputs made two ways on the same plans, in one run: in double then packed (how a run
// made them before) and straight into the device bytes (generate_packed, how a run makes them now).
// Prints both times per dtype and the ratio, and fails when the bytes differ.
//   build/tests/input_speed [values (default 2^26)] [threads (default: every core)]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "model/dtype.h"
#include "util/first_touch.h"
#include "refs/generator.h"
#include "util/parallel_for.h"

int main(int argc, char** argv) {
  using namespace hk;
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : int64_t{1} << 26;
  set_parallel_threads(argc > 2 ? std::atoi(argv[2]) : static_cast<int>(std::thread::hardware_concurrency()));
  using Clock = std::chrono::steady_clock;
  const auto secs = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const GeneratorPlan normal{"normal", {{"mean", 0}, {"std", 1}}}, uniform{"uniform", {{"low", -6}, {"high", 6}}};
  struct Row { const GeneratorPlan* plan; DType dtype; };
  const Row rows[] = {{&normal, DType::bf16}, {&normal, DType::f16}, {&normal, DType::f32}, {&uniform, DType::fp8e4m3}, {&uniform, DType::fp4e2m1}};
  double before_all = 0, now_all = 0;
  bool same = true;
  std::printf("%lld values per input, %d threads\n", static_cast<long long>(n), parallel_threads());
  for (const Row& r : rows) {
    const auto t0 = Clock::now();
    std::vector<double> values = touched_vector<double>(static_cast<size_t>(n));
    generate_into(*r.plan, r.dtype, n, 42, values.data());
    const std::vector<uint8_t> packed = pack(r.dtype, values);
    const auto t1 = Clock::now();
    const std::vector<uint8_t> direct = generate_packed(*r.plan, r.dtype, n, 42);
    const auto t2 = Clock::now();
    same &= packed == direct;
    before_all += secs(t0, t1), now_all += secs(t1, t2);
    std::printf("%-8s %-8s in double then packed %7.3f s, straight into bytes %7.3f s: %5.1fx%s\n", r.plan->kind.c_str(),
                dtype_name(r.dtype), secs(t0, t1), secs(t1, t2), secs(t0, t1) / secs(t1, t2), packed == direct ? "" : "  (BYTES DIFFER)");
  }
  std::printf("all: %.3f s before, %.3f s now: %.1fx\n", before_all, now_all, before_all / now_all);
  return same ? 0 : 1;
}
