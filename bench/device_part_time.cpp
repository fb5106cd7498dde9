// How long hkcheck's device-part extraction takes on a kernel file, and what it leaves out:
//   device_part_time [--hip] FILE [COMPILE OPTIONS...]
// prints the parse's wall time (the file's own parse, then its project headers'), the dropped
// declarations and whether the source changed. The options are the compile's (-D, -I, -isystem,
// -std=, --hiprtc-no-builtin-header), as a manifest would give them.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "compile/device_part.h"
#include "compile/device_part_headers.h"
#include "util/file_util.h"

int main(int argc, char** argv) {
  int a = 1;
  bool hip = false;
  if (a < argc && std::strcmp(argv[a], "--hip") == 0) hip = true, ++a;
  if (a >= argc) {
    std::fprintf(stderr, "usage: device_part_time [--hip] FILE [OPTIONS...]\n");
    return 2;
  }
  const std::string path = argv[a++];
  const std::vector<std::string> options(argv + a, argv + argc);
  try {
    const std::string source = hk::read_file(path, "kernel file");
    const auto t0 = std::chrono::steady_clock::now();
    hk::DevicePart part = hk::device_part(source, path, options, hip);
    const auto t1 = std::chrono::steady_clock::now();
    hk::put_in_project_headers(part, path, options, hip);
    const auto t2 = std::chrono::steady_clock::now();
    std::printf("%s: parse %.2f s, project headers %.2f s, %zu dropped, source %s\n", path.c_str(),
                std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(), part.dropped.size(),
                part.changed() ? "changed" : "as written");
    for (const std::string& d : part.dropped) std::printf("  dropped %s\n", d.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "device_part_time: %s\n", e.what());
    return 1;
  }
  return 0;
}
