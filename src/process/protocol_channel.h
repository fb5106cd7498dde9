// The child's end of a worker protocol: one JSON object per line on the protocol descriptor,
// flushed at once, so the parent sees each message as it is sent and never a kernel's printf.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "util/report_text.h"

namespace hk {

class ProtocolChannel {
 public:
  explicit ProtocolChannel(int fd) : out_(fdopen(fd, "w")) {}
  bool ok() const { return out_ != nullptr; }
  void send(const nlohmann::json& msg) {
    const std::string line = json_text(msg) + "\n";  // a compiler's log may hold any bytes
    fwrite(line.data(), 1, line.size(), out_);
    fflush(out_);
  }

 private:
  FILE* out_;
};

}  // namespace hk
