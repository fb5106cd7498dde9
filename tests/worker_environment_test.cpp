// A worker, and so a kernel, sees the variables that find the tools and the GPU and hkcheck's own,
// never the rest of hkcheck's environment (a CI's tokens).
#include "process/worker_environment.h"

#include <gtest/gtest.h>

namespace hk {
namespace {

TEST(WorkerEnvironment, KeepsWhatFindsTheToolsAndTheGpuAndDropsTheRest) {
  std::vector<std::string> entries = {"PATH=/usr/bin", "LD_LIBRARY_PATH=/usr/local/cuda/lib64", "CUDA_VISIBLE_DEVICES=0", "LC_ALL=C",
                                      "HKCHECK_AUDIT_TAG=t", "OPENBLAS_CORETYPE=Haswell", "HIP_PATH=/opt/rocm", "CXX=g++",
                                      "GITHUB_TOKEN=ghp_secret", "AWS_SECRET_ACCESS_KEY=k", "SSH_AUTH_SOCK=/tmp/s", "MY_PASSWORD=p"};
  std::vector<char*> environ;
  for (std::string& e : entries) environ.push_back(e.data());
  environ.push_back(nullptr);
  const std::vector<std::string> env = worker_environment(environ.data(), {"HKCHECK_WORKER=1", "PATH=/bin"});
  for (const char* kept : {"LD_LIBRARY_PATH=/usr/local/cuda/lib64", "CUDA_VISIBLE_DEVICES=0", "LC_ALL=C", "HKCHECK_AUDIT_TAG=t",
                           "OPENBLAS_CORETYPE=Haswell", "HIP_PATH=/opt/rocm", "CXX=g++", "HKCHECK_WORKER=1", "PATH=/bin"})
    EXPECT_NE(std::find(env.begin(), env.end(), kept), env.end()) << kept;
  for (const std::string& e : env) {
    EXPECT_EQ(e.find("secret"), std::string::npos) << e;
    EXPECT_NE(e.rfind("SSH_AUTH_SOCK", 0), 0u) << e;
    EXPECT_NE(e.rfind("MY_PASSWORD", 0), 0u) << e;
    EXPECT_NE(e, "PATH=/usr/bin") << "the override replaces it";
  }
}

TEST(WorkerEnvironment, ComputeSanitizersInjectionPasses) {
  EXPECT_TRUE(passes_to_workers("CUDA_INJECTION64_PATH"));
  EXPECT_TRUE(passes_to_workers("NV_SANITIZER_SOMETHING"));
  EXPECT_TRUE(passes_to_workers("LD_PRELOAD"));
  EXPECT_FALSE(passes_to_workers("NPM_TOKEN"));
}

}  // namespace
}  // namespace hk
