// A child process started with posix_spawn (never a bare fork: a process that has touched a GPU
// library cannot fork a child that uses one), with a pipe to its stdin, a protocol pipe it
// writes lines to, and its stdout+stderr captured. It runs in its own process group so that a
// kill reaches anything it started.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace hk {

struct ExitStatus {
  bool exited = false;  // normal exit with code
  int code = 0;
  bool signaled = false;
  int signal = 0;
  std::string describe() const;  // "exit code 3", "signal 11 (SIGSEGV)"
};

class Subprocess {
 public:
  // argv[0] is the program path. protocol_fd is the descriptor number the child writes its
  // protocol lines to (passed to it in argv by the caller). env: "NAME=value" entries that
  // replace or add to this process's environment for the child. Throws std::runtime_error.
  Subprocess(const std::vector<std::string>& argv, int protocol_fd, const std::vector<std::string>& env = {});
  ~Subprocess();  // kills and reaps the child if still running
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  enum class Read { line, eof, timeout };
  static constexpr size_t kMaxProtocolLine = size_t{256} << 20;
  // Next protocol line (without '\n'), waiting until deadline; output is drained meanwhile.
  // Throws std::runtime_error when more than kMaxProtocolLine bytes come without a line end.
  Read read_line(std::string& line, std::chrono::steady_clock::time_point deadline);
  // The same, looking every 100 ms at most whether to give up: stop() true ends the wait with
  // Read::timeout before the deadline (a run interrupted, a memory limit crossed). Every parent
  // of a worker waits for its answers this way.
  Read read_line_unless(std::string& line, std::chrono::steady_clock::time_point deadline, const std::function<bool()>& stop);
  bool write_line(const std::string& line);
  void close_stdin();

  void kill();                // SIGKILL to the whole process group
  ExitStatus wait();          // reaps; idempotent
  // Waits up to timeout for the child to exit by itself; true if it did.
  bool wait_for(std::chrono::milliseconds timeout);
  std::string output_tail(size_t max_bytes) const;  // last bytes of stdout+stderr
  pid_t pid() const { return pid_; }

 private:
  void drain(int timeout_ms);
  void record_exit(int wait_status);
  pid_t pid_ = -1;
  int stdin_fd_ = -1, proto_fd_ = -1, out_fd_ = -1;
  std::string proto_buf_, output_;
  size_t proto_start_ = 0;     // where proto_buf_'s next line starts (lines before it are taken)
  size_t proto_searched_ = 0;  // proto_buf_'s bytes already searched for a line end (>= proto_start_)
  bool reaped_ = false;
  ExitStatus status_;
};

}  // namespace hk
