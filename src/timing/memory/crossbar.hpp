// The crossbar between the GPCs and the L2 slices: a port per GPC and a port per slice in each
// direction, each moving a fixed number of bytes per cycle. A message leaves its source port, takes
// the wire latency, and passes its destination port. Busy-until reservations: messages are sent
// in time order, so each port serves them first come, first served.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warpsim::timing {

class Crossbar {
 public:
  void configure(uint32_t gpcs, uint32_t slices, uint32_t latency, uint32_t gpc_bytes_per_clk, uint32_t slice_bytes_per_clk) {
    lat_ = latency;
    gpc_bw_ = std::max<uint32_t>(1, gpc_bytes_per_clk);
    slice_bw_ = std::max<uint32_t>(1, slice_bytes_per_clk);
    gpc_up_.assign(gpcs, 0);
    gpc_down_.assign(gpcs, 0);
    slice_in_.assign(slices, 0);
    slice_out_.assign(slices, 0);
  }
  // A message of `bytes` from GPC g to slice s, ready to leave at t: the cycle it arrives.
  uint64_t to_slice(uint32_t g, uint32_t s, uint32_t bytes, uint64_t t) {
    return cross(gpc_up_[g], gpc_bw_, slice_in_[s], slice_bw_, bytes, t);
  }
  // From slice s back to GPC g.
  uint64_t to_gpc(uint32_t s, uint32_t g, uint32_t bytes, uint64_t t) {
    return cross(slice_out_[s], slice_bw_, gpc_down_[g], gpc_bw_, bytes, t);
  }
  void reset() {
    std::fill(gpc_up_.begin(), gpc_up_.end(), 0);
    std::fill(gpc_down_.begin(), gpc_down_.end(), 0);
    std::fill(slice_in_.begin(), slice_in_.end(), 0);
    std::fill(slice_out_.begin(), slice_out_.end(), 0);
  }

 private:
  // The source port sends when it is free; the message crosses the wires and waits, buffered, for
  // the destination port. Ports do not hold each other: a busy slice does not idle a GPC's port.
  // Port state is kept in bytes (cycle x bytes per cycle), so messages smaller than a port's
  // width share its cycle: a 512 B/clk port passes 32 16-byte requests per cycle.
  uint64_t cross(uint64_t& a, uint32_t abw, uint64_t& b, uint32_t bbw, uint32_t bytes, uint64_t t) {
    a = std::max(t * abw, a) + bytes;
    uint64_t sent = (a + abw - 1) / abw;  // the cycle its last byte leaves
    b = std::max((sent + lat_) * bbw, b) + bytes;
    return (b + bbw - 1) / bbw;
  }
  uint32_t lat_ = 0, gpc_bw_ = 1, slice_bw_ = 1;
  std::vector<uint64_t> gpc_up_, gpc_down_, slice_in_, slice_out_;
};

}  // namespace warpsim::timing
