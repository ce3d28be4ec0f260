// sm_90's tensor memory accelerator (TMA) with tensor maps, as the CUDA Programming Guide's TMA
// example writes it: a CUtensorMap made by cuTensorMapEncodeTiled (reached through
// cudaGetDriverEntryPointByVersion), passed as a __grid_constant__ kernel parameter (or copied to
// global memory), cuda::device::experimental::cp_async_bulk_tensor_*_global_to_shared completing on
// a cuda::barrier, the tile store with its bulk group, and the forms libcu++ does not wrap
// (cp.reduce.async.bulk.tensor, cp.async.bulk.prefetch.tensor, prefetch.tensormap) as inline PTX.
// Every shared-memory image is checked byte for byte against a CPU model written from the PTX ISA
// ("Tensor Data Objects": bounding box, traversal strides, out-of-bound fill, swizzle modes as the
// XOR of the 16-byte chunk index with bits of the shared address above it). Built for sm_90a, run
// on the H100.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/barrier>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int kSmem = 8192;  // the shared buffer: the boxes below fit with room to spare (and 16 CTAs per SM)
constexpr int kGuard = 256;   // bytes past the box read back to check nothing was written there
constexpr uint8_t kFill = 0xEE;

struct Coords {
  int c[5];
};

__device__ void tma_load(void* dst, const CUtensorMap* tm, const Coords& c, int rank, barrier& bar) {
  switch (rank) {
    case 1: cde::cp_async_bulk_tensor_1d_global_to_shared(dst, tm, c.c[0], bar); break;
    case 2: cde::cp_async_bulk_tensor_2d_global_to_shared(dst, tm, c.c[0], c.c[1], bar); break;
    case 3: cde::cp_async_bulk_tensor_3d_global_to_shared(dst, tm, c.c[0], c.c[1], c.c[2], bar); break;
    case 4: cde::cp_async_bulk_tensor_4d_global_to_shared(dst, tm, c.c[0], c.c[1], c.c[2], c.c[3], bar); break;
    default: cde::cp_async_bulk_tensor_5d_global_to_shared(dst, tm, c.c[0], c.c[1], c.c[2], c.c[3], c.c[4], bar); break;
  }
}

// Loads one box into a 1024-byte aligned shared buffer prefilled with kFill and writes the whole
// buffer out, so the CPU sees the exact shared-memory image (bytes: the box's, for expect-tx).
__device__ void load_box(const CUtensorMap* tm, Coords c, int rank, int bytes, uint8_t* out, int prefetch) {
  __shared__ alignas(1024) uint8_t smem[kSmem];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  for (int i = threadIdx.x; i < kSmem; i += blockDim.x) smem[i] = kFill;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    if (prefetch) {
      asm volatile("prefetch.tensormap [%0];" ::"l"(tm) : "memory");
      asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(tm), "r"(c.c[0]),
                   "r"(c.c[1])
                   : "memory");
    }
    tma_load(smem, tm, c, rank, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, bytes);
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < kSmem; i += blockDim.x) out[i] = smem[i];
}

__global__ void load_param(const __grid_constant__ CUtensorMap tm, Coords c, int rank, int bytes, uint8_t* out,
                           int prefetch) {
  load_box(&tm, c, rank, bytes, out, prefetch);
}

__global__ void load_global(const CUtensorMap* tm, Coords c, int rank, int bytes, uint8_t* out) {
  load_box(tm, c, rank, bytes, out, 0);
}

// Stores (op < 0) or reduces (op = 0 add, 1 min, 2 max, 3 xor) a 2D box from shared memory whose
// image comes from `img`.
__global__ void store_box(const __grid_constant__ CUtensorMap tm, int c0, int c1, const uint8_t* img, int bytes,
                          int op) {
  __shared__ alignas(1024) uint8_t smem[kSmem];
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) smem[i] = img[i];
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    const CUtensorMap* p = &tm;
    switch (op) {
      case -1: cde::cp_async_bulk_tensor_2d_shared_to_global(p, c0, c1, smem); break;
      case 0:
        asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(p), "r"(c0), "r"(c1), "r"(s) : "memory");
        break;
      case 1:
        asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(p), "r"(c0), "r"(c1), "r"(s) : "memory");
        break;
      case 2:
        asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(p), "r"(c0), "r"(c1), "r"(s) : "memory");
        break;
      default:
        asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.xor.tile.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(p), "r"(c0), "r"(c1), "r"(s) : "memory");
        break;
    }
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

