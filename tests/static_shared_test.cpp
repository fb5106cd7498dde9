#include <gtest/gtest.h>

#include "backends/host/static_shared.h"

namespace hk::host {
namespace {

// A host kernel's __shared__ arrays are local statics; the demangled name says whose.
TEST(StaticShared, FindsTheFunctionOfALocalStatic) {
  EXPECT_EQ(enclosing_function("rmsnorm::tile"), "rmsnorm");
  EXPECT_EQ(enclosing_function("void act<float, true>(float*, hk::Pair<int, 2>)::staging"), "void act<float, true>(float*, hk::Pair<int, 2>)");
  EXPECT_EQ(enclosing_function("float hk::block_reduce<float, hk::SumOp>(float, hk::SumOp, float)::partial"),
            "float hk::block_reduce<float, hk::SumOp>(float, hk::SumOp, float)");
}

TEST(StaticShared, MatchesAnEntryByItsName) {
  EXPECT_TRUE(is_entry_function("rmsnorm", "rmsnorm"));
  EXPECT_TRUE(is_entry_function("void act<float, true>(float*, float const*)", "act<float, true>"));
  EXPECT_TRUE(is_entry_function("void act<float, true>(float*, float const*)", "act<float,true>"));
  EXPECT_FALSE(is_entry_function("void act<float, false>(float*, float const*)", "act<float, true>"));
  EXPECT_FALSE(is_entry_function("fused_add_rmsnorm", "rmsnorm"));
}

TEST(StaticShared, NotAnElfFileHasNone) {
  EXPECT_EQ(static_shared_bytes_of_symbol("not an ELF file", "e0"), 0);
  EXPECT_EQ(static_shared_bytes("", "k", {"k"}), 0);
}

}  // namespace
}  // namespace hk::host
