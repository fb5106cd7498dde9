// The conventions a user brings from other test tools: -k expressions, -a sweep axes, the
// project found from a subfolder, option defaults from the environment and hkcheck.json, and
// fills of -inf / +inf / nan.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "model/axis_override.h"
#include "app/cli/command_line.h"
#include "app/cli/option_defaults.h"
#include "model/dtype.h"
#include "model/expr.h"
#include "select/keyword_expr.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "select/project.h"
#include "test_util.h"

namespace hk {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A -k nested 60,000 deep overflowed the stack (a segfault); now it is a usage error saying the bound.
TEST(KeywordExpr, ADeepOrLongExpressionIsRefusedNotACrash) {
  const auto error_of = [](const std::string& text) {
    try {
      KeywordExpr{text};
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const auto nested = [](int n) { return std::string(static_cast<size_t>(n), '(') + "M=1" + std::string(static_cast<size_t>(n), ')'); };
  EXPECT_NE(error_of(nested(60000)).find("at most 10000 are taken"), std::string::npos);
  EXPECT_NE(error_of(nested(3000)).find("nested more than 200 deep"), std::string::npos);
  std::string nots;
  for (int i = 0; i < 300; ++i) nots += "not ";
  EXPECT_NE(error_of(nots + "M=1").find("nested more than 200 deep"), std::string::npos);
  std::string chain = "a";
  for (int i = 0; i < 6000; ++i) chain += " or a";
  EXPECT_NE(error_of(chain).find("at most 10000 are taken"), std::string::npos);
  std::string fine = "(((rmsnorm)))";
  EXPECT_TRUE(KeywordExpr(fine).matches("rmsnorm/M=1")) << "ordinary nesting still works";
}

TEST(KeywordExpr, AndOrNotAndParenthesesAsPytestReadsThem) {
  const std::string id = "rmsnorm/D=4096,dtype=f16";
  EXPECT_TRUE(KeywordExpr("rmsnorm and f16").matches(id));
  EXPECT_FALSE(KeywordExpr("rmsnorm and not f16").matches(id));
  EXPECT_TRUE(KeywordExpr("gelu or D=4096").matches(id));
  EXPECT_FALSE(KeywordExpr("gelu or (D=4096 and bf16)").matches(id));
  EXPECT_TRUE(KeywordExpr("not (gelu or bf16)").matches(id));
  EXPECT_TRUE(KeywordExpr("rms* and not *bf16").matches(id)) << "words are globs as plain -k patterns are";
  EXPECT_TRUE(KeywordExpr("a or b and c").matches("x/a")) << "and binds tighter than or";
  EXPECT_FALSE(KeywordExpr("(a or b) and c").matches("x/a"));
}

TEST(KeywordExpr, WithoutAnOperatorTheWholeTextIsOnePattern) {
  EXPECT_TRUE(KeywordExpr("n=64 seed=3").matches("k/n=64 seed=3"));
  EXPECT_FALSE(KeywordExpr("n=64 seed=3").matches("k/n=64 seed=4"));
}

TEST(KeywordExpr, ABadExpressionSaysWhatIsWrong) {
  for (const char* bad : {"a and", "(a or b", "a b or c", "not", "and a", "a )"}) EXPECT_THROW(KeywordExpr{bad}, std::invalid_argument) << bad;
  try {
    KeywordExpr("a and");
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "-k 'a and': expected a word after 'and'");
  }
}

TEST(AxisOverride, ValuesAreNumbersOrStrings) {
  const AxisOverride a = parse_axis_override("N=[128, 256]");
  EXPECT_EQ(a.name, "N");
  EXPECT_EQ(a.values, json::parse("[128.0, 256.0]"));
  EXPECT_EQ(parse_axis_override("dtype=bf16").values, json::parse(R"(["bf16"])"));
  EXPECT_EQ(parse_axis_override("x=[f16,2.5]").values, json::parse(R"(["f16", 2.5])"));
  for (const char* bad : {"N", "=3", "N=", "N=[1,", "N=[1,,2]"}) EXPECT_THROW(parse_axis_override(bad), std::invalid_argument) << bad;
}

TEST(AxisOverride, ReplacesTheSweepsThatHaveTheAxis) {
  test::TempDir dir;
  dir.write("k.cu", "#include \"hkcheck.h\"\n");
  const json doc = json::parse(R"J({"hkcheck_manifest": 1, "kernels": [{
    "name": "copy_kernel", "source": "k.cu", "entry": "copy", "reference": "copy", "params": {"n": 100, "dtype": "f32"},
    "cases": [{"name": "small", "params": {"n": 7}}, {"sweep": {"n": [1, 1000], "dtype": ["f32", "bf16"]}}],
    "tensors": [{"name": "x", "dtype": "$dtype", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "$dtype", "shape": ["n"], "role": "out"}],
    "args": ["out", "x", {"dtype": "i32", "value": "n"}], "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}}]})J");
  const std::string file = dir.write("m.json", doc.dump());
  const ManifestLoad m = load_manifest(file, {parse_axis_override("n=[64,65]"), parse_axis_override("dtype=f16")});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  std::vector<std::string> names;
  for (const CaseSpec& c : m.kernels.at(0).cases) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"small", "dtype=f16,n=64", "dtype=f16,n=65"})) << "explicit cases stay";
  EXPECT_EQ(m.axes_applied, (std::set<std::string>{"dtype", "n"}));
  EXPECT_TRUE(load_manifest(file, {parse_axis_override("M=3")}).axes_applied.empty());
  AxisOverride elsewhere = parse_axis_override("n=5");
  elsewhere.kernels = {"other*"};
  EXPECT_TRUE(load_manifest(file, {elsewhere}).axes_applied.empty()) << "only the kernels named take it";
}

