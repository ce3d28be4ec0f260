// The commit groups of a warp's warpgroup MMAs (PTX ISA 8.7, 9.7.15.7: wgmma.commit_group,
// wgmma.wait_group). Unlike cp.async copies, whose landing the memory system reports later, a
// wgmma's completion cycle is known when it issues (its tensor core's queue and rate decide it), so
// a group is just the latest completion cycle of its MMAs. wait_group N waits for every group but
// the N newest committed ones.
#pragma once

#include <algorithm>
#include <cstdint>

#include "timing/fifo.hpp"

namespace warpsim::timing {

class WgmmaGroups {
 public:
  // An MMA joins the open group (opening one if none is); it is done at cycle `done`.
  void add(uint64_t done) {
    open_done_ = open_ ? std::max(open_done_, done) : done;
    open_ = true;
  }
  // commit_group: closes the open group (an empty one when none is open: complete at once).
  void commit() {
    committed_.push_back(open_ ? open_done_ : 0);
    open_ = false;
    // Groups older than any wait_group may name only matter through their latest cycle.
    while (committed_.size() > kKept) {
      retired_ = std::max(retired_, committed_.front());
      committed_.pop_front();
    }
  }
  // The cycle wait_group n is satisfied: all but the n newest committed groups are done. MMAs of
  // the open group are not waited for (the ISA leaves waiting on uncommitted wgmmas undefined).
  uint64_t ready(uint32_t n) const {
    uint64_t at = retired_;
    const size_t must = committed_.size() > n ? committed_.size() - n : 0;
    for (size_t i = 0; i < must; ++i) at = std::max(at, committed_[i]);
    return at;
  }

 private:
  // wait_group N is exact for N < kKept (kernels keep one or two groups in flight); a larger N waits
  // for the older groups too.
  static constexpr size_t kKept = 32;
  Fifo<uint64_t> committed_;             // done cycle per committed group, oldest first
  uint64_t open_done_ = 0;
  bool open_ = false;
  uint64_t retired_ = 0;
};

}  // namespace warpsim::timing
