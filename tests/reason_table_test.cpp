// The reasons of a verdict (model/status.h): one row each, in the enum's order, each named once,
// found by its name, and each described where users read the results (docs/results.md).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/status.h"
#include "util/file_util.h"

namespace hk {
namespace {

TEST(ReasonTable, OneRowPerReasonInTheEnumsOrderFoundByItsName) {
  std::set<std::string> names;
  for (size_t i = 0; i < reason_table().size(); ++i) {
    const ReasonInfo& r = reason_table()[i];
    EXPECT_EQ(static_cast<size_t>(r.reason), i) << r.name;
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_EQ(find_reason(r.name), &r);
    EXPECT_STREQ(reason_name(r.reason), r.name);
    EXPECT_TRUE(has_reason(r.name, r.reason));
  }
  EXPECT_EQ(find_reason("an older hkcheck's reason"), nullptr);
  EXPECT_EQ(reason_table().size(), static_cast<size_t>(Reason::MEMORY_LIMIT) + 1);
}

TEST(ReasonTable, EveryReasonIsDescribedInTheResultsDocs) {
  const std::string docs = read_file(std::string(REPO_DIR) + "/docs/results.md", "docs");
  for (const ReasonInfo& r : reason_table())
    EXPECT_NE(docs.find(std::string("`") + r.name + "`"), std::string::npos) << r.name << " is not in docs/results.md";
}

}  // namespace
}  // namespace hk