// The CUTLASS grouped-GEMM pattern: warp 0 copies the __grid_constant__ map to shared memory,
// patches its address, dimensions, row pitch, box width and swizzle (tensormap.replace), publishes
// it to `gm` (tensormap.cp_fenceproxy) and acquires it (fence.proxy.tensormap::generic); then a
// box is loaded through the patched map and the shared buffer written out.
__global__ void replace_load(const __grid_constant__ CUtensorMap tm, CUtensorMap* gm, const void* addr, int w, int h,
                             unsigned long long pitch, Coords c, int bytes, uint8_t* out) {
  __shared__ alignas(128) CUtensorMap smap;
  __shared__ alignas(1024) uint8_t smem[kSmem];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier bar;
  for (int i = threadIdx.x; i < kSmem; i += blockDim.x) smem[i] = kFill;
  if (threadIdx.x == 0) {
    smap = tm;
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  // (nvcc -arch=sm_90a also compiles a compute_90 PTX fallback, where tensormap.* do not exist.)
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (threadIdx.x < 32) {
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(&smap));
    if (threadIdx.x == 0) {
      asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(s), "l"(addr) : "memory");
      asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(s), "r"(w) : "memory");
      asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(s), "r"(h) : "memory");
      asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" ::"r"(s), "l"(pitch)
                   : "memory");
      asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(s), "r"(16) : "memory");
      asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 2;" ::"r"(s) : "memory");
    }
    __syncwarp();
    asm volatile(
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;" ::"l"(gm),
        "r"(s)
        : "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(gm) : "memory");
  }
#else
  (void)smap;
  __trap();
#endif
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(smem, gm, c.c[0], c.c[1], bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, bytes);
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < kSmem; i += blockDim.x) out[i] = smem[i];
}

// ------------------------------------------------------------------ host side

PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
bool all_ok = true;

struct Tensor {
  CUtensorMapDataType type;
  int esize;
  int rank;
  uint64_t dim[5];
  uint64_t stride[5];  // bytes, stride[0] = esize
  std::vector<uint8_t> host;
  void* dev = nullptr;
  size_t bytes() const { return size_t(stride[rank - 1] * dim[rank - 1]); }
};

// A tensor whose element at each index holds a value derived from its byte offset (so every box
// element is distinguishable); pitches may add padding.
Tensor make_tensor(CUtensorMapDataType type, int esize, int rank, std::vector<uint64_t> dims,
                   std::vector<uint64_t> pitches) {
  Tensor t{type, esize, rank, {}, {}, {}, nullptr};
  for (int d = 0; d < rank; ++d) t.dim[d] = dims[size_t(d)];
  t.stride[0] = uint64_t(esize);
  for (int d = 1; d < rank; ++d) t.stride[d] = pitches[size_t(d - 1)];
  t.host.resize(t.bytes());
  for (size_t i = 0; i < t.host.size(); ++i) t.host[i] = uint8_t(i * 7 + (i >> 8) * 13 + 1);
  if (type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32)  // finite floats, small enough to add exactly
    for (size_t i = 0; i + 4 <= t.host.size(); i += 4) {
      float f = float(int(i / 4 % 977) - 400) * 0.25f;
      std::memcpy(&t.host[i], &f, 4);
    }
  cudaMalloc(&t.dev, t.bytes());
  cudaMemcpy(t.dev, t.host.data(), t.bytes(), cudaMemcpyHostToDevice);
  return t;
}

