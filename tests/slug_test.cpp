#include "slug.h"

#include <gtest/gtest.h>

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
