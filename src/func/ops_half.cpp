// Placeholder: the half instruction family registers its decoders here.
#include "func/decode.hpp"

namespace warpsim::func {
void register_half_ops() {}
}  // namespace warpsim::func
