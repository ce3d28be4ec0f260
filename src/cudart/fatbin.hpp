// Reading the device code that nvcc embeds in a host program.
//
// Format (found by experiment with CUDA 13.0 nvcc; see docs/architecture.md "Fatbinaries"):
//   __fatBinC_Wrapper_t (section .nvFatBinSegment), what __cudaRegisterFatBinary receives:
//     int32 magic 0x466243B1; int32 version; const uint64* data; void* filename_or_fatbins
//     version 1: data is a fatbin container with this translation unit's code
//     version 2 (CUDA 13 default, nvlink'ed "linked binary"): data holds the device-linked cubin
//       only; filename_or_fatbins is a NULL-terminated array of the per-TU fatbin containers
//       (the prelinked objects), which hold the PTX.
//   fatbin container (section .nv_fatbin, 8-aligned): uint32 magic 0xBA55ED50; uint16 version (1);
//     uint16 header size (16); uint64 size of the entries that follow.
//   entry: uint16 kind (1 PTX, 2 ELF cubin); uint16 (0x0101); uint32 header size (0x40 ELF,
//     0x50 PTX); uint64 payload size (padded); uint32 compressed size (0 if not compressed);
//     uint32 (0x40 for PTX); uint16 minor, uint16 major (PTX ISA 9.0, or ELF 1.8); uint32 arch
//     (80 = sm_80/compute_80); uint32 name offset, uint32 name size; uint64 flags (0x1 64-bit,
//     0x10 linux, 0x2000 LZ4-compressed, 0x8000 zstd-compressed); uint64 0; uint64 uncompressed
//     size. The payload follows the header.
// CUDA 13 compresses PTX with zstd by default (-Xfatbin -compress-mode=speed gives LZ4, which is
// what older toolkits used); -Xfatbin -compress-all also compresses the ELF images.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace warpsim::cudart {

constexpr uint32_t kWrapperMagic = 0x466243B1;
constexpr uint32_t kFatbinMagic = 0xBA55ED50;

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2 };

struct FatbinEntry {
  EntryKind kind;
  uint32_t arch = 0;                 // 80 for sm_80 / compute_80
  uint16_t major = 0, minor = 0;     // PTX ISA version (PTX) or ELF code version
  uint64_t flags = 0;
  bool compressed = false;
  std::vector<uint8_t> payload;      // decompressed
  std::string error;                 // why the payload could not be decompressed
};

constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;

// Parses one fatbin container (header + entries) starting at data; `limit` bounds the bytes that
// may be read (0: trust the header's size). Appends entries; returns false with `err` on
// malformed input. Returns the container's total size through `consumed`.
bool parse_fatbin(const uint8_t* data, uint64_t limit, std::vector<FatbinEntry>& out, std::string& err,
                  uint64_t* consumed = nullptr);

// The containers reachable from a __fatBinC_Wrapper_t (version 1 or 2), one entry list each
// (each container is one translation unit's code, or the device-linked cubin).
using Container = std::vector<FatbinEntry>;
bool parse_wrapper(const void* wrapper, std::vector<Container>& out, std::string& err);

// The PTX to run on a device of compute capability `arch` (80): the highest PTX arch <= arch.
// Null if there is none.
const FatbinEntry* best_ptx(const std::vector<FatbinEntry>& entries, uint32_t arch);

// Decompressors (decompress.cpp). False with err on corrupt input.
bool lz4_block_decompress(const uint8_t* src, size_t n, uint8_t* dst, size_t cap, size_t& produced,
                          std::string& err);
bool zstd_decompress(const uint8_t* src, size_t n, uint8_t* dst, size_t cap, size_t& produced, std::string& err);

}  // namespace warpsim::cudart
