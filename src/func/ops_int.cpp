// Placeholder: the int instruction family registers its decoders here.
#include "func/decode.hpp"

namespace warpsim::func {
void register_int_ops() {}
}  // namespace warpsim::func
