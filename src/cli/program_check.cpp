#include "cli/program_check.hpp"

#include "cudart/elf64.hpp"

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

using cudart::elf64::le;
constexpr int64_t kDtNull = 0, kDtNeeded = 1;
// Sections and dynamic tables larger than this are not an executable nvcc linked; give up.
constexpr uint64_t kMaxTable = uint64_t(64) << 20;

class Image {
 public:
  explicit Image(std::istream& in) : in_(in) {
    in_.seekg(0, std::ios::end);
    size_ = in_ ? uint64_t(std::max<std::streamoff>(in_.tellg(), 0)) : 0;
  }
  uint64_t size() const { return size_; }
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

}  // namespace

CudaRuntimeLink inspect_program(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return CudaRuntimeLink::unknown;
  return inspect_image(in);
}

CudaRuntimeLink inspect_image(std::istream& in) {
  Image f(in);
  cudart::elf64::Table table;
  std::string err;
  // Sections past the end are tolerated (a stripped or truncated file): only those read are checked.
  auto read = [&](uint64_t off, uint64_t n, std::vector<uint8_t>& out) { return f.read(off, n, out); };
  if (!cudart::elf64::read_sections(read, f.size(), table, err, false)) return CudaRuntimeLink::unknown;
  const auto& secs = table.sections;
  const uint64_t shnum = secs.size();
  std::vector<uint8_t> names;
  if (!f.read(secs[table.names].offset, secs[table.names].size, names)) return CudaRuntimeLink::unknown;
  auto name_of = [&](uint32_t off) { return cudart::elf64::string_at(names.data(), names.size(), off); };
  bool fatbin = false, cudart = false;
  for (const auto& s : secs) {
    const std::string n = name_of(s.name);
    if (n == ".nv_fatbin" || n == ".nvFatBinSegment") fatbin = true;
    if (s.type != cudart::elf64::kShtDynamic || s.link >= shnum) continue;
    std::vector<uint8_t> dyn, str;
    if (!f.read(s.offset, s.size, dyn) || !f.read(secs[s.link].offset, secs[s.link].size, str))
      return CudaRuntimeLink::unknown;
    for (size_t o = 0; o + 16 <= dyn.size(); o += 16) {
      const auto tag = int64_t(le(&dyn[o], 8));
      if (tag == kDtNull) break;
      const uint64_t val = le(&dyn[o + 8], 8);
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
