// Placeholder: the float instruction family registers its decoders here.
#include "func/decode.hpp"

namespace warpsim::func {
void register_float_ops() {}
}  // namespace warpsim::func
