// MD2 (RFC 1319) and HMAC-MD2 (RFC 2104 over MD2's 16-byte block): the keyed hash by which the
// CUDA runtime checks that the driver it loaded answers its private interface (see
// driver_tables.cpp). Nothing else in warpsim uses MD2; it is not for security.
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpsim::cudart {

class Md2 {
 public:
  void update(const void* data, size_t n);
  void finish(uint8_t digest[16]);

 private:
  void compress();
  uint8_t state_[16] = {}, checksum_[16] = {}, block_[16] = {};
  unsigned filled_ = 0;
};

// HMAC-MD2 of msg with a key of exactly one block (16 bytes).
void hmac_md2(const uint8_t key[16], const void* msg, size_t n, uint8_t out[16]);

}  // namespace warpsim::cudart
