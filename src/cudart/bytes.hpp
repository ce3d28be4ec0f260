// Little-endian field reads from binary blobs (fatbinary containers, ELF cubins).
#pragma once

#include <cstdint>
#include <cstring>

namespace warpsim::cudart {

template <class T>
T rd(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace warpsim::cudart
