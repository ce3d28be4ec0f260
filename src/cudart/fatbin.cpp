#include "cudart/fatbin.hpp"
#include "cudart/bytes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace warpsim::cudart {

namespace {


constexpr uint64_t kMaxPayload = 1ull << 32;
// The most a compressed entry may claim to expand to, per compressed byte (plus a floor): LZ4
// blocks expand at most ~255x, and nvcc's PTX compresses 5-20x with zstd. A larger claim is a
// corrupt header, refused before its buffer is allocated (a 5 KB entry claiming 1.6 GB did).
constexpr uint64_t kMaxExpansion = 1024, kExpansionFloor = 1ull << 20;

}  // namespace

bool parse_fatbin(const uint8_t* data, uint64_t limit, std::vector<FatbinEntry>& out, std::string& err,
                  uint64_t* consumed) {
  if (limit && limit < 16) {
    err = "fatbin: truncated header";
    return false;
  }
  if (rd<uint32_t>(data) != kFatbinMagic) {
    err = fmt::format("fatbin: bad magic 0x{:08x} (expected 0x{:08x})", rd<uint32_t>(data), kFatbinMagic);
    return false;
  }
  const uint16_t hsize = rd<uint16_t>(data + 6);
  const uint64_t size = rd<uint64_t>(data + 8);
  if (hsize < 16 || size > kMaxPayload || (limit && hsize + size > limit)) {
    err = fmt::format("fatbin: bad header (header {} bytes, {} bytes of entries)", hsize, size);
    return false;
  }
  if (consumed) *consumed = hsize + size;
  const uint8_t* p = data + hsize;
  const uint8_t* end = p + size;
  while (p + 16 <= end) {
    const uint16_t kind = rd<uint16_t>(p);
    const uint32_t ehs = rd<uint32_t>(p + 4);
    const uint64_t psize = rd<uint64_t>(p + 8);
    if (ehs < 0x40 || ehs > uint64_t(end - p) || psize > uint64_t(end - p) - ehs) {
      err = fmt::format("fatbin: entry at offset {} overruns the container", p - data);
      return false;
    }
    FatbinEntry e;
    e.kind = EntryKind(kind);
    const uint32_t csize = rd<uint32_t>(p + 16);
    e.minor = rd<uint16_t>(p + 24);
    e.major = rd<uint16_t>(p + 26);
    e.arch = rd<uint32_t>(p + 28);
    e.flags = rd<uint64_t>(p + 40);
    const uint64_t dsize = rd<uint64_t>(p + 56);
    const uint8_t* payload = p + ehs;
    if (kind == 1 || kind == 2) {
      if (e.flags & (kFlagLz4 | kFlagZstd)) {
        e.compressed = true;
        if (csize > psize || dsize > kMaxPayload || dsize > uint64_t(csize) * kMaxExpansion + kExpansionFloor) {
          e.error = "bad compressed sizes";
        } else {
          e.payload.resize(dsize);
          size_t produced = 0;
          bool ok = (e.flags & kFlagZstd)
                        ? zstd_decompress(payload, csize, e.payload.data(), dsize, produced, e.error)
                        : lz4_block_decompress(payload, csize, e.payload.data(), dsize, produced, e.error);
          if (ok) e.payload.resize(produced);
          else e.payload.clear();
        }
      } else {
        e.payload.assign(payload, payload + psize);
      }
      if (e.kind == EntryKind::Ptx)  // PTX is padded with NULs
        while (!e.payload.empty() && e.payload.back() == 0) e.payload.pop_back();
      out.push_back(std::move(e));
    }
    p += ehs + psize;
  }
  return true;
}

bool parse_wrapper(const void* wrapper, std::vector<Container>& out, std::string& err) {
  struct Wrapper {
    int32_t magic, version;
    const unsigned long long* data;
    void* filename_or_fatbins;
  };
  if (!wrapper) {
    err = "fatbin: null wrapper";
    return false;
  }
  Wrapper w;
  std::memcpy(&w, wrapper, sizeof w);
  if (uint32_t(w.magic) != kWrapperMagic) {
    // Some callers pass the container itself.
    if (rd<uint32_t>(static_cast<const uint8_t*>(wrapper)) == kFatbinMagic)
      return parse_fatbin(static_cast<const uint8_t*>(wrapper), 0, out.emplace_back(), err);
    err = fmt::format("fatbin: bad wrapper magic 0x{:08x}", uint32_t(w.magic));
    return false;
  }
  if (!w.data) {
    err = "fatbin: wrapper without data";
    return false;
  }
  if (!parse_fatbin(reinterpret_cast<const uint8_t*>(w.data), 0, out.emplace_back(), err)) return false;
  if (w.version == 2 && w.filename_or_fatbins) {
    auto list = static_cast<const void* const*>(w.filename_or_fatbins);
    for (size_t i = 0; list[i] && i < 65536; ++i)
      if (!parse_fatbin(static_cast<const uint8_t*>(list[i]), 0, out.emplace_back(), err)) return false;
  }
  return true;
}

// PTX for an architecture-specific target (.target sm_90a, sm_100f): nvcc 13's -arch=sm_90a embeds
// it next to a compute_90 PTX of the same arch number, and only the former may use sm_90a's
// instructions (wgmma, setmaxnreg), so it is the one to run.
static bool arch_specific(const FatbinEntry& e) {
  static const std::string kTarget = ".target sm_";
  const auto end = e.payload.begin() + std::min<size_t>(e.payload.size(), 64 * 1024);
  auto it = std::search(e.payload.begin(), end, kTarget.begin(), kTarget.end());
  if (it == end) return false;
  it += kTarget.size();
  while (it != end && *it >= '0' && *it <= '9') ++it;
  return it != end && (*it == 'a' || *it == 'f');
}

const FatbinEntry* best_ptx(const std::vector<FatbinEntry>& entries, uint32_t arch) {
  // The highest arch; at equal arch the architecture-specific PTX, which is what the GPU runs (its
  // cubin is built from it): instructions such as tensormap.replace exist only there.
  const FatbinEntry* best = nullptr;
  for (auto& e : entries)
    if (e.kind == EntryKind::Ptx && e.arch <= arch && e.error.empty() &&
        (!best || e.arch > best->arch || (e.arch == best->arch && arch_specific(e) && !arch_specific(*best))))
      best = &e;
  return best;
}

}  // namespace warpsim::cudart
