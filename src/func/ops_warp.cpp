// Placeholder: the warp instruction family registers its decoders here.
#include "func/decode.hpp"

namespace warpsim::func {
void register_warp_ops() {}
}  // namespace warpsim::func
