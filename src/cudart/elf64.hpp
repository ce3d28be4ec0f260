// The section header table of an ELF64 little-endian image (System V gABI), read field by field
// (no struct padding or host byte order involved). Shared by the cubin reader (cubin.cpp, an
// image in memory) and `warpsim run`'s look at a program (src/cli/program_check.cpp, a file read
// piecewise); header-only so that the command need not link the runtime library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace warpsim::cudart::elf64 {

constexpr uint32_t kShtDynamic = 6, kShtNobits = 8;

struct Section {
  uint32_t name = 0, type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t align = 0, entsize = 0;
  // Whether its bytes are in the image (a NOBITS section has a size but no bytes).
  bool has_bytes() const { return type != kShtNobits; }
};

inline uint64_t le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

struct Table {
  std::vector<Section> sections;
  uint16_t names = 0;  // index of the section-name string table
};

// Reads the section headers through read(offset, n, bytes), which fails for bytes outside the
// image of `image_size` bytes. False with `err` on anything malformed: not ELF64 LSB, a header
// table outside the image, or (with sections_inside) a section with bytes that overruns it.
template <class Read>
bool read_sections(Read&& read, uint64_t image_size, Table& out, std::string& err, bool sections_inside = true) {
  std::vector<uint8_t> eh;
  if (!read(0, 64, eh) || std::memcmp(eh.data(), "\x7f" "ELF", 4) != 0 || eh[4] != 2 /*ELFCLASS64*/ ||
      eh[5] != 1 /*LSB*/) {
    err = "not a 64-bit little-endian ELF image";
    return false;
  }
  const uint64_t shoff = le(&eh[0x28], 8), shentsize = le(&eh[0x3a], 2), shnum = le(&eh[0x3c], 2),
                 shstrndx = le(&eh[0x3e], 2);
  std::vector<uint8_t> raw;
  if (shoff == 0 || shnum == 0 || shentsize < 64 || shstrndx >= shnum || shoff > image_size ||
      shnum * shentsize > image_size - shoff || !read(shoff, shnum * shentsize, raw)) {
    err = "bad section header table";
    return false;
  }
  out.sections.assign(shnum, Section{});
  out.names = uint16_t(shstrndx);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t* p = raw.data() + i * shentsize;
    Section& s = out.sections[i];
    s.name = uint32_t(le(p, 4));
    s.type = uint32_t(le(p + 4, 4));
    s.flags = le(p + 8, 8);
    s.addr = le(p + 16, 8);
    s.offset = le(p + 24, 8);
    s.size = le(p + 32, 8);
    s.link = uint32_t(le(p + 40, 4));
    s.info = uint32_t(le(p + 44, 4));
    s.align = le(p + 48, 8);
    s.entsize = le(p + 56, 8);
    if (sections_inside && s.has_bytes() && (s.offset > image_size || s.size > image_size - s.offset)) {
      err = "section overruns the image";
      return false;
    }
  }
  return true;
}

// The bytes an ELF image spans (its header tables and every section with bytes), for an
// image that comes without a size (cuModuleLoadData of a cubin); 0 if the headers are malformed or
// claim more than `limit` bytes.
template <class Read>
uint64_t image_extent(Read&& read, uint64_t limit) {
  Table t;
  std::string err;
  std::vector<uint8_t> eh;
  if (!read_sections(read, limit, t, err) || !read(0, 64, eh)) return 0;
  const uint64_t phoff = le(&eh[0x20], 8), phend = phoff + le(&eh[0x38], 2) * le(&eh[0x36], 2);
  if (phoff > limit || phend > limit) return 0;
  uint64_t end = std::max(le(&eh[0x28], 8) + le(&eh[0x3c], 2) * le(&eh[0x3a], 2), phend);
  for (const Section& s : t.sections)
    if (s.has_bytes()) end = std::max(end, s.offset + s.size);
  return end;
}

// The NUL-terminated string at `off` of a string table's bytes (empty when outside it).
inline std::string string_at(const uint8_t* table, uint64_t table_size, uint64_t off) {
  if (off >= table_size) return {};
  const auto* s = reinterpret_cast<const char*>(table) + off;
  return std::string(s, strnlen(s, size_t(table_size - off)));
}

}  // namespace warpsim::cudart::elf64