struct Box {
  uint32_t box[5];
  uint32_t es[5];
  CUtensorMapSwizzle swizzle;
  CUtensorMapFloatOOBfill oob;
};

CUresult make_map(CUtensorMap* m, const Tensor& t, const Box& b) {
  return encode(m, t.type, uint32_t(t.rank), t.dev, t.dim, t.stride + 1, b.box, b.es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                b.swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, b.oob);
}

int swizzle_bytes(CUtensorMapSwizzle s) {
  return s == CU_TENSOR_MAP_SWIZZLE_32B ? 32 : s == CU_TENSOR_MAP_SWIZZLE_64B ? 64 : s == CU_TENSOR_MAP_SWIZZLE_128B ? 128 : 0;
}

// The ISA's swizzle: the 16-byte chunk index (address bits 4..) is XORed with the address bits
// from 7 up, over log2(span / 16) bits.
uint32_t swizzle(uint32_t off, CUtensorMapSwizzle s) {
  const int span = swizzle_bytes(s);
  if (!span) return off;
  const uint32_t mask = uint32_t(span / 16 - 1);
  return off ^ (((off >> 7) & mask) << 4);
}

// Elements the box holds along each dimension (traversal strides step over elements; dimension 0
// has none in non-interleaved layouts).
uint32_t count(const Box& b, int d) { return d == 0 ? b.box[0] : (b.box[d] + b.es[d] - 1) / b.es[d]; }

uint32_t box_bytes(const Tensor& t, const Box& b) {
  uint32_t n = uint32_t(t.esize);
  for (int d = 0; d < t.rank; ++d) n *= count(b, d);
  return n;
}

// Bytes between the starts of two box rows in shared memory: a row (dimension 0) narrower than the
// swizzle span takes the whole span (the H100 leaves the rest unwritten).
uint32_t row_pitch(const Tensor& t, const Box& b) {
  const uint32_t row = b.box[0] * uint32_t(t.esize), span = uint32_t(swizzle_bytes(b.swizzle));
  return row < span ? span : row;
}
// Where the box's element at row-major byte offset `off` lies in shared memory.
uint32_t shared_offset(const Tensor& t, const Box& b, uint32_t off) {
  const uint32_t row = b.box[0] * uint32_t(t.esize);
  return swizzle(off / row * row_pitch(t, b) + off % row, b.swizzle);
}

// The CPU's shared-memory image of a box load: row-major in the box (dimension 0 fastest), each
// element read at the coordinates c + index * traversal stride, zero (or the NaN fill) out of
// bounds, rows row_pitch apart, swizzled. Bytes outside the box keep kFill.
std::vector<uint8_t> expected_image(const Tensor& t, const Box& b, const Coords& c, uint32_t nan_word) {
  const uint32_t n = box_bytes(t, b);
  std::vector<uint8_t> img(kSmem, kFill);
  uint32_t idx[5] = {0, 0, 0, 0, 0};
  for (uint32_t off = 0; off < n; off += uint32_t(t.esize)) {
    bool in = true;
    uint64_t g = 0;
    for (int d = 0; d < t.rank; ++d) {
      const int64_t x = int64_t(c.c[d]) + int64_t(idx[d]) * (d == 0 ? 1 : b.es[d]);
      if (x < 0 || uint64_t(x) >= t.dim[d]) in = false;
      else g += uint64_t(x) * t.stride[d];
    }
    uint8_t e[8] = {};
    if (in) std::memcpy(e, &t.host[g], size_t(t.esize));
    else if (b.oob == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) std::memcpy(e, &nan_word, size_t(t.esize));
    std::memcpy(&img[shared_offset(t, b, off)], e, size_t(t.esize));
    for (int d = 0; d < t.rank; ++d) {
      if (++idx[d] < count(b, d)) break;
      idx[d] = 0;
    }
  }
  return img;
}

void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "PASS" : "FAIL");
  all_ok &= ok;
}

