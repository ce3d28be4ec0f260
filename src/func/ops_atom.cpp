// Placeholder: the atom instruction family registers its decoders here.
#include "func/decode.hpp"

namespace warpsim::func {
void register_atom_ops() {}
}  // namespace warpsim::func
