// Immediate post-dominators of branches, for the pre-Volta SIMT reconvergence stack (G80 seed:
// "a branch synchronization stack"): a warp that diverges at a branch re-converges at the branch's
// immediate post-dominator.
#pragma once

#include <cstdint>
#include <vector>

#include "func/program.hpp"

namespace warpsim::func {

// For every code index, the reconvergence pc of a branch there (the first instruction of the
// immediate post-dominator block), or kNoReconvergence when the paths only meet at function exit.
constexpr uint32_t kNoReconvergence = ~0u;
std::vector<uint32_t> reconvergence_points(const Program& prog);

}  // namespace warpsim::func