bool compare(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      std::printf("  first difference at byte %zu: got 0x%02x, want 0x%02x\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

uint8_t* g_out;
// `hopper_tma N` runs only the N-th load/store check (a fault is sticky: this finds which one).
int g_only = -1, g_case = -1;
bool skip() { return ++g_case != g_only && g_only >= 0; }

// Loads box b of t at c (through a __grid_constant__ map or one in global memory) and checks the
// shared-memory image.
void check_load(const char* what, const Tensor& t, Box b, Coords c, bool in_global = false, bool prefetch = false,
                uint32_t nan_word = 0) {
  if (skip()) return;
  CUtensorMap m;
  CUresult r = make_map(&m, t, b);
  if (r != CUDA_SUCCESS) {
    std::printf("%s: cuTensorMapEncodeTiled failed (%d)\n", what, int(r));
    all_ok = false;
    return;
  }
  const uint32_t n = box_bytes(t, b);
  cudaMemset(g_out, 0, kSmem);
  if (in_global) {
    CUtensorMap* dm;
    cudaMalloc(&dm, sizeof(m));
    cudaMemcpy(dm, &m, sizeof(m), cudaMemcpyHostToDevice);
    load_global<<<1, 128>>>(dm, c, t.rank, int(n), g_out);
    cudaDeviceSynchronize();
    cudaFree(dm);
  } else {
    load_param<<<1, 128>>>(m, c, t.rank, int(n), g_out, prefetch ? 1 : 0);
  }
  std::vector<uint8_t> got(kSmem);
  cudaError_t e = cudaMemcpy(got.data(), g_out, got.size(), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", what, cudaGetErrorString(e));
    all_ok = false;
    return;
  }
  const bool ok = compare(got, expected_image(t, b, c, nan_word));
  if (!ok && std::getenv("HOPPER_TMA_DUMP")) {  // the whole image, for finding what the GPU did
    std::fprintf(stderr, "%s:", what);
    for (size_t i = 0; i < got.size(); ++i) std::fprintf(stderr, "%s%02x", i % 32 ? "" : "\n", got[i]);
    std::fprintf(stderr, "\n");
  }
  report(what, ok);
}

// The word a NaN-request fill writes for an out-of-bound f32 element, as the GPU wrote it.
uint32_t nan_fill_word(const Tensor& t, Box b, Coords c) {
  if (skip()) return 0;
  CUtensorMap m;
  make_map(&m, t, b);
  load_param<<<1, 128>>>(m, c, t.rank, int(box_bytes(t, b)), g_out, 0);
  uint32_t w = 0;
  cudaMemcpy(&w, g_out, 4, cudaMemcpyDeviceToHost);
  return w;
}

// Stores / reduces a 2D box whose shared image is `img` into a copy of t and compares the whole
// tensor with the CPU's result: box elements inside the tensor combined with the global ones, the
// rest (over the edge) dropped, everything else unchanged.
void check_store(const char* what, Tensor& t, Box b, int c0, int c1, int op) {
  if (skip()) return;
  CUtensorMap m;
  if (make_map(&m, t, b) != CUDA_SUCCESS) {
    std::printf("%s: cuTensorMapEncodeTiled failed\n", what);
    all_ok = false;
    return;
  }
  const uint32_t n = kSmem;  // the shared image: the box (swizzled, padded rows) and beyond
  std::vector<uint8_t> img(n);
  for (uint32_t i = 0; i < n; ++i) img[i] = uint8_t(i * 5 + 3);
  if (t.type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32)
    for (uint32_t i = 0; i < n; i += 4) {
      float f = float(int(i / 4 % 61) - 30) * 0.5f;
      std::memcpy(&img[i], &f, 4);
    }
  uint8_t* dimg;
  cudaMalloc(&dimg, n);
  cudaMemcpy(dimg, img.data(), n, cudaMemcpyHostToDevice);
  cudaMemcpy(t.dev, t.host.data(), t.bytes(), cudaMemcpyHostToDevice);
  store_box<<<1, 128>>>(m, c0, c1, dimg, int(n), op);
  std::vector<uint8_t> got(t.bytes());
  cudaError_t e = cudaMemcpy(got.data(), t.dev, t.bytes(), cudaMemcpyDeviceToHost);
  cudaFree(dimg);
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", what, cudaGetErrorString(e));
    all_ok = false;
    return;
  }
  std::vector<uint8_t> want = t.host;
  for (uint32_t y = 0; y < b.box[1]; ++y)
    for (uint32_t x = 0; x < b.box[0]; ++x) {
      const int64_t gx = c0 + int64_t(x), gy = c1 + int64_t(y);
      // A store or reduction is clipped at the end of the 16-byte chunk that holds a row's last
      // element (the H100 also writes the chunk's elements past globalDim[0]).
      const uint64_t row_end = (t.dim[0] * uint64_t(t.esize) + 15) / 16 * 16 / uint64_t(t.esize);
      if (gx < 0 || gy < 0 || uint64_t(gx) >= row_end || uint64_t(gy) >= t.dim[1]) continue;
      const uint32_t off = shared_offset(t, b, (y * b.box[0] + x) * uint32_t(t.esize));
      uint8_t* g = &want[size_t(gy) * t.stride[1] + size_t(gx) * size_t(t.esize)];
      if (op < 0) {
        std::memcpy(g, &img[off], size_t(t.esize));
      } else if (t.type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32) {
        float a, s;
        std::memcpy(&a, g, 4);
        std::memcpy(&s, &img[off], 4);
        a = op == 0 ? a + s : op == 1 ? (s < a ? s : a) : (s > a ? s : a);
        std::memcpy(g, &a, 4);
      } else {
        int32_t a, s;
        std::memcpy(&a, g, 4);
        std::memcpy(&s, &img[off], 4);
        a = op == 0 ? int32_t(uint32_t(a) + uint32_t(s)) : op == 1 ? (s < a ? s : a) : op == 2 ? (s > a ? s : a) : (a ^ s);
        std::memcpy(g, &a, 4);
      }
    }
  report(what, compare(got, want));
}

int main(int argc, char** argv) {
  if (argc > 1) g_only = std::atoi(argv[1]);
  cudaDriverEntryPointQueryResult q;
  void* fn = nullptr;
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
    std::printf("cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled) failed: %d %d\n", int(e), int(q));
    return 1;
  }
  encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  void* fn2 = nullptr;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn2, cudaEnableDefault, &q);
