// Decompressors for fatbin entries: LZ4 block format (implemented here; older toolkits and
// -compress-mode=speed) and zstd frames (CUDA 13's default), the latter through the system's
// libzstd.so.1, loaded on first use so that neither the build nor programs without compressed
// code depend on it.
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstring>
#include <mutex>

#include "cudart/fatbin.hpp"

namespace warpsim::cudart {

bool lz4_block_decompress(const uint8_t* src, size_t n, uint8_t* dst, size_t cap, size_t& produced,
                          std::string& err) {
  size_t ip = 0, op = 0;
  auto fail = [&](const char* why) {
    err = fmt::format("lz4: {} at input offset {}", why, ip);
    return false;
  };
  while (ip < n) {
    const uint8_t token = src[ip++];
    size_t lit = token >> 4;
    if (lit == 15) {
      uint8_t b;
      do {
        if (ip >= n) return fail("truncated literal length");
        b = src[ip++];
        lit += b;
      } while (b == 255);
    }
    if (lit > n - ip || lit > cap - op) return fail("literal run overflows");
    if (lit) std::memcpy(dst + op, src + ip, lit);  // dst may be null for an empty output
    ip += lit;
    op += lit;
    if (ip == n) break;  // the last sequence has literals only
    if (n - ip < 2) return fail("truncated match offset");
    const size_t off = size_t(src[ip]) | size_t(src[ip + 1]) << 8;
    ip += 2;
    if (off == 0 || off > op) return fail("bad match offset");
    size_t len = token & 15;
    if (len == 15) {
      uint8_t b;
      do {
        if (ip >= n) return fail("truncated match length");
        b = src[ip++];
        len += b;
      } while (b == 255);
    }
    len += 4;
    if (len > cap - op) return fail("match overflows the output");
    for (size_t i = 0; i < len; ++i, ++op) dst[op] = dst[op - off];  // may overlap
  }
  produced = op;
  return true;
}

namespace {
struct Zstd {
  size_t (*decompress)(void*, size_t, const void*, size_t) = nullptr;
  unsigned (*is_error)(size_t) = nullptr;
  const char* (*error_name)(size_t) = nullptr;
};
const Zstd* zstd() {
  static Zstd z;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libzstd.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    z.decompress = reinterpret_cast<decltype(z.decompress)>(dlsym(h, "ZSTD_decompress"));
    z.is_error = reinterpret_cast<decltype(z.is_error)>(dlsym(h, "ZSTD_isError"));
    z.error_name = reinterpret_cast<decltype(z.error_name)>(dlsym(h, "ZSTD_getErrorName"));
  });
  return z.decompress && z.is_error ? &z : nullptr;
}
}  // namespace

bool zstd_decompress(const uint8_t* src, size_t n, uint8_t* dst, size_t cap, size_t& produced, std::string& err) {
  const Zstd* z = zstd();
  if (!z) {
    err = "zstd-compressed code needs libzstd.so.1 (Debian package libzstd1), which could not be loaded";
    return false;
  }
  size_t r = z->decompress(dst, cap, src, n);
  if (z->is_error(r)) {
    err = fmt::format("zstd: {}", z->error_name ? z->error_name(r) : "error");
    return false;
  }
  produced = r;
  return true;
}

}  // namespace warpsim::cudart
