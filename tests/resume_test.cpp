// --resume finishes the run its journal describes: the same cases (the selection is not evaluated
// again), the same settings (a conflicting option is refused), and a journaled result only while
// its case is unchanged. hkcheck runs the fake worker (tests/fake_worker.cpp), so no GPU is needed.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tuple>

#include "process/subprocess.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::slurp;

struct Resume : ::testing::Test {
  test::TempDir dir;
  std::string manifests, out, pids;

  void SetUp() override {
    dir.write("m/k.cu", "#include \"hkcheck.h\"\n");
    write_manifest({1, 2, 3, 4, 5, 6});
    manifests = dir.path() + "/m";
    out = dir.path() + "/out";
    pids = dir.path() + "/pids";
    fs::create_directories(pids);
    setenv("HKCHECK_FAKE_WORKER_PID_DIR", pids.c_str(), 1);
  }
  void TearDown() override { unsetenv("HKCHECK_FAKE_WORKER_PID_DIR"); }

  void write_manifest(const std::vector<int>& sizes, const std::string& init = "normal") {
    const json kernel = {{"name", "ok_kernel"}, {"source", "k.cu"}, {"entry", "k"}, {"reference", "relu"},
                         {"cases", {{{"sweep", {{"n", sizes}}}}}},
                         {"tensors", {{{"name", "x"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "in"}, {"init", {{"kind", init}}}},
                                      {{"name", "y"}, {"dtype", "f32"}, {"shape", {"n"}}, {"role", "out"}}}},
                         {"args", {"y", "x", {{"dtype", "i32"}, {"value", "n"}}}},
                         {"launch", {{"grid", {1}}, {"block", {32}}}}};
    dir.write("m/ok.json", json{{"hkcheck_manifest", 1}, {"kernels", {kernel}}}.dump());
  }

  struct Ran {
    int code = -1;
    std::string output;
  };
  Ran hkcheck(std::vector<std::string> args) const {
    std::vector<std::string> argv = {HKCHECK_PATH, "--worker-exe", FAKE_WORKER_PATH, "--no-cache", "--jobs", "1"};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, 3);
    EXPECT_TRUE(p.wait_for(std::chrono::seconds(300))) << p.output_tail(4000);
    const ExitStatus st = p.wait();
    return {st.exited ? st.code : -1, p.output_tail(8000)};
  }
  Ran run(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--manifests", manifests, "--out", out});
    return hkcheck(args);
  }

  json results() const { return json::parse(slurp(out + "/test_results.json")); }
  std::vector<std::string> case_names() const {
    std::vector<std::string> names;
    const json r = results();
    for (const json& c : r["cases"]) names.push_back(c["case"]);
    return names;
  }
  size_t workers() const { return static_cast<size_t>(std::distance(fs::directory_iterator(pids), fs::directory_iterator())); }
};

// The journal's selection, not every case of the kernel: -k, --exclude and patterns.
TEST_F(Resume, KeepsTheCaseFilter) {
  ASSERT_EQ(run({"-k", "n=1", "-k", "n=2", "--exclude", "n=2"}).code, 0);
  EXPECT_EQ(case_names(), std::vector<std::string>{"n=1"});
  const Ran r = hkcheck({"--resume", out});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(case_names(), std::vector<std::string>{"n=1"}) << "the resumed run selected cases the run did not:\n" << r.output;
  EXPECT_EQ(results()["run"]["spec"]["selection"]["k"], json({"n=1", "n=2"}));
}

// --last-failed is not read again: the run it named may have changed since.
TEST_F(Resume, KeepsTheCasesLastFailedSelected) {
  ASSERT_EQ(run({"-k", "n=3"}).code, 0);
  json earlier = results();
  earlier["cases"][0]["status"] = "FAIL";
  dir.write("earlier/test_results.json", earlier.dump());
  ASSERT_EQ(run({"--last-failed", dir.path() + "/earlier"}).code, 0);
  EXPECT_EQ(case_names(), std::vector<std::string>{"n=3"});
  fs::remove_all(dir.path() + "/earlier");
  const Ran r = hkcheck({"--resume", out});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(case_names(), std::vector<std::string>{"n=3"}) << r.output;
}

// A resumed shard stays that shard, and the shard is recorded in the run.
TEST_F(Resume, AShardStaysThatShard) {
  ASSERT_EQ(run({"--shard", "1/2"}).code, 0);
  const std::vector<std::string> shard = case_names();
  ASSERT_EQ(shard.size(), 3u);
  EXPECT_EQ(results()["run"]["spec"]["selection"]["shard"], "1/2");
  const Ran r = hkcheck({"--resume", out});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(case_names(), shard) << r.output;
  EXPECT_EQ(results()["run"]["spec"]["selection"]["shard"], "1/2");
}

// A setting given with another value than the journal's is refused, naming it; --timeout may change.
TEST_F(Resume, AConflictingOptionIsRefused) {
  ASSERT_EQ(run({"-k", "n=1", "--repeat", "2"}).code, 0);
  for (const auto& [option, value, said] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"-k", "n=2", "used -k [\"n=1\"], not [\"n=2\"]"},
           {"--repeat", "3", "used --repeat 2, not 3"},
           {"--shard", "1/2", "used --shard \"\", not \"1/2\""},
           {"--exclude", "n=1", "used --exclude [], not [\"n=1\"]"}}) {
    const Ran r = hkcheck({"--resume", out, option, value});
    EXPECT_EQ(r.code, 2) << option << "\n" << r.output;
    EXPECT_NE(r.output.find(said), std::string::npos) << option << "\n" << r.output;
  }
  const Ran same = hkcheck({"--resume", out, "-k", "n=1", "--repeat", "2", "--timeout", "9"});
  EXPECT_EQ(same.code, 0) << same.output;
  EXPECT_EQ(results()["run"]["spec"]["timeout"], 9);
}

