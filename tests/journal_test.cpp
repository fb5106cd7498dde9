// The journal survives a crash mid-write: a cut last line is ignored, and appending after it
// does not glue the next result to it.
#include "run/journal.h"

#include <fstream>
#include <gtest/gtest.h>

#include "test_util.h"

namespace hk {
namespace {

using nlohmann::json;

JournalHeader header() {
  JournalHeader h;
  h.spec.seed = 3;
  h.cases = {"k/a", "k/b", "k/c"};
  return h;
}
const JournalHeader kHeader = header();

JournaledCase result(const std::string& case_name, Status st) {
  CaseResult r;
  r.kernel = "k";
  r.case_name = case_name;
  r.status = st;
  return JournaledCase{"plan-of-" + case_name, r};
}

void append_raw(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::app) << text; }

TEST(Journal, RoundTrip) {
  test::TempDir dir;
  const std::string path = dir.path() + "/results.jsonl";
  {
    JournalWriter w(path, kHeader, false);
    w.append(result("a", Status::PASS));
    w.append(result("b", Status::FAIL));
  }
  const JournalContents j = read_journal(path);
  EXPECT_EQ(j.header.spec, kHeader.spec);
  EXPECT_EQ(j.header.cases, kHeader.cases);
  ASSERT_EQ(j.cases.size(), 2u);
  EXPECT_EQ(j.cases[1].result.case_name, "b");
  EXPECT_EQ(j.cases[1].result.status, Status::FAIL);
  EXPECT_EQ(j.cases[1].plan, "plan-of-b");
  EXPECT_FALSE(j.dropped_partial_line);
}

TEST(Journal, TruncatedLastLineIsIgnoredAndCutOffOnAppend) {
  test::TempDir dir;
  const std::string path = dir.path() + "/results.jsonl";
  {
    JournalWriter w(path, kHeader, false);
    w.append(result("a", Status::PASS));
  }
  append_raw(path, R"({"type":"case","result":{"kernel":"k","ca)");
  JournalContents j = read_journal(path);
  EXPECT_TRUE(j.dropped_partial_line);
  ASSERT_EQ(j.cases.size(), 1u);

  {
    JournalWriter w(path, kHeader, true);
    w.append(result("c", Status::CRASH));
  }
  j = read_journal(path);
  EXPECT_FALSE(j.dropped_partial_line);
  ASSERT_EQ(j.cases.size(), 2u);
  EXPECT_EQ(j.cases[1].result.case_name, "c");
}

TEST(Journal, CompleteButUnterminatedLastLineIsNotTrusted) {
  test::TempDir dir;
  const std::string path = dir.path() + "/results.jsonl";
  { JournalWriter w(path, kHeader, false); }
  append_raw(path, json(result("a", Status::PASS)).dump());
  const JournalContents j = read_journal(path);
  EXPECT_TRUE(j.dropped_partial_line);
  EXPECT_TRUE(j.cases.empty());
}

TEST(Journal, ATornLineInTheMiddleIsIgnoredAndTheRestKept) {
  test::TempDir dir;
  const std::string case_line = json(result("a", Status::PASS)).dump();
  const std::string path = dir.write("results.jsonl", json(kHeader).dump() + "\n" + case_line.substr(0, 20) + "\n" + case_line + "\n");
  const JournalContents j = read_journal(path);
  EXPECT_EQ(j.damaged_lines, std::vector<int>{2});
  ASSERT_EQ(j.cases.size(), 1u) << "the whole lines after it are kept";
  EXPECT_EQ(j.cases[0].result.case_name, "a");
}

TEST(Journal, AFileWhoseFirstLineIsNotJsonIsRefusedNamingFileAndLine) {
  test::TempDir dir;
  const std::string path = dir.write("results.jsonl", "not json\n" + json(kHeader).dump() + "\n");
  try {
    read_journal(path);
    FAIL() << "expected a JournalError";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":1:"), std::string::npos) << e.what();
  }
}

TEST(Journal, AJournalOfAnotherVersionIsRefusedNamingTheField) {
  test::TempDir dir;
  json old = kHeader;
  old["schema_version"] = 1;
  try {
    read_journal(dir.write("results.jsonl", old.dump() + "\n"));
    FAIL() << "expected a JournalError";
  } catch (const JournalError& e) {
    EXPECT_NE(std::string(e.what()).find(":1: /schema_version"), std::string::npos) << e.what();
  }
  json no_spec = kHeader;
  no_spec.erase("spec");
  EXPECT_THROW(read_journal(dir.write("b.jsonl", no_spec.dump() + "\n")), JournalError);
}

TEST(Journal, ACaseLineWithoutItsPlanIsRefused) {
  test::TempDir dir;
  json line = result("a", Status::PASS);
  line.erase("plan");
  EXPECT_THROW(read_journal(dir.write("results.jsonl", json(kHeader).dump() + "\n" + line.dump() + "\n")), JournalError);
}

TEST(Journal, SomethingElseIsRefused) {
  test::TempDir dir;
  EXPECT_THROW(read_journal(dir.write("results.jsonl", "{\"schema\":\"hkcheck-results\"}\n")), JournalError);
  EXPECT_THROW(read_journal(dir.write("empty.jsonl", "")), JournalError);
  EXPECT_THROW(read_journal(dir.path() + "/missing.jsonl"), JournalError);
}

// A journal planted in --out as a link to a file elsewhere: a new run replaces the link, a resumed
// one refuses it; neither truncates nor appends to what it points at.
TEST(Journal, NeverWrittenThroughALink) {
  test::TempDir dir;
  const std::string victim = dir.write("elsewhere/file", "precious\n");
  const std::string path = dir.path() + "/results.jsonl";
  std::filesystem::create_symlink(victim, path);
  EXPECT_THROW(JournalWriter(path, kHeader, true), JournalError);
  EXPECT_EQ(test::slurp(victim), "precious\n");
  { JournalWriter w(path, kHeader, false); }
  EXPECT_EQ(test::slurp(victim), "precious\n");
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  EXPECT_EQ(read_journal(path).header.spec.seed, 3u);
}

// A line is valid UTF-8 whatever bytes a kernel's output put in a message.
TEST(Journal, LinesAreUtf8) {
  test::TempDir dir;
  const std::string path = dir.path() + "/results.jsonl";
  {
    JournalWriter w(path, kHeader, false);
    JournaledCase c = result("a", Status::CRASH);
    c.result.message = "its output: \xff";
    w.append(c);
  }
  EXPECT_EQ(read_journal(path).cases.at(0).result.message, "its output: \\xff");
}

}  // namespace
}  // namespace hk