TEST(AxisOverride, TwoSweepsMadeTheSameRunOnceButAManifestsOwnDuplicateIsAnError) {
  test::TempDir dir;
  dir.write("k.cu", "#include \"hkcheck.h\"\n");
  json doc = json::parse(R"J({"hkcheck_manifest": 1, "kernels": [{
    "name": "k", "source": "k.cu", "entry": "copy", "reference": "copy", "params": {"n": 4, "dtype": "f32"},
    "cases": [{"sweep": {"n": [1, 2], "dtype": ["f32"]}}, {"sweep": {"n": [2], "dtype": ["bf16"]}}],
    "tensors": [{"name": "x", "dtype": "$dtype", "shape": ["n"], "role": "in", "init": {"kind": "normal"}},
                {"name": "out", "dtype": "$dtype", "shape": ["n"], "role": "out"}],
    "args": ["out", "x"], "launch": {"grid": [1], "block": [4]}}]})J");
  const std::string file = dir.write("m.json", doc.dump());
  const ManifestLoad m = load_manifest(file, {parse_axis_override("dtype=f16")});
  ASSERT_TRUE(m.errors.empty()) << m.errors[0];
  EXPECT_EQ(m.kernels.at(0).cases.size(), 2u);
  doc["kernels"][0]["cases"][1]["sweep"]["dtype"] = {"f32"};
  EXPECT_EQ(load_manifest(dir.write("m.json", doc.dump())).errors.size(), 1u) << "duplicate case name";
}

TEST(Fills, InfAndNanAreNumbersForAConstant) {
  EXPECT_EQ(eval_expr("-inf", {}), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(eval_expr("+inf", {}), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(eval_expr("nan", {})));
  EXPECT_EQ(eval_expr("inf", {{"inf", 3.0}}), 3) << "a parameter of that name wins";
}

TEST(Dtypes, SixteenBitIntegersRoundTripClampAndPoison) {
  EXPECT_EQ(parse_dtype("i16"), DType::i16);
  EXPECT_EQ(parse_dtype("u16"), DType::u16);
  EXPECT_EQ(dtype_size(DType::u16), 2u);
  EXPECT_FALSE(is_float(DType::i16));
  EXPECT_EQ(round_to_dtype(DType::i16, -40000), -32768);
  EXPECT_EQ(round_to_dtype(DType::u16, 70000), 65535);
  EXPECT_EQ(round_to_dtype(DType::u16, -3), 0);
  uint8_t b[2];
  encode(DType::i16, -2.6, b);
  EXPECT_EQ(decode(DType::i16, b), -3);
  write_poison(DType::u16, b);
  EXPECT_TRUE(is_poison(DType::u16, b));
  encode(DType::u16, 7, b);
  EXPECT_FALSE(is_poison(DType::u16, b));
}

// A project's manifest with one input of the given dtype and init: its load errors.
std::vector<std::string> fill_load_errors(const std::string& dtype, const json& init) {
  test::TempDir dir;
  dir.write("k.cu", "#include \"hkcheck.h\"\n");
  json doc = json::parse(R"J({"hkcheck_manifest": 1, "kernels": [{
    "name": "k", "source": "k.cu", "entry": "copy", "reference": "copy", "params": {"n": 4}, "cases": [{"name": "a"}],
    "tensors": [{"name": "x", "dtype": "f32", "shape": ["n"], "role": "in"},
                {"name": "out", "dtype": "f32", "shape": ["n"], "role": "out"}],
    "args": ["out", "x"], "launch": {"grid": [1], "block": [4]}}]})J");
  doc["kernels"][0]["tensors"][0]["dtype"] = dtype;
  doc["kernels"][0]["tensors"][0]["init"] = init;
  return load_manifest(dir.write("m.json", doc.dump())).errors;
}

