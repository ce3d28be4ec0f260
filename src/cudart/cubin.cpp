#include "cudart/cubin.hpp"
#include "cudart/bytes.hpp"

#include <cstring>
#include <vector>

namespace warpsim::cudart {

namespace {


struct Shdr {
  uint32_t name, type;
  uint64_t flags, addr, offset, size;
  uint32_t link, info;
  uint64_t align, entsize;
};

constexpr uint8_t kRegCount = 0x2f, kFrameSize = 0x11, kMinStack = 0x12, kMaxStack = 0x23, kMaxThreads = 0x05,
                  kReqNtid = 0x10, kMaxRegCount = 0x1b;

// Calls f(attr, value pointer, value size) for each record of an .nv.info section.
template <class F>
bool for_each_attr(const uint8_t* p, uint64_t n, F f) {
  uint64_t i = 0;
  while (i + 4 <= n) {
    const uint8_t fmt = p[i], attr = p[i + 1];
    if (fmt == 4) {
      const uint16_t sz = rd<uint16_t>(p + i + 2);
      if (i + 4 + sz > n) return false;
      f(attr, p + i + 4, sz);
      i += 4 + sz;
    } else if (fmt == 1 || fmt == 2 || fmt == 3) {
      f(attr, p + i + 2, fmt == 1 ? 0 : fmt == 2 ? 1 : 2);
      i += 4;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

bool read_cubin_resources(const uint8_t* d, size_t size, std::map<std::string, KernelResources>& out,
                          std::string& err) {
  if (size < 64 || std::memcmp(d, "\x7f" "ELF", 4) != 0 || d[4] != 2 || d[5] != 1) {
    err = "cubin: not a 64-bit little-endian ELF image";
    return false;
  }
  const uint64_t shoff = rd<uint64_t>(d + 0x28);
  const uint16_t shentsize = rd<uint16_t>(d + 0x3a), shnum = rd<uint16_t>(d + 0x3c),
                 shstrndx = rd<uint16_t>(d + 0x3e);
  if (shentsize < 64 || shoff > size || uint64_t(shnum) * shentsize > size - shoff || shstrndx >= shnum) {
    err = "cubin: bad section header table";
    return false;
  }
  std::vector<Shdr> sh(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint8_t* p = d + shoff + uint64_t(i) * shentsize;
    Shdr& s = sh[i];
    s.name = rd<uint32_t>(p);
    s.type = rd<uint32_t>(p + 4);
    s.flags = rd<uint64_t>(p + 8);
    s.addr = rd<uint64_t>(p + 16);
    s.offset = rd<uint64_t>(p + 24);
    s.size = rd<uint64_t>(p + 32);
    s.link = rd<uint32_t>(p + 40);
    s.info = rd<uint32_t>(p + 44);
    s.align = rd<uint64_t>(p + 48);
    s.entsize = rd<uint64_t>(p + 56);
    if (s.type != 8 /*NOBITS*/ && (s.offset > size || s.size > size - s.offset)) {
      err = "cubin: section overruns the image";
      return false;
    }
  }
  // A NOBITS section has a size but no bytes in the image (its offset was not checked above):
  // nothing may be read from one.
  auto cstr = [&](const Shdr& strtab, uint32_t off) -> std::string {
    if (strtab.type == 8 || off >= strtab.size) return {};
    const char* s = reinterpret_cast<const char*>(d + strtab.offset + off);
    return std::string(s, strnlen(s, strtab.size - off));
  };
  auto sec_name = [&](const Shdr& s) { return cstr(sh[shstrndx], s.name); };
  // Symbol index -> name through .symtab (sh_link of .nv.info).
  auto sym_name = [&](uint32_t symtab, uint32_t idx) -> std::string {
    if (symtab >= shnum) return {};
    const Shdr& st = sh[symtab];
    if (st.type == 8 || st.entsize < 24 || uint64_t(idx) >= st.size / st.entsize || st.link >= shnum) return {};
    return cstr(sh[st.link], rd<uint32_t>(d + st.offset + uint64_t(idx) * st.entsize));
  };
  for (uint16_t i = 0; i < shnum; ++i) {
    const Shdr& s = sh[i];
    const std::string n = sec_name(s);
    if (n.rfind(".text.", 0) == 0 && (s.flags & 4 /*EXECINSTR*/)) {
      auto& k = out[n.substr(6)];
      if (k.regs < 0) k.regs = int(s.info >> 24);
    } else if (n.rfind(".nv.shared.", 0) == 0) {
      out[n.substr(11)].static_shared = uint32_t(s.size);
    } else if (n == ".nv.info" && s.type != 8) {
      bool ok = for_each_attr(d + s.offset, s.size, [&](uint8_t a, const uint8_t* v, uint16_t sz) {
        if (sz != 8 || (a != kRegCount && a != kFrameSize && a != kMinStack && a != kMaxStack)) return;
        std::string name = sym_name(s.link, rd<uint32_t>(v));
        if (name.empty()) return;
        auto& k = out[name];
        const uint32_t val = rd<uint32_t>(v + 4);
        if (a == kRegCount) k.regs = int(val);
        else if (a == kFrameSize) k.frame = val;
        else if (a == kMinStack) k.min_stack = val;
        else k.max_stack = val;
      });
      if (!ok) {
        err = "cubin: malformed .nv.info";
        return false;
      }
    } else if (n.rfind(".nv.info.", 0) == 0 && s.type != 8) {
      auto& k = out[n.substr(9)];
      bool ok = for_each_attr(d + s.offset, s.size, [&](uint8_t a, const uint8_t* v, uint16_t sz) {
        if ((a == kMaxThreads || a == kReqNtid) && sz == 12) {
          uint64_t t = uint64_t(rd<uint32_t>(v)) * rd<uint32_t>(v + 4) * rd<uint32_t>(v + 8);
          if (t && t <= 0xffffffffu && (!k.max_threads || t < k.max_threads)) k.max_threads = uint32_t(t);
        } else if (a == kMaxRegCount && sz == 2) {
          k.max_reg_count = rd<uint16_t>(v);
        }
      });
      if (!ok) {
        err = "cubin: malformed " + n;
        return false;
      }
    }
  }
  return true;
}

}  // namespace warpsim::cudart
