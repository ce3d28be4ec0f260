// Placeholder: the cvt instruction family registers its decoders here.
#include "func/decode.hpp"

namespace warpsim::func {
void register_cvt_ops() {}
}  // namespace warpsim::func
