// libFuzzer target for the readers of a program's device code (src/cudart): any bytes as a fatbin
// container (parse_fatbin, bounded by the input's size; the payloads it decompresses) and as an ELF
// cubin (read_cubin_resources) and as an ELF image of unknown size (elf64::image_extent, reading
// through a callback that traps past the input). Must never crash, read out of bounds, leak or hang; a rejected
// input comes with an error message.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cudart/cubin.hpp"
#include "cudart/elf64.hpp"
#include "cudart/fatbin.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > (1u << 20)) return 0;
  std::vector<warpsim::cudart::FatbinEntry> entries;
  std::string err;
  uint64_t consumed = 0;
  if (!warpsim::cudart::parse_fatbin(data, size, entries, err, &consumed)) {
    if (err.empty()) __builtin_trap();
  } else if (consumed > size) {
    __builtin_trap();  // it read past the bytes it was given
  }
  (void)warpsim::cudart::best_ptx(entries, 80);
  std::map<std::string, warpsim::cudart::KernelResources> res;
  std::string cerr;
  if (!warpsim::cudart::read_cubin_resources(data, size, res, cerr) && cerr.empty()) __builtin_trap();
  // The extent of a sizeless image is read from its headers: no read may leave the image it claims
  // (here: the input, which the reader does not know).
  auto read = [&](uint64_t off, uint64_t n, std::vector<uint8_t>& out) {
    if (off > size || n > size - off) return false;
    out.assign(data + off, data + off + n);
    return true;
  };
  const uint64_t extent = warpsim::cudart::elf64::image_extent(read, uint64_t(1) << 30);
  if (extent > (uint64_t(1) << 30) + (uint64_t(1) << 20)) __builtin_trap();
  return 0;
}
