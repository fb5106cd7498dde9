// The backend table (platform/backend_table.h): every name a row gives is its own, each lookup
// finds the row it names, and what reads the table (compile targets, sections, options, the
// prelude) agrees with it.
#include "platform/backend_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/allowed_options.h"
#include "model/compile_target.h"
#include "platform/backend.h"
#include "platform/compiler.h"
#include "platform/targets.h"

namespace hk {
namespace {

TEST(BackendTable, NamesAreUniqueAndEachLookupFindsItsRow) {
  std::set<std::string> names, vendors, compilers, macros;
  for (const BackendRow& r : backend_table()) {
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_TRUE(compilers.insert(r.compiler).second) << r.compiler;
    EXPECT_TRUE(macros.insert(r.macro).second) << r.macro;
    EXPECT_EQ(find_backend(r.name), &r);
    EXPECT_EQ(&backend_row(r.name), &r);
    EXPECT_EQ(&backend_row(r.id), &r);
    EXPECT_EQ(backend_for_compiler(r.compiler), &r);
    if (*r.source_vendor) {
      EXPECT_TRUE(vendors.insert(r.source_vendor).second) << r.source_vendor;
      EXPECT_EQ(backend_for_source_vendor(r.source_vendor), &r);
    }
    if (*r.arch_prefix) EXPECT_EQ(backend_for_arch(std::string(r.arch_prefix) + "90"), &r);
  }
  EXPECT_EQ(find_backend("auto"), nullptr);
  EXPECT_THROW(backend_row("rocm"), std::invalid_argument);
}

TEST(BackendTable, EveryBuiltRowOpensAndNoOtherDoes) {
  std::vector<std::string> built;
  for (const BackendRow& r : backend_table()) {
    if (r.built) built.push_back(r.name);
    else EXPECT_THROW(open_backend(r.name, 0), BackendUnavailable) << r.name;
  }
  EXPECT_EQ(backend_names(), built);
  EXPECT_THROW(open_backend("rocm", 0), BackendUnavailable);
  EXPECT_THROW(open_compiler("rocm", "gfx942"), BackendUnavailable);
  EXPECT_NE(open_compiler(host_backend().name, "sm_90"), nullptr);  // the host's compiler is always built
}

TEST(BackendTable, OneRowRunsOnTheCpuAndComesLast) {
  int cpu = 0;
  for (const BackendRow& r : backend_table()) cpu += r.cpu;
  EXPECT_EQ(cpu, 1);
  EXPECT_EQ(&host_backend(), &backend_table().back());  // --backend auto tries every GPU first
  EXPECT_TRUE(on_cpu(host_backend().name));
  EXPECT_FALSE(on_cpu("a test double's backend"));
  EXPECT_EQ(backend_names().back(), host_backend().name);
}

TEST(BackendTable, EveryTargetBelongsToTheRowItsArchNames) {
  for (const Target& t : targets()) {
    ASSERT_NE(backend_for_arch(t.arch), nullptr) << t.arch;
    EXPECT_EQ(backend_for_arch(t.arch)->id, t.backend) << t.arch;
  }
}

TEST(BackendTable, SectionsAndCompileTargetsFollowTheRows) {
  for (const BackendRow& r : backend_table()) {
    EXPECT_EQ(section_kind(r.compiler), SectionKind::compiler) << r.compiler;
    if (*r.source_vendor) EXPECT_EQ(section_kind(r.source_vendor), SectionKind::vendor) << r.source_vendor;
  }
  for (const Target& t : targets()) {
    const CompileTarget c = compile_only_target(t.arch);
    EXPECT_EQ(c.vendor, backend_row(t.backend).source_vendor) << t.arch;
    EXPECT_EQ(c.compiler, backend_row(t.backend).compiler) << t.arch;
  }
  // A host run compiles the vendor its profile's target belongs to, with the host's compiler.
  const CompileTarget h = run_target(host_backend().name, "gfx942", "");
  EXPECT_EQ(h.vendor, backend_row(BackendId::hip).source_vendor);
  EXPECT_EQ(h.compiler, host_backend().compiler);
}

TEST(BackendTable, EachRowsCompilerIsNamedInItsRefusals) {
  for (const BackendRow& r : backend_table()) {
    const auto refused = refused_option({"--no-such-option-anywhere"}, r.name);
    ASSERT_TRUE(refused) << r.name;
    EXPECT_NE(refused->message.find(r.compiler_title), std::string::npos) << refused->message;
  }
}

TEST(BackendTable, EveryPreludeSetARowNamesHoldsTheCommonHeaders) {
  const size_t common = prelude_headers("").size();
  ASSERT_GT(common, 0u);
  for (const BackendRow& r : backend_table()) {
    EXPECT_GE(prelude_headers(r.prelude).size(), common) << r.name;
    EXPECT_GE(prelude_headers(r.keyed_prelude).size(), prelude_headers(r.prelude).size()) << r.name;  // the key covers the compile
  }
}

}  // namespace
}  // namespace hk
