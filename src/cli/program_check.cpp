#include "cli/program_check.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace warpsim::cli {
namespace {

// ELF64 little-endian layout (System V gABI); read field by field so that no struct padding or
// host byte order matters.
constexpr uint32_t kShtDynamic = 6;
constexpr int64_t kDtNull = 0, kDtNeeded = 1;
// Sections and dynamic tables larger than this are not an executable nvcc linked; give up.
constexpr uint64_t kMaxTable = uint64_t(64) << 20;

class Image {
 public:
  explicit Image(std::istream& in) : in_(in) {
    in_.seekg(0, std::ios::end);
    size_ = in_ ? uint64_t(std::max<std::streamoff>(in_.tellg(), 0)) : 0;
  }
  // Bytes [off, off + n), or false when they are not all in the image.
  bool read(uint64_t off, uint64_t n, std::vector<uint8_t>& out) {
    if (off > size_ || n > size_ - off || n > kMaxTable) return false;
    out.resize(n);
    in_.clear();
    in_.seekg(std::streamoff(off));
    return n == 0 || bool(in_.read(reinterpret_cast<char*>(out.data()), std::streamsize(n)));
  }

 private:
  std::istream& in_;
  uint64_t size_ = 0;
};

uint64_t le(const std::vector<uint8_t>& b, size_t off, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | b[off + size_t(i)];
  return v;
}

struct Section {
  uint32_t name, type;
  uint64_t offset, size, entsize;
  uint32_t link;
};

}  // namespace

CudaRuntimeLink inspect_program(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return CudaRuntimeLink::unknown;
  return inspect_image(in);
}

CudaRuntimeLink inspect_image(std::istream& in) {
  Image f(in);
  std::vector<uint8_t> eh;
  if (!f.read(0, 64, eh)) return CudaRuntimeLink::unknown;
  if (std::memcmp(eh.data(), "\x7f" "ELF", 4) != 0 || eh[4] != 2 /*ELFCLASS64*/ || eh[5] != 1 /*LSB*/)
    return CudaRuntimeLink::unknown;
  const uint64_t shoff = le(eh, 0x28, 8);
  const uint64_t shentsize = le(eh, 0x3a, 2), shnum = le(eh, 0x3c, 2), shstrndx = le(eh, 0x3e, 2);
  if (shoff == 0 || shnum == 0 || shentsize < 64 || shstrndx >= shnum) return CudaRuntimeLink::unknown;
  std::vector<uint8_t> raw;
  if (!f.read(shoff, shnum * shentsize, raw)) return CudaRuntimeLink::unknown;
  std::vector<Section> secs(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const size_t o = size_t(i * shentsize);
    secs[i] = {uint32_t(le(raw, o, 4)),        uint32_t(le(raw, o + 4, 4)), le(raw, o + 0x18, 8),
               le(raw, o + 0x20, 8),           le(raw, o + 0x38, 8),        uint32_t(le(raw, o + 0x28, 4))};
  }
  std::vector<uint8_t> names;
  if (!f.read(secs[shstrndx].offset, secs[shstrndx].size, names)) return CudaRuntimeLink::unknown;
  auto name_of = [&](uint32_t off) -> std::string {
    if (off >= names.size()) return {};
    const auto* s = reinterpret_cast<const char*>(names.data()) + off;
    return std::string(s, strnlen(s, names.size() - off));
  };
  bool fatbin = false, cudart = false;
  for (const auto& s : secs) {
    const std::string n = name_of(s.name);
    if (n == ".nv_fatbin" || n == ".nvFatBinSegment") fatbin = true;
    if (s.type != kShtDynamic || s.link >= shnum) continue;
    std::vector<uint8_t> dyn, str;
    if (!f.read(s.offset, s.size, dyn) || !f.read(secs[s.link].offset, secs[s.link].size, str))
      return CudaRuntimeLink::unknown;
    for (size_t o = 0; o + 16 <= dyn.size(); o += 16) {
      const auto tag = int64_t(le(dyn, o, 8));
      if (tag == kDtNull) break;
      const uint64_t val = le(dyn, o + 8, 8);
      if (tag != kDtNeeded || val >= str.size()) continue;
      const auto* lib = reinterpret_cast<const char*>(str.data()) + val;
      if (std::strncmp(lib, "libcudart.so", std::strlen("libcudart.so")) == 0) cudart = true;
    }
  }
  if (!fatbin) return CudaRuntimeLink::no_device_code;
  return cudart ? CudaRuntimeLink::shared : CudaRuntimeLink::static_runtime;
}

std::string resolve_program(const std::string& name) {
  auto runnable = [](const std::string& p) {
    struct stat st{};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.empty()) return {};
  if (name.find('/') != std::string::npos) return runnable(name) ? name : std::string();
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    if (const std::string cand = dir + "/" + name; runnable(cand)) return cand;
    start = end + 1;
  }
  return {};
}

}  // namespace warpsim::cli
