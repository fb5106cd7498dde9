// hkcheck merge joins the shards of one run: every run field kept, every shard required once
// (unless --allow-partial), parts of different runs refused, and never a part written over.
// The parts are runs of the fake worker (tests/fake_worker.cpp), so no GPU is needed.
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run/out_lock.h"
#include "process/subprocess.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::slurp;

struct Merge : ::testing::Test {
  test::TempDir dir;
  std::string manifests;

  void SetUp() override {
    dir.write("m/k.cu", "#include \"hkcheck.h\"\n");
    const json kernel = {{"name", "ok_kernel"}, {"source", "k.cu"}, {"entry", "k"}, {"reference", "relu"},
                         {"cases", {{{"sweep", {{"n", {1, 2, 3, 4, 5, 6}}}}}}},
                         {"tensors", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "in"}, {"init", {{"kind", "normal"}}}},
                                      {{"name", "y"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "out"}}}},
                         {"args", {"y", "x", {{"dtype", "i32"}, {"value", "n"}}}},
                         {"launch", {{"grid", {1}}, {"block", {32}}}}};
    dir.write("m/ok.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump());
    manifests = dir.path() + "/m";
  }

  struct Ran {
    int code = -1;
    std::string output;
  };
  Ran hkcheck(std::vector<std::string> args) const {
    std::vector<std::string> argv = {HKCHECK_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, 3);
    EXPECT_TRUE(p.wait_for(std::chrono::seconds(300))) << p.output_tail(4000);
    const ExitStatus st = p.wait();
    return {st.exited ? st.code : -1, p.output_tail(8000)};
  }
  // A part of the run, into dir/NAME.
  std::string part(const std::string& name, std::vector<std::string> more) const {
    std::vector<std::string> args = {"--worker-exe", FAKE_WORKER_PATH, "--no-cache", "--manifests", manifests, "--out", dir.path() + "/" + name,
                                     "--source", "hip", "--repeat", "2"};
    args.insert(args.end(), more.begin(), more.end());
    const Ran r = hkcheck(args);
    EXPECT_EQ(r.code, 0) << r.output;
    return dir.path() + "/" + name;
  }
  json results(const std::string& folder) const { return json::parse(slurp(folder + "/test_results.json")); }
};

TEST_F(Merge, TheMergedRunKeepsEveryFieldOfItsParts) {
  const std::string a = part("a", {"--shard", "1/2"}), b = part("b", {"--shard", "2/2"});
  const Ran r = hkcheck({"merge", dir.path() + "/merged", a, b});
  ASSERT_EQ(r.code, 0) << r.output;
  const json merged = results(dir.path() + "/merged")["run"], first = results(a)["run"];
  EXPECT_EQ(merged["spec"]["source_vendor"], "hip");
  json spec = first["spec"];
  spec["selection"]["shard"] = "";
  EXPECT_EQ(merged["spec"], spec) << "the merged run is the whole run the shards make";
  for (const char* field : {"hkcheck_version", "git_commit", "host", "started_at", "device", "manifest_errors", "interrupted", "resumed_from",
                            "sanitizer"})
    EXPECT_EQ(merged[field], first[field]) << field;
  EXPECT_EQ(results(dir.path() + "/merged")["cases"].size(), 6u);
}

TEST_F(Merge, OneShardOfTwoIsRefusedUnlessPartialIsAllowed) {
  const std::string a = part("a", {"--shard", "1/2"});
  Ran r = hkcheck({"merge", dir.path() + "/merged", a});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("shard 2/2 is missing (1 of 2 given)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir.path() + "/merged/test_results.json"));
  r = hkcheck({"merge", "--allow-partial", dir.path() + "/merged", a});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(results(dir.path() + "/merged")["run"]["missing_shards"], json({"2/2"}));
}

TEST_F(Merge, OverlappingShardsAreRefused) {
  const std::string a = part("a", {"--shard", "1/2"}), again = part("again", {"--shard", "1/2"}), b = part("b", {"--shard", "2/2"});
  Ran r = hkcheck({"merge", dir.path() + "/merged", a, again, b});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("shard 1/2 is given twice"), std::string::npos) << r.output;
  const std::string whole = part("whole", {});
  r = hkcheck({"merge", dir.path() + "/merged", whole, a});
  EXPECT_EQ(r.code, 2) << r.output;
}

TEST_F(Merge, PartsOfDifferentRunsAreRefused) {
  const std::string a = part("a", {"--shard", "1/2"}), b = part("b", {"--shard", "2/2", "--seed", "3"});
  const Ran r = hkcheck({"merge", dir.path() + "/merged", a, b});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("are not parts of one run; --seed 0 against 3"), std::string::npos) << r.output;
}

TEST_F(Merge, NeverWritesOverOneOfItsParts) {
  const std::string a = part("a", {"--shard", "1/2"}), b = part("b", {"--shard", "2/2"});
  const std::string before = slurp(a + "/test_results.json");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"merge", a, a, b}, {"merge", a, a + "/test_results.json", b},
                                               {"merge", dir.path() + "/a/../a", b, a}}) {
    const Ran r = hkcheck(args);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("one of the parts: give another OUT folder"), std::string::npos) << r.output;
  }
  EXPECT_EQ(slurp(a + "/test_results.json"), before);
}

// A merge into a folder a run is writing (it holds the folder's run lock) is refused, and
// writes nothing there.
TEST_F(Merge, NeverWritesIntoAFolderARunIsWriting) {
  const std::string a = part("a", {"--shard", "1/2"}), b = part("b", {"--shard", "2/2"});
  const std::string busy = dir.path() + "/busy";
  fs::create_directories(busy);
  OutDirLock run;
  std::string why;
  ASSERT_TRUE(run.acquire(busy, &why)) << why;
  const Ran r = hkcheck({"merge", busy, a, b});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(fs::exists(busy + "/test_results.json")) << r.output;
}

}  // namespace
}  // namespace hk