// A case whose manifest entry or kernel changed since its result runs again; the others are kept.
TEST_F(Resume, AChangedCaseRunsAgainAndTheRestAreKept) {
  ASSERT_EQ(run({}).code, 0);
  const size_t before = workers();
  Ran r = hkcheck({"--resume", out});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(workers() - before, 1u) << "nothing changed: only the probe starts\n" << r.output;
  EXPECT_NE(r.output.find("6 cases kept"), std::string::npos) << r.output;

  write_manifest({1, 2, 3, 4, 5, 6}, "uniform");  // every case's inputs change
  const json kept = results();
  r = hkcheck({"--resume", out});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("6 case(s) changed since their result"), std::string::npos) << r.output;
  // Run again, each has a result of its own (the probe's worker runs them: counting workers cannot tell).
  const json again = results();
  ASSERT_EQ(again["cases"].size(), 6u);
  for (size_t i = 0; i < 6; ++i)
    EXPECT_NE(again["cases"][i]["timings_ms"], kept["cases"][i]["timings_ms"]) << "case " << i << " was not run again\n" << r.output;

  dir.write("m/k.cu", "#include \"hkcheck.h\"\n// edited\n");  // the kernel's source
  r = hkcheck({"--resume", out});
  EXPECT_NE(r.output.find("6 case(s) changed since their result"), std::string::npos) << r.output;
  r = hkcheck({"--resume", out});
  EXPECT_NE(r.output.find("6 cases kept"), std::string::npos) << "the new results are journaled with their new plan\n" << r.output;
}

// The run named its folders relatively, the resume names them absolutely: nothing changed.
TEST_F(Resume, PathsSpelledAnotherWayChangeNothing) {
  Subprocess first({"/bin/sh", "-c", "cd \"$0\" && exec \"$1\" --worker-exe \"$2\" --no-cache --manifests m --out out", dir.path(),
                    HKCHECK_PATH, FAKE_WORKER_PATH},
                   3);
  ASSERT_TRUE(first.wait_for(std::chrono::seconds(300)));
  ASSERT_EQ(first.wait().code, 0) << first.output_tail(4000);
  const Ran r = hkcheck({"--resume", out});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("6 cases kept"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("changed since"), std::string::npos) << r.output;
}

// A case the manifests no longer define cannot be finished: the resume is refused, naming it.
TEST_F(Resume, ACaseRemovedFromTheManifestIsRefused) {
  ASSERT_EQ(run({}).code, 0);
  write_manifest({1, 2, 3, 4, 5});
  const Ran r = hkcheck({"--resume", out});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("1 case(s) of the run are no longer in the manifests (a manifest error above, or the case was removed), e.g. ok_kernel/n=6"), std::string::npos) << r.output;
}

// A NOT_RUN (or SKIP NO_DEVICE) line in the journal is no result: its case runs again.
TEST_F(Resume, ANotRunLineInTheJournalRunsAgain) {
  ASSERT_EQ(run({"-k", "n=1", "-k", "n=2"}).code, 0);
  std::string journal = slurp(out + "/results.jsonl");
  const size_t at = journal.find("\"status\":\"PASS\"");
  ASSERT_NE(at, std::string::npos) << journal;
  journal.replace(at, 15, "\"status\":\"NOT_RUN\"");
  std::ofstream(out + "/results.jsonl", std::ios::trunc) << journal;
  const Ran r = hkcheck({"--resume", out});
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(results()["summary"]["PASS"], 2) << r.output;
  EXPECT_NE(r.output.find("1 cases kept"), std::string::npos) << r.output;
}

// A journal is a file anyone may have edited: its settings are held to what the command line
// takes (a timeout of 1e10 or -5, a repeat of 1e8 and a backend of no name were run as written).
TEST_F(Resume, ARunRecordTheCommandLineWouldRefuseIsRefused) {
  ASSERT_EQ(run({"-k", "n=1"}).code, 0);
  const std::string journal = slurp(out + "/results.jsonl");
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"timeout\":30.0", "\"timeout\":1e10"}, {"\"timeout\":30.0", "\"timeout\":-5"},
                                 {"\"repeat\":1,", "\"repeat\":100000000,"}}) {
    std::string edited = journal;
    const size_t at = edited.find(from);
    ASSERT_NE(at, std::string::npos) << from << " in " << journal.substr(0, 2000);
    edited.replace(at, from.size(), to);
    std::ofstream(out + "/results.jsonl", std::ios::trunc) << edited;
    const Ran r = hkcheck({"--resume", out});
    EXPECT_EQ(r.code, 2) << to << ": " << r.output;
    EXPECT_NE(r.output.find("its run record holds a setting the command line refuses"), std::string::npos) << to << ": " << r.output;
  }
  // Without the test double, a backend of no name (this run's is the double's, "fake").
  std::ofstream(out + "/results.jsonl", std::ios::trunc) << journal;
  Subprocess p({HKCHECK_PATH, "--no-cache", "--resume", out}, 3);
  ASSERT_TRUE(p.wait_for(std::chrono::seconds(300)));
  EXPECT_EQ(p.wait().code, 2);
  EXPECT_NE(p.output_tail(4000).find("--backend fake: not a backend"), std::string::npos) << p.output_tail(4000);
}

// A journal of an older hkcheck is refused with what to do, not misread.
TEST_F(Resume, AJournalOfAnotherVersionIsRefused) {
  dir.write("old/results.jsonl", R"({"type":"run","schema":"hkcheck-journal","schema_version":1,"seed":0,"kernels":[]})" "\n");
  const Ran r = hkcheck({"--resume", dir.path() + "/old"});
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("/schema_version: a journal of version 1"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace hk
