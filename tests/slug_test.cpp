#include "util/slug.h"

#include <gtest/gtest.h>
#include <cctype>
#include <set>
#include <vector>

TEST(Slug, ShortNamesForDevices) {
  EXPECT_EQ(hk::device_slug("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(hk::device_slug("NVIDIA H100 PCIe"), "h100");
  EXPECT_EQ(hk::device_slug("NVIDIA H200"), "h200");
  EXPECT_EQ(hk::device_slug("AMD Instinct MI325X"), "mi325x");
  EXPECT_EQ(hk::device_slug("NVIDIA GeForce RTX 4090"), "rtx-4090");
  EXPECT_EQ(hk::device_slug("NVIDIA H100 SXM5 94GB HBM2e"), "h100");
  EXPECT_EQ(hk::device_slug("AMD Radeon Graphics 512"), "512");
  EXPECT_EQ(hk::device_slug(""), "gpu");
}

// Names that map to one file name would overwrite each other's repro; names over 255 bytes would
// get none.
TEST(Slug, FileNamesAreOnePerName) {
  EXPECT_EQ(hk::file_name_slug("rmsnorm"), "rmsnorm");
  EXPECT_EQ(hk::file_name_slug("M=7_N-2.5"), "M=7_N-2.5");
  const std::vector<std::string> names = {".w", "_.w", "_w", "p/q", "p_q", "p q", "", ".", "..", "a+b", "a_b",
                                          std::string(300, 'k'), std::string(300, 'k') + "x", "\xff", "\xfe"};
  std::set<std::string> seen;
  for (const std::string& n : names) {
    const std::string s = hk::file_name_slug(n);
    EXPECT_TRUE(seen.insert(s).second) << "'" << n << "' shares " << s;
    EXPECT_LE(s.size(), hk::kMaxSlugBytes) << n;
    EXPECT_FALSE(s.empty() || s[0] == '.' || s.find('/') != std::string::npos) << s;
    for (char c : s) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || std::string("_-.=+").find(c) != std::string::npos) << s;
  }
  EXPECT_EQ(hk::file_name_slug("a_b"), "a_b") << "a plain name is kept as it is";
  EXPECT_NE(hk::file_name_slug("a+b"), "a+b") << "'+' marks a hashed name: no kept name holds one";
}
