// What a host worker and its kernel process (kernel_process.h) say to each other: one request,
// one reply, each a packet of a SOCK_SEQPACKET socket pair. A library or a buffer travels as a
// descriptor beside its packet. No message carries a verdict: the worker judges the buffers.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>

namespace hk::host {

enum class KernelOp : uint32_t { load, map, unmap, launch, time };

constexpr int kMaxKernelArgs = 256;
constexpr size_t kMaxArgumentBytes = 32764;  // all of a launch's arguments together, as CUDA allows

struct KernelRequest {
  KernelOp op = KernelOp::launch;
  uint32_t seq = 0;
  uint64_t handle = 0;  // launch, time: the kernel (load's reply); unmap: the buffer's device address
  uint64_t bytes = 0;   // load: the library's size; map: the buffer's
  int64_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int64_t shared_bytes = 0;
  int32_t launches = 0;  // time: how many launches to time
  int32_t nargs = 0;
  uint64_t args[kMaxKernelArgs] = {};  // launch, time: each argument's size in bytes
};  // a load's packet ends with the entry's symbol; a launch's with its arguments' bytes, in order

// race: a RaceReport as JSON follows; finding: a LaunchFinding's text
enum class KernelReplyCode : int32_t { ok, error, sticky, missing_entry, race, finding };

struct KernelReply {
  uint32_t seq = 0;
  KernelReplyCode code = KernelReplyCode::ok;
  uint64_t value = 0;  // load: the kernel's handle; map: the buffer's device address
  int32_t times = 0;   // time: how many doubles (ms) follow
};  // then the times, then the error text

// head's bytes, then tail: one packet.
template <class Head>
std::string pack(const Head& head, const std::string& tail = {}) {
  std::string bytes(reinterpret_cast<const char*>(&head), sizeof head);
  return bytes + tail;
}
// False when the packet is shorter than a Head.
template <class Head>
bool unpack(const std::string& bytes, Head& head, std::string& tail) {
  if (bytes.size() < sizeof head) return false;
  bytes.copy(reinterpret_cast<char*>(&head), sizeof head);
  tail = bytes.substr(sizeof head);
  return true;
}

// Sends one packet, with fd beside it when fd >= 0. False when the peer is gone.
bool send_packet(int sock, const std::string& bytes, int fd = -1);
// Receives one packet (waits for it): its size, 0 when the peer is gone, -1 on error or a packet
// over the largest there is. *fd gets the descriptor that came with it, or -1.
ssize_t recv_packet(int sock, std::string& bytes, int* fd);

}  // namespace hk::host
