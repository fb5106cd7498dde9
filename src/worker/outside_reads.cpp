#include "worker/outside_reads.h"

#include <fmt/format.h>

namespace hk {
namespace outside_reads {

using Outputs = std::vector<std::vector<uint8_t>>;

std::vector<BufferGuards> zeroed(const std::vector<BufferGuards>& guards) {
  std::vector<BufferGuards> z = guards;
  for (BufferGuards& g : z) {
    std::fill(g.before.begin(), g.before.end(), 0);
    std::fill(g.after.begin(), g.after.end(), 0);
  }
  return z;
}

// The outputs' bytes only: an input's own bytes are what was uploaded.
bool same_outputs(const CasePlan& plan, const Outputs& a, const Outputs& b) {
  for (size_t i = 0; i < plan.tensors.size(); ++i)
    if (plan.tensors[i].role != Role::in && a[i] != b[i]) return false;
  return true;
}

// The guard of tensor i on side with the first (after) or last (before) `bytes` of it from the
// NaN pattern, the rest zero.
std::vector<BufferGuards> nan_near_edge(const std::vector<BufferGuards>& guards, const std::vector<BufferGuards>& zero, size_t i,
                                        bool after, size_t bytes) {
  std::vector<BufferGuards> g = zero;
  const std::vector<uint8_t>& from = after ? guards[i].after : guards[i].before;
  std::vector<uint8_t>& to = after ? g[i].after : g[i].before;
  const size_t n = std::min(bytes, from.size());
  if (after) std::copy(from.begin(), from.begin() + static_cast<ptrdiff_t>(n), to.begin());
  else std::copy(from.end() - static_cast<ptrdiff_t>(n), from.end(), to.end() - static_cast<ptrdiff_t>(n));
  return g;
}

}  // namespace outside_reads

std::optional<GuardViolation> find_outside_read(const CasePlan& plan, const std::vector<BufferGuards>& guards,
                                                const GuardedRelaunch& relaunch) {
  using namespace outside_reads;
  const std::vector<BufferGuards> zero = zeroed(guards);
  const auto base = relaunch(zero), again = relaunch(zero);
  if (!base || !again || !same_outputs(plan, *base, *again)) return std::nullopt;
  auto changes = [&](size_t i, bool after, size_t bytes) {
    const auto got = relaunch(nan_near_edge(guards, zero, i, after, bytes));
    return got && !same_outputs(plan, *base, *got);
  };
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    for (const bool after : {true, false}) {
      const size_t region = after ? guards[i].after.size() : guards[i].before.size();
      if (region == 0 || !changes(i, after, region)) continue;
      // The shortest run next to the edge that still changes the output: its far end is read.
      const size_t e = std::max<size_t>(1, dtype_size(plan.tensors[i].dtype));
      size_t lo = 0, hi = (region + e - 1) / e;  // in elements: lo does not change it, hi does
      while (hi - lo > 1) {
        const size_t mid = (lo + hi) / 2;
        (changes(i, after, mid * e) ? hi : lo) = mid;
      }
      const int64_t first = after ? static_cast<int64_t>((hi - 1) * e) : -static_cast<int64_t>(hi * e);
      return GuardViolation{plan.tensors[i].name, after ? "after" : "before", static_cast<int64_t>(e), first,
                            first + static_cast<int64_t>(e) - 1};
    }
  }
  return std::nullopt;
}

std::string describe_read(const GuardViolation& g) {
  if (g.side == "before")
    return fmt::format("{}: reads {} byte(s) before its start (offsets {}..{} from the start)", g.tensor, g.bytes, g.first_offset,
                       g.last_offset);
  return fmt::format("{}: reads {} byte(s) after its end (offsets +{}..+{} from the end)", g.tensor, g.bytes, g.first_offset,
                     g.last_offset);
}

}  // namespace hk