#pragma GCC diagnostic pop
  std::printf("cudaGetDriverEntryPoint(cuTensorMapEncodeTiled): %s\n", e == cudaSuccess && fn2 ? "found" : "missing");
  cudaMalloc(&g_out, kSmem + kGuard);

  const auto F32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32, U8 = CU_TENSOR_MAP_DATA_TYPE_UINT8,
             F16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16, U16 = CU_TENSOR_MAP_DATA_TYPE_UINT16,
             S32 = CU_TENSOR_MAP_DATA_TYPE_INT32;
  const auto SN = CU_TENSOR_MAP_SWIZZLE_NONE, S32B = CU_TENSOR_MAP_SWIZZLE_32B, S64B = CU_TENSOR_MAP_SWIZZLE_64B,
             S128B = CU_TENSOR_MAP_SWIZZLE_128B;
  const auto ZERO = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, NANF = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;

  // 2D f32, 100 x 70 elements, rows 416 bytes apart (padded).
  Tensor a = make_tensor(F32, 4, 2, {100, 70}, {416});
  check_load("2d f32 box 16x8 at the origin", a, {{16, 8}, {1, 1}, SN, ZERO}, {{0, 0}});
  check_load("2d f32 box 16x8, no swizzle", a, {{16, 8}, {1, 1}, SN, ZERO}, {{12, 5}});
  check_load("2d f32 box 8x16, swizzle 32B", a, {{8, 16}, {1, 1}, S32B, ZERO}, {{40, 9}});
  check_load("2d f32 box 16x16, swizzle 64B", a, {{16, 16}, {1, 1}, S64B, ZERO}, {{16, 33}});
  check_load("2d f32 box 32x16, swizzle 128B", a, {{32, 16}, {1, 1}, S128B, ZERO}, {{64, 50}});
  check_load("2d f32 box 16x16 (64-byte rows), swizzle 128B", a, {{16, 16}, {1, 1}, S128B, ZERO}, {{4, 2}});
  check_load("2d f32 box 4x16 (16-byte rows), swizzle 32B", a, {{4, 16}, {1, 1}, S32B, ZERO}, {{8, 40}});
  // 2D u8 and f16 with 128B / 64B swizzles.
  Tensor b = make_tensor(U8, 1, 2, {300, 50}, {304});
  check_load("2d u8 box 128x12, swizzle 128B", b, {{128, 12}, {1, 1}, S128B, ZERO}, {{96, 20}});
  Tensor h = make_tensor(F16, 2, 2, {200, 40}, {400});
  check_load("2d f16 box 64x8, swizzle 128B", h, {{64, 8}, {1, 1}, S128B, ZERO}, {{24, 7}});
  check_load("2d f16 box 32x8, swizzle 64B", h, {{32, 8}, {1, 1}, S64B, ZERO}, {{152, 31}});
  // Boxes hanging over the tensor's edges: zero fill.
  check_load("2d f32 box 32x16 over the right and bottom edges", a, {{32, 16}, {1, 1}, SN, ZERO}, {{80, 60}});
  check_load("2d f32 box 16x8 at negative coordinates", a, {{16, 8}, {1, 1}, SN, ZERO}, {{-4, -3}});
  check_load("2d f16 box 32x8 over both edges, swizzle 64B", h, {{32, 8}, {1, 1}, S64B, ZERO}, {{184, 35}});
  check_load("2d u8 box 128x12 wholly outside", b, {{128, 12}, {1, 1}, S128B, ZERO}, {{400, 60}});
  // NaN-request fill: the word the GPU writes, then the whole image with it.
  const uint32_t nanw = nan_fill_word(a, {{16, 8}, {1, 1}, SN, NANF}, {{-16, 0}});
  std::printf("f32 NaN-request out-of-bound fill word: 0x%08x\n", nanw);
  check_load("2d f32 box over the edge, NaN-request fill", a, {{16, 8}, {1, 1}, SN, NANF}, {{88, 66}}, false, false,
             nanw);
  // 3D and 5D boxes.
  Tensor t3 = make_tensor(F32, 4, 3, {20, 12, 6}, {80, 960});
  check_load("3d f32 box 8x4x3 over two edges", t3, {{8, 4, 3}, {1, 1, 1}, SN, ZERO}, {{4, 9, 4}});
  Tensor t5 = make_tensor(U16, 2, 5, {16, 3, 4, 5, 6}, {32, 96, 384, 1920});
  check_load("5d u16 box 8x2x2x3x2", t5, {{8, 2, 2, 3, 2}, {1, 1, 1, 1, 1}, SN, ZERO}, {{8, 1, 1, 1, 3}});
  check_load("5d u16 box 16x2x2x3x2 over edges, swizzle 32B", t5, {{16, 2, 2, 3, 2}, {1, 1, 1, 1, 1}, S32B, ZERO},
             {{8, 2, 3, 3, 5}});
  // Traversal strides (elementStrides): rows 0, 2, 4, 6 of an 8-row box; every third plane; a
  // stride on dimension 0, which non-interleaved layouts ignore.
  check_load("2d f32 box 16x8, elementStrides {1,2}", a, {{16, 8}, {1, 2}, SN, ZERO}, {{12, 20}});
  check_load("3d f32 box 8x4x6, elementStrides {1,1,3}", t3, {{8, 4, 6}, {1, 1, 3}, SN, ZERO}, {{4, 2, 0}});
  check_load("2d f32 box 16x7, elementStrides {2,3} over the edge", a, {{16, 7}, {2, 3}, S64B, ZERO}, {{88, 64}});
  // The tensor map in global memory; a load after prefetches of the map and of the box.
  check_load("2d f32 box 32x16 with the map in global memory", a, {{32, 16}, {1, 1}, S128B, ZERO}, {{40, 30}}, true);
  check_load("2d f32 box 32x16 after prefetch.tensormap and cp.async.bulk.prefetch.tensor", a,
             {{32, 16}, {1, 1}, S128B, ZERO}, {{52, 20}}, false, true);

  // A map patched on the device (tensormap.replace) to another tensor, box width and swizzle.
  if (!skip()) {
    Tensor r = make_tensor(F32, 4, 2, {60, 40}, {256});
    const Box patched{{16, 16}, {1, 1}, S64B, ZERO};
    const Coords c{{48, 30}};
    CUtensorMap m;
    make_map(&m, a, {{32, 16}, {1, 1}, S128B, ZERO});
    CUtensorMap* gm;
    cudaMalloc(&gm, sizeof(CUtensorMap));
    replace_load<<<1, 128>>>(m, gm, r.dev, 60, 40, 256, c, int(box_bytes(r, patched)), g_out);
    std::vector<uint8_t> got(kSmem);
    cudaError_t e2 = cudaMemcpy(got.data(), g_out, kSmem, cudaMemcpyDeviceToHost);
    cudaFree(gm);
    if (e2 != cudaSuccess) {
      std::printf("tensormap.replace: %s\n", cudaGetErrorString(e2));
      all_ok = false;
    } else {
      report("2d f32 box through a map patched by tensormap.replace (address, dims, pitch, box, swizzle 64B)",
             compare(got, expected_image(r, patched, c, 0)));
    }
  }

  // HOPPER_TMA_STORE_AT=x,y: only a tile store there (each in its own process, for finding which
  // coordinates the H100 refuses: a fault ends the context).
  if (const char* at = std::getenv("HOPPER_TMA_STORE_AT")) {
    int x = 0, y = 0;
    std::sscanf(at, "%d,%d", &x, &y);
    check_store("2d f32 tile store 16x8 (HOPPER_TMA_STORE_AT)", a, {{16, 8}, {1, 1}, SN, ZERO}, x, y, -1);
    return 0;
  }
  // Tile stores (clipped at the edges) and reductions.
  check_store("2d f32 tile store 32x16 over the edges", a, {{32, 16}, {1, 1}, SN, ZERO}, 80, 60, -1);
  check_store("2d f32 tile store 16x8, swizzle 64B", a, {{16, 8}, {1, 1}, S64B, ZERO}, 8, 2, -1);
  Tensor s = make_tensor(S32, 4, 2, {50, 30}, {208});
  check_store("2d s32 reduce-add 32x8 over the edge, swizzle 128B", s, {{32, 8}, {1, 1}, S128B, ZERO}, 28, 25, 0);
  check_store("2d f32 reduce-add 16x16", a, {{16, 16}, {1, 1}, SN, ZERO}, 8, 3, 0);
  check_store("2d s32 reduce-min 16x4", s, {{16, 4}, {1, 1}, SN, ZERO}, 4, 2, 1);
  check_store("2d s32 reduce-max 16x4", s, {{16, 4}, {1, 1}, SN, ZERO}, 20, 12, 2);
  check_store("2d s32 reduce-xor 16x4", s, {{16, 4}, {1, 1}, SN, ZERO}, 36, 27, 3);
  // The tensor's edge inside a 16-byte chunk (dimension 0 is 50 s32, rows 208 bytes apart).
  check_load("2d s32 box 16x4 over an edge inside a 16-byte chunk", s, {{16, 4}, {1, 1}, SN, ZERO}, {{40, 0}});
  check_store("2d s32 tile store 16x4 over an edge inside a 16-byte chunk", s, {{16, 4}, {1, 1}, SN, ZERO}, 40, 0, -1);

  // cuTensorMapEncodeTiled's argument checks.
  alignas(64) CUtensorMap m[2];
  const uint64_t dim[2] = {100, 70}, st[1] = {416}, bad_st[1] = {408};
  const uint32_t box[2] = {16, 8}, es[2] = {1, 1};
  auto enc = [&](CUtensorMap* mm, CUtensorMapDataType ty, uint32_t rank, void* addr, const uint64_t* d,
                 const uint64_t* s2, const uint32_t* bx, const uint32_t* e2, CUtensorMapSwizzle sw,
                 CUtensorMapFloatOOBfill f) {
    return int(encode(mm, ty, rank, addr, d, s2, bx, e2, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                      CU_TENSOR_MAP_L2_PROMOTION_NONE, f));
  };
  char* base = static_cast<char*>(a.dev);
  const uint32_t box0[2] = {0, 8}, box257[2] = {16, 257}, box_odd[2] = {6, 8}, box_wide[2] = {64, 8};
  const uint32_t es9[2] = {1, 9}, es0[2] = {1, 0};
  const uint64_t dim0[2] = {0, 70};
  std::printf("encode valid: %d\n", enc(&m[0], F32, 2, base, dim, st, box, es, SN, ZERO));
  std::printf("encode rank 0: %d\n", enc(&m[0], F32, 0, base, dim, st, box, es, SN, ZERO));
  std::printf("encode rank 6: %d\n", enc(&m[0], F32, 6, base, dim, st, box, es, SN, ZERO));
  std::printf("encode address 8 bytes off: %d\n", enc(&m[0], F32, 2, base + 8, dim, st, box, es, SN, ZERO));
  std::printf("encode map 32 bytes off: %d\n",
              enc(reinterpret_cast<CUtensorMap*>(reinterpret_cast<char*>(&m[0]) + 32), F32, 2, base, dim, st, box, es,
                  SN, ZERO));
  std::printf("encode stride 408: %d\n", enc(&m[0], F32, 2, base, dim, bad_st, box, es, SN, ZERO));
  std::printf("encode dim 0: %d\n", enc(&m[0], F32, 2, base, dim0, st, box, es, SN, ZERO));
  std::printf("encode box 0: %d\n", enc(&m[0], F32, 2, base, dim, st, box0, es, SN, ZERO));
  std::printf("encode box 257: %d\n", enc(&m[0], F32, 2, base, dim, st, box257, es, SN, ZERO));
  std::printf("encode box row 24 bytes: %d\n", enc(&m[0], F32, 2, base, dim, st, box_odd, es, SN, ZERO));
  std::printf("encode box row 256 bytes, swizzle 128B: %d\n", enc(&m[0], F32, 2, base, dim, st, box_wide, es, S128B, ZERO));
  std::printf("encode box row 64 bytes, swizzle 32B: %d\n", enc(&m[0], F32, 2, base, dim, st, box, es, S32B, ZERO));
  std::printf("encode elementStride 9: %d\n", enc(&m[0], F32, 2, base, dim, st, box, es9, SN, ZERO));
  std::printf("encode elementStride 0: %d\n", enc(&m[0], F32, 2, base, dim, st, box, es0, SN, ZERO));
  std::printf("encode NaN fill on u8: %d\n", enc(&m[0], U8, 2, base, dim, st, box_wide, es, SN, NANF));
  std::printf("encode data type 99: %d\n", enc(&m[0], CUtensorMapDataType(99), 2, base, dim, st, box, es, SN, ZERO));
  std::printf("encode swizzle 128B_ATOM_32B: %d\n",
              enc(&m[0], F32, 2, base, dim, st, box, es, CUtensorMapSwizzle(4), ZERO));
  std::printf("encode swizzle 9: %d\n", enc(&m[0], F32, 2, base, dim, st, box, es, CUtensorMapSwizzle(9), ZERO));
  std::printf("encode null map: %d\n", enc(nullptr, F32, 2, base, dim, st, box, es, SN, ZERO));

  e = cudaDeviceSynchronize();
  std::printf("hopper_tma: %s\n", all_ok && e == cudaSuccess ? "PASS" : "FAIL");
  return all_ok && e == cudaSuccess ? 0 : 1;
}
