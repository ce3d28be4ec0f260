#include "cudart/cubin.hpp"
#include "cudart/bytes.hpp"
#include "cudart/elf64.hpp"

#include <cstring>
#include <vector>

namespace warpsim::cudart {

namespace {


using elf64::Section;

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
  elf64::Table table;
  auto read = [&](uint64_t off, uint64_t n, std::vector<uint8_t>& out) {
    if (off > size || n > size - off) return false;
    out.assign(d + off, d + off + n);
    return true;
  };
  if (!elf64::read_sections(read, size, table, err)) {
    err = "cubin: " + err;
    return false;
  }
  const std::vector<Section>& sh = table.sections;
  const size_t shnum = sh.size();
  const uint16_t shstrndx = table.names;
  // A NOBITS section has a size but no bytes in the image (its offset was not checked above):
  // nothing may be read from one.
  auto cstr = [&](const Section& strtab, uint32_t off) -> std::string {
    return strtab.has_bytes() ? elf64::string_at(d + strtab.offset, strtab.size, off) : std::string();
  };
  auto sec_name = [&](const Section& s) { return cstr(sh[shstrndx], s.name); };
  // Symbol index -> name through .symtab (sh_link of .nv.info).
  auto sym_name = [&](uint32_t symtab, uint32_t idx) -> std::string {
    if (symtab >= shnum) return {};
    const Section& st = sh[symtab];
    if (!st.has_bytes() || st.entsize < 24 || uint64_t(idx) >= st.size / st.entsize || st.link >= shnum) return {};
    return cstr(sh[st.link], rd<uint32_t>(d + st.offset + uint64_t(idx) * st.entsize));
  };
  for (size_t i = 0; i < shnum; ++i) {
    const Section& s = sh[i];
    const std::string n = sec_name(s);
    if (n.rfind(".text.", 0) == 0 && (s.flags & 4 /*EXECINSTR*/)) {
      auto& k = out[n.substr(6)];
      if (k.regs < 0) k.regs = int(s.info >> 24);
    } else if (n.rfind(".nv.shared.", 0) == 0) {
      out[n.substr(11)].static_shared = uint32_t(s.size);
    } else if (n == ".nv.info" && s.has_bytes()) {
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
    } else if (n.rfind(".nv.info.", 0) == 0 && s.has_bytes()) {
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