TEST(Fills, MinusInfFillsAFloatTensorButNotAnIntegerOne) {
  EXPECT_TRUE(fill_load_errors("f32", {{"kind", "constant"}, {"value", "-inf"}}).empty());
  EXPECT_TRUE(fill_load_errors("bf16", {{"kind", "values"}, {"values", {"-inf", "+inf", "nan", 1}}}).empty());
  EXPECT_EQ(fill_load_errors("i32", {{"kind", "constant"}, {"value", "-inf"}}).size(), 1u);
  EXPECT_EQ(fill_load_errors("u32", {{"kind", "constant"}, {"value", 7}}).size(), 0u) << "u32 is a dtype";
  EXPECT_EQ(fill_load_errors("f32", {{"kind", "normal"}, {"mean", "inf"}}).size(), 1u) << "a distribution needs finite bounds";
}

// Runs f with the current folder at dir, then goes back.
template <class F>
void in_folder_at(const std::string& dir, F f) {
  const fs::path was = fs::current_path();
  fs::current_path(dir);
  f();
  fs::current_path(was);
}

TEST(Project, FoundByWalkingUpFromASubfolder) {
  test::TempDir dir;
  dir.write("manifests/m.json", "{}");
  dir.write("kernels/deep/er/k.cu", "");
  in_folder_at(dir.path() + "/kernels/deep/er", [&] {
    const ProjectPaths p = find_project("", "", "/nowhere/bin/hkcheck");
    EXPECT_EQ(fs::canonical(p.root), fs::canonical(dir.path()));
    EXPECT_EQ(fs::canonical(p.manifests), fs::canonical(dir.path() + "/manifests"));
  });
}

std::optional<int> parse_with_defaults(std::vector<std::string> args, Settings& s) {
  args.insert(args.begin(), "hkcheck");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), s);
}

// Sets an environment variable for one scope.
struct ConventionsEnv {
  std::string name;
  ConventionsEnv(std::string n, const std::string& value) : name(std::move(n)) { setenv(name.c_str(), value.c_str(), 1); }
  ~ConventionsEnv() { unsetenv(name.c_str()); }
};

TEST(OptionDefaults, CommandLineThenEnvironmentThenFileThenBuiltIn) {
  test::TempDir dir;
  dir.write("manifests/m.json", "{}");
  dir.write(kConfigFileName, R"({"defaults": {"jobs": 3, "timeout": 7, "tier": "all", "exclude": ["big", "huge"], "no-repro": true}})");
  Settings file_only;
  ASSERT_FALSE(parse_with_defaults({"--root", dir.path()}, file_only).has_value());
  EXPECT_EQ(file_only.jobs, 3);
  EXPECT_EQ(file_only.timeout, 7);
  EXPECT_EQ(file_only.tier, "all");
  EXPECT_EQ(file_only.select.excludes, (std::vector<std::string>{"big", "huge"}));
  EXPECT_TRUE(file_only.report.no_repro);
  EXPECT_EQ(file_only.seed, 0u) << "the built-in default where nothing says";
  EXPECT_FALSE(file_only.was_given("--jobs")) << "--resume takes only the command line's options as overrides";
  const ConventionsEnv timeout("HKCHECK_TIMEOUT", "9"), seed("HKCHECK_SEED", "5");
  Settings with_env;
  ASSERT_FALSE(parse_with_defaults({"--root", dir.path()}, with_env).has_value());
  EXPECT_EQ(with_env.timeout, 9);
  EXPECT_EQ(with_env.seed, 5u);
  EXPECT_EQ(with_env.jobs, 3);
  Settings with_flag;
  ASSERT_FALSE(parse_with_defaults({"--root", dir.path(), "--timeout", "4", "--jobs", "2"}, with_flag).has_value());
  EXPECT_EQ(with_flag.timeout, 4);
  EXPECT_EQ(with_flag.jobs, 2);
  Settings with_seeds;
  ASSERT_FALSE(parse_with_defaults({"--root", dir.path(), "--seeds", "0..2"}, with_seeds).has_value())
      << "HKCHECK_SEED gives way to --seeds, which excludes --seed";
  EXPECT_EQ(with_seeds.seeds, "0..2");
}

// A project's file travels with the project (a pull request can change it): where hkcheck writes,
// the cache it runs code from and the compiler it loads stay the command line's.
TEST(OptionDefaults, TheProjectFileCannotChooseWhereHkcheckWrites) {
  test::TempDir dir, elsewhere;
  dir.write("manifests/m.json", "{}");
  dir.write(kConfigFileName, R"({"defaults": {"jobs": 3, "out": ")" + elsewhere.path() + R"(/results", "junit": "/tmp/x.xml",
                                 "cache-dir": "/tmp/planted", "hiprtc-root": "/tmp/evil", "save-mutants": "/tmp/m"}})");
  Settings s;
  ASSERT_FALSE(parse_with_defaults({"--root", dir.path()}, s).has_value()) << "the run goes on";
  EXPECT_EQ(s.jobs, 3) << "the file's other defaults still apply";
  EXPECT_EQ(s.report.out_dir.find(elsewhere.path()), std::string::npos) << s.report.out_dir;
  EXPECT_EQ(s.report.junit_path, "");
  EXPECT_NE(s.cache_dir, "/tmp/planted");
  EXPECT_NE(s.hiprtc_root, "/tmp/evil");
}

TEST(OptionDefaults, ABadFileOrValueIsAUsageErrorNamingIt) {
  test::TempDir dir;
  dir.write("manifests/m.json", "{}");
  dir.write(kConfigFileName, R"({"defaults": {"jbos": 3}})");
  Settings s;
  EXPECT_EQ(parse_with_defaults({"--root", dir.path()}, s), 2);
  dir.write(kConfigFileName, R"({"defaults": {"jobs": "many"}})");
  Settings t;
  EXPECT_EQ(parse_with_defaults({"--root", dir.path()}, t), 2);
  std::string err;
  dir.write(kConfigFileName, R"({"defaults": {"jbos": 3}})");
  EXPECT_FALSE(default_arguments({}, dir.path() + "/" + kConfigFileName, [](const std::string&) { return false; }, &err));
  EXPECT_NE(err.find("/defaults/jbos: not an option"), std::string::npos) << err;
  dir.write(kConfigFileName, R"({"defaults": {"jobs": 3}})");
  const ConventionsEnv jobs("HKCHECK_JOBS", "200");
  Settings u;
  EXPECT_EQ(parse_with_defaults({"--root", dir.path() + "/manifests/.."}, u), 2) << "a value the option refuses";
}

// A bad value from the environment is named by its variable: the command line does not hold it.
TEST(OptionDefaults, ABadEnvironmentValueNamesTheVariable) {
  test::TempDir dir;
  dir.write("manifests/m.json", "{}");
  for (const auto& [name, value] : {std::pair<const char*, const char*>{"HKCHECK_JOBS", "abc"}, {"HKCHECK_SEED", "-1"}, {"HKCHECK_TIMEOUT", "-5"}}) {
    const ConventionsEnv bad(name, value);
    Settings s;
    testing::internal::CaptureStderr();
    const auto rc = parse_with_defaults({"--root", dir.path()}, s);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 2) << name;
    EXPECT_NE(err.find(std::string(name) + "=" + value + ": "), std::string::npos) << err;
  }
  Settings t;
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse_with_defaults({"--root", dir.path(), "--seed", "-1"}, t), 2) << "not 2^64-1";
  testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace hk
