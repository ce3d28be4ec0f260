// Mipmapped textures against CPU references:
// - cudaMallocMipmappedArray / cudaGetMipmappedArrayLevel / cudaFreeMipmappedArray: the levels'
//   extents (max(1, extent >> i)), numLevels 0 and too many (printed), filled by
//   cudaMemcpy2DToArray / cudaMemcpy3D, one distinct pattern per level;
// - tex2DLod (float4) at integer and fractional levels of detail, point and linear mipmap
//   filtering: the level of detail is 8.8 fixed point, the blend weight truncated to 1/256 and
//   point filtering takes the nearest level (lod 0.5 reads level 1), as our H100 does;
// - tex2DGrad with isotropic and axis-aligned gradients whose lengths give known levels (log2 of the
//   longer gradient in texels of level 0; lengths 1 + m/256 read the H100's 8-bit log2 of the
//   mantissa, round(256 log2(1 + (m + 0.5) / 256)) for the m used here);
// - mipmapLevelBias and min/maxMipmapLevelClamp (bias, then clamps, max applied first), levels of
//   detail beyond the last level, NaN and infinities;
// - unnormalized coordinates (a mipmapped texture reads them as normalized, as the H100 does);
// - tex1DLod/tex1DGrad, tex3DLod/tex3DGrad, tex2DLayeredLod and texCubemapLod;
// - not here: gradients that are both nonzero along one axis, or diagonal: the H100 reads them
//   up to half a level finer than the longer one's log2 (validation/driver/
//   h100_texture_mipmap_probe.out, "gradcase"); warpsim takes the longer one's.
// - txq.width/.height/.depth and their .level forms, suq.width/.height/.depth (the other queries
//   make the H100's driver refuse the module);
// - the driver API's cuMipmappedArrayCreate / GetLevel / Destroy and a texture object made by
//   cuTexObjectCreate on the mipmapped array.
// Printed values are small integers or exact binary fractions, so the output is deterministic.
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

static int fails = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "yes" : "NO");
  if (!ok) ++fails;
}
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

// ---------------------------------------------------------------- kernels

struct Q {
  float u, v, lod, gx, gy, hx, hy;  // coordinates, level of detail, gradients dPdx = (gx, gy), dPdy = (hx, hy)
};
__global__ void lod2d(cudaTextureObject_t t, const Q* q, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod<float4>(t, q[i].u, q[i].v, q[i].lod);
}
__global__ void grad2d(cudaTextureObject_t t, const Q* q, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2DGrad<float4>(t, q[i].u, q[i].v, make_float2(q[i].gx, q[i].gy), make_float2(q[i].hx, q[i].hy));
}
__global__ void plain2d(cudaTextureObject_t t, const Q* q, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, q[i].u, q[i].v);
}
__global__ void others(cudaTextureObject_t t1, cudaTextureObject_t t3, cudaTextureObject_t tl, cudaTextureObject_t tc,
                       const Q* q, float* out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  out[6 * i + 0] = tex1DLod<float>(t1, q[i].u, q[i].lod);
  out[6 * i + 1] = tex1DGrad<float>(t1, q[i].u, q[i].gx, 0.0f);
  out[6 * i + 2] = tex3DLod<float>(t3, q[i].u, q[i].v, q[i].u, q[i].lod);
  out[6 * i + 3] = tex3DGrad<float>(t3, q[i].u, q[i].v, q[i].u, make_float4(q[i].gx, 0, 0, 0),
                                    make_float4(0, q[i].hy, 0, 0));
  out[6 * i + 4] = tex2DLayeredLod<float>(tl, q[i].u, q[i].v, 2, q[i].lod);
  out[6 * i + 5] = texCubemapLod<float>(tc, 1.0f, 2 * q[i].v - 1, 1 - 2 * q[i].u, q[i].lod);
}
__global__ void queries(cudaTextureObject_t t, cudaSurfaceObject_t s, int* out) {
  int v;
  asm volatile("txq.width.b32 %0, [%1];" : "=r"(v) : "l"(t));
  out[0] = v;
  asm volatile("txq.height.b32 %0, [%1];" : "=r"(v) : "l"(t));
  out[1] = v;
  asm volatile("txq.depth.b32 %0, [%1];" : "=r"(v) : "l"(t));
  out[2] = v;
  for (int l = 0; l < 8; ++l) {
    const int lvl = l == 7 ? -1 : l;
    asm volatile("txq.level.width.b32 %0, [%1], %2;" : "=r"(v) : "l"(t), "r"(lvl));
    out[3 + 3 * l] = v;
    asm volatile("txq.level.height.b32 %0, [%1], %2;" : "=r"(v) : "l"(t), "r"(lvl));
    out[4 + 3 * l] = v;
    asm volatile("txq.level.depth.b32 %0, [%1], %2;" : "=r"(v) : "l"(t), "r"(lvl));
    out[5 + 3 * l] = v;
  }
  if (s) {
    asm volatile("suq.width.b32 %0, [%1];" : "=r"(v) : "l"(s));
    out[27] = v;
    asm volatile("suq.height.b32 %0, [%1];" : "=r"(v) : "l"(s));
    out[28] = v;
    asm volatile("suq.depth.b32 %0, [%1];" : "=r"(v) : "l"(s));
    out[29] = v;
  }
}

// ---------------------------------------------------------------- CPU reference

// The 2D texture: 64 x 32, 7 levels; texel (x, y) of level l is (l, x, y, 100 l + 4 y + x / 2).
static const int W = 64, H = 32, LEVELS = 7;
static int lw(int l) { return W >> l > 1 ? W >> l : 1; }
static int lh(int l) { return H >> l > 1 ? H >> l : 1; }
static float4 texel(int l, int x, int y) { return make_float4(float(l), float(x), float(y), 100.f * l + 4 * y + x * 0.5f); }

// Level of detail in 1/256 after bias and clamps (max first, then min), truncated.
struct Sampler {
  bool linear_mip = true;
  float bias = 0, lo = 0, hi = 1000;
};
static long lod256(float lod, const Sampler& s) {
  if (std::isnan(lod)) lod = 0;
  float l = lod + s.bias;
  l = std::fmin(l, s.hi);
  l = std::fmax(l, s.lo);
  l = std::fmax(std::fmin(l, 1e6f), -1e6f);
  return long(std::floor(double(l) * 256));
}
// Point sampling of level l at normalized (u, v), clamp addressing.
static float4 point(int l, float u, float v) {
  int x = int(std::floor(u * lw(l))), y = int(std::floor(v * lh(l)));
  x = x < 0 ? 0 : x >= lw(l) ? lw(l) - 1 : x;
  y = y < 0 ? 0 : y >= lh(l) ? lh(l) - 1 : y;
  return texel(l, x, y);
}
static float blend(float a, float b, float w) {
  const float x = a * (1 - w), y = b * w;
  return x + y;
}
static float4 ref_lod(float u, float v, long l256, const Sampler& s) {
  const long top = (LEVELS - 1) * 256;
  l256 = l256 < 0 ? 0 : l256 > top ? top : l256;
  if (!s.linear_mip) return point(int((l256 + 128) >> 8), u, v);
  const int l0 = int(l256 >> 8);
  const float w = float(l256 & 255) / 256;
  const float4 a = point(l0, u, v);
  if (w == 0) return a;
  const float4 b = point(l0 + 1, u, v);
  return make_float4(blend(a.x, b.x, w), blend(a.y, b.y, w), blend(a.z, b.z, w), blend(a.w, b.w, w));
}
// log2 of a length in 1/256 as the H100 computes it, for lengths 2^e (1 + m/256) where
// round(256 log2(1 + (m + 0.5) / 256)) is its answer (true of the m this test uses).
static long log2_256(float len) {
  int e;
  const float f = std::frexp(len, &e);  // len = f 2^e, f in [0.5, 1)
  const int m = int(f * 512) - 256;
  return long(e - 1) * 256 + long(std::floor(256 * std::log2(1 + (m + 0.5) / 256) + 0.5)) * (m > 0);
}
static bool same(float4 a, float4 b) { return !std::memcmp(&a, &b, sizeof a); }

// ---------------------------------------------------------------- helpers

static cudaMipmappedArray_t mip2d;
static Q* dq;
static float4* dout;
static int fetch(void (*k)(cudaTextureObject_t, const Q*, float4*, int), cudaTextureObject_t t, const std::vector<Q>& q,
                 std::vector<float4>& out) {
  CK(cudaMemcpy(dq, q.data(), q.size() * sizeof(Q), cudaMemcpyHostToDevice));
  k<<<1, 256>>>(t, dq, dout, int(q.size()));
  CK(cudaGetLastError());
  out.resize(q.size());
  CK(cudaMemcpy(out.data(), dout, q.size() * sizeof(float4), cudaMemcpyDeviceToHost));
  return 0;
}
static cudaTextureObject_t make_tex(cudaMipmappedArray_t m, const Sampler& s, bool normalized = true,
                                    bool linear = false) {
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = m;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.mipmapFilterMode = s.linear_mip ? cudaFilterModeLinear : cudaFilterModePoint;
  td.normalizedCoords = normalized;
  td.readMode = cudaReadModeElementType;
  td.mipmapLevelBias = s.bias;
  td.minMipmapLevelClamp = s.lo;
  td.maxMipmapLevelClamp = s.hi;
  cudaTextureObject_t t = 0;
  if (cudaCreateTextureObject(&t, &r, &td, nullptr) != cudaSuccess) std::printf("cudaCreateTextureObject failed\n");
  return t;
}
static void print4(const char* what, float4 v) { std::printf("  %s (%g, %g, %g, %g)\n", what, v.x, v.y, v.z, v.w); }
// Probe coordinates: spread over the texture, never on a texel edge at any level.
static float pu(int i) { return (i * 13 % 64 + 0.5f) / 64; }
static float pv(int i) { return (i * 7 % 32 + 0.5f) / 32; }

// ---------------------------------------------------------------- sections

static int arrays() {
  cudaChannelFormatDesc d4 = cudaCreateChannelDesc<float4>();
  cudaMipmappedArray_t m;
  CK(cudaMallocMipmappedArray(&m, &d4, make_cudaExtent(40, 24, 0), 6));
  std::printf("40x24 numLevels 6:");
  for (int l = 0; l < 7; ++l) {
    cudaArray_t a = nullptr;
    cudaError_t e = cudaGetMipmappedArrayLevel(&a, m, l);
    cudaExtent x = {};
    cudaChannelFormatDesc f;
    unsigned fl = 0;
    if (e == cudaSuccess) {
      cudaArrayGetInfo(&f, &x, &fl, a);
      std::printf(" %zux%zux%zu", x.width, x.height, x.depth);
    } else {
      std::printf(" [%d: %s]", l, cudaGetErrorName(e));
    }
  }
  std::printf("\n");
  CK(cudaFreeMipmappedArray(m));
  for (unsigned n : {0u, 20u}) {
    CK(cudaMallocMipmappedArray(&m, &d4, make_cudaExtent(40, 24, 0), n));
    cudaArray_t a;
    int levels = 0;
    while (cudaGetMipmappedArrayLevel(&a, m, levels) == cudaSuccess) ++levels;
    std::printf("40x24 numLevels %u: %d levels\n", n, levels);
    CK(cudaFreeMipmappedArray(m));
  }
  cudaGetLastError();
  CK(cudaMallocMipmappedArray(&m, &d4, make_cudaExtent(16, 8, 4), 5));
  std::printf("16x8x4 3D:");
  for (int l = 0; l < 5; ++l) {
    cudaArray_t a;
    cudaExtent x = {};
    cudaChannelFormatDesc f;
    CK(cudaGetMipmappedArrayLevel(&a, m, l));
    cudaArrayGetInfo(&f, &x, nullptr, a);
    std::printf(" %zux%zux%zu", x.width, x.height, x.depth);
  }
  std::printf("\n");
  CK(cudaFreeMipmappedArray(m));
  CK(cudaMallocMipmappedArray(&m, &d4, make_cudaExtent(16, 16, 3), 3, cudaArrayLayered));
  std::printf("16x16 x 3 layers:");
  for (int l = 0; l < 3; ++l) {
    cudaArray_t a;
    cudaExtent x = {};
    cudaChannelFormatDesc f;
    unsigned fl = 0;
    CK(cudaGetMipmappedArrayLevel(&a, m, l));
    cudaArrayGetInfo(&f, &x, &fl, a);
    std::printf(" %zux%zux%zu flags %u", x.width, x.height, x.depth, fl);
  }
  std::printf("\n");
  CK(cudaFreeMipmappedArray(m));

  // The 2D texture of the tests below.
  CK(cudaMallocMipmappedArray(&mip2d, &d4, make_cudaExtent(W, H, 0), 0 + LEVELS));
  for (int l = 0; l < LEVELS; ++l) {
    cudaArray_t a;
    CK(cudaGetMipmappedArrayLevel(&a, mip2d, l));
    std::vector<float4> v(lw(l) * lh(l));
    for (int y = 0; y < lh(l); ++y)
      for (int x = 0; x < lw(l); ++x) v[y * lw(l) + x] = texel(l, x, y);
    CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), lw(l) * 16, lw(l) * 16, lh(l), cudaMemcpyHostToDevice));
  }
  return 0;
}

static int explicit_lod() {
  std::vector<Q> q;
  std::vector<float4> o;
  // Integer levels, beyond the last, below 0: every level's own pattern (point mipmap filter).
  Sampler pt;
  pt.linear_mip = false;
  cudaTextureObject_t tp = make_tex(mip2d, pt);
  const float lods[] = {0, 1, 2, 3, 4, 5, 6, 7, 10, -1, -100};
  for (float l : lods)
    for (int i = 0; i < 16; ++i) q.push_back(Q{pu(i), pv(i), l});
  if (fetch(lod2d, tp, q, o)) return 1;
  bool ok = true;
  for (size_t i = 0; i < q.size(); ++i) ok &= same(o[i], ref_lod(q[i].u, q[i].v, lod256(q[i].lod, pt), pt));
  report("tex2DLod at levels 0..6, 7, 10, -1, -100 (point mipmap filter)", ok);
  for (size_t i = 0; i < q.size(); i += 16) std::printf("  lod %g: level %g\n", q[i].lod, o[i].x);
  // Fractional levels, point filter: the nearest level (half-way goes up).
  q.clear();
  const float frac[] = {0.25f, 0.49f, 0.5f, 0.51f, 1.4999f, 1.5f, 2.7f, 5.5f, 6.4f, NAN, INFINITY, -INFINITY};
  for (float l : frac)
    for (int i = 0; i < 8; ++i) q.push_back(Q{pu(i), pv(i), l});
  if (fetch(lod2d, tp, q, o)) return 1;
  ok = true;
  for (size_t i = 0; i < q.size(); ++i) ok &= same(o[i], ref_lod(q[i].u, q[i].v, lod256(q[i].lod, pt), pt));
  report("tex2DLod at fractional levels (point mipmap filter: the nearest level)", ok);
  std::printf("  levels read:");
  for (size_t i = 0; i < q.size(); i += 8) std::printf(" %g->%g", q[i].lod, o[i].x);
  std::printf("\n");
  // Linear mipmap filter: the two levels blended with an 8-bit truncated weight.
  Sampler lin;
  cudaTextureObject_t tl = make_tex(mip2d, lin);
  q.clear();
  const float fl[] = {0.001953125f, 0.005859375f, 0.00390625f, 0.1f, 0.3f, 0.5f, 0.75f, 0.999f, 1.25f, 2.6f,
                      3.0f, 4.125f, 5.9f, 6.5f, -0.5f};
  for (float l : fl)
    for (int i = 0; i < 16; ++i) q.push_back(Q{pu(i), pv(i), l});
  if (fetch(lod2d, tl, q, o)) return 1;
  ok = true;
  for (size_t i = 0; i < q.size(); ++i) ok &= same(o[i], ref_lod(q[i].u, q[i].v, lod256(q[i].lod, lin), lin));
  report("tex2DLod at fractional levels (linear mipmap filter, weights in 1/256, truncated)", ok);
  for (size_t i = 0; i < q.size(); i += 16) {
    char what[64];
    std::snprintf(what, sizeof what, "lod %.9g at (%g, %g):", q[i].lod, q[i].u, q[i].v);
    print4(what, o[i]);
  }
  // Unnormalized coordinates: still read as normalized.
  cudaTextureObject_t tu = make_tex(mip2d, lin, false);
  q.clear();
  for (int i = 0; i < 16; ++i) q.push_back(Q{pu(i), pv(i), 1.5f});
  q.push_back(Q{10.5f, 3.5f, 0});
  if (fetch(lod2d, tu, q, o)) return 1;
  ok = true;
  for (size_t i = 0; i < q.size(); ++i) ok &= same(o[i], ref_lod(q[i].u, q[i].v, lod256(q[i].lod, lin), lin));
  report("a mipmapped texture made with unnormalized coordinates reads them as normalized", ok);
  print4("lod 0 at (10.5, 3.5):", o.back());
  // Plain tex2D on a mipmapped texture: level 0.
  q.clear();
  for (int i = 0; i < 16; ++i) q.push_back(Q{pu(i), pv(i)});
  if (fetch(plain2d, tl, q, o)) return 1;
  ok = true;
  for (size_t i = 0; i < q.size(); ++i) ok &= same(o[i], point(0, q[i].u, q[i].v));
  report("tex2D on a mipmapped texture reads level 0", ok);
  // Linear filtering inside the levels and between them, where every weight is 0 or 1/2.
  cudaTextureObject_t tt = make_tex(mip2d, lin, true, true);
  q.clear();
  for (int i = 0; i < 4; ++i) q.push_back(Q{(8.0f + 2 * i) / 64, (4.0f + 2 * i) / 32, 0.5f});
  if (fetch(lod2d, tt, q, o)) return 1;
  ok = true;
  for (size_t i = 0; i < q.size(); ++i) {
    // (u, v) is on a texel corner in both levels: the mean of the 4 texels around it, then half
    // of each level.
    auto corner = [](int l, int x, int y) {
      float4 a = make_float4(0, 0, 0, 0);
      for (int dy = -1; dy <= 0; ++dy)
        for (int dx = -1; dx <= 0; ++dx) {
          const float4 t = texel(l, x + dx, y + dy);
          a.x += t.x / 4, a.y += t.y / 4, a.z += t.z / 4, a.w += t.w / 4;
        }
      return a;
    };
    const int x = int(q[i].u * 64), y = int(q[i].v * 32);
    const float4 a = corner(0, x, y), b = corner(1, x / 2, y / 2);
    ok &= same(o[i], make_float4(blend(a.x, b.x, 0.5f), blend(a.y, b.y, 0.5f), blend(a.z, b.z, 0.5f),
                                 blend(a.w, b.w, 0.5f)));
  }
  report("trilinear: bilinear in levels 0 and 1, blended half-way", ok);
  print4("trilinear at (8/64, 4/32), lod 0.5:", o[0]);
  for (auto t : {tp, tl, tu, tt}) CK(cudaDestroyTextureObject(t));
  return 0;
}

static int gradients_and_clamps() {
  std::vector<Q> q;
  std::vector<float4> o;
  Sampler lin;
  cudaTextureObject_t tl = make_tex(mip2d, lin);
  // Isotropic and axis-aligned gradients (in normalized units; lengths in texels of level 0 are
  // g * 64 along x, g * 32 along y).
  struct G {
    float gx, gy, hx, hy;  // texels of level 0
  } gs[] = {{1, 0, 0, 1},       {0.5f, 0, 0, 0.5f}, {2, 0, 0, 2},     {4, 0, 0, 4},   {8, 0, 0, 8},
            {64, 0, 0, 64},     {1000, 0, 0, 0},    {0, 0, 0, 0},     {1.5f, 0, 0, 1}, {1.25f, 0, 0, 1},
            {1, 0, 0, 1.75f},   {2, 0, 0, 1},       {1, 0, 0, 4},     {0, 4, 1, 0},   {-2.5f, 0, 0, 1},
            {0, -3, 0, 0},      {1.12890625f, 0, 0, 0}, {6, 0, 0, 5},   {12, 0, 0, 0},  {0, 0, 0, 20}};
  for (auto& g : gs)
    for (int i = 0; i < 4; ++i) q.push_back(Q{pu(i), pv(i), 0, g.gx / 64, g.gy / 32, g.hx / 64, g.hy / 32});
  if (fetch(grad2d, tl, q, o)) return 1;
  bool ok = true;
  std::printf("tex2DGrad levels of detail:");
  for (size_t i = 0; i < q.size(); ++i) {
    const G& g = gs[i / 4];
    const float rho = std::fmax(std::fabs(g.gx) + std::fabs(g.gy), std::fabs(g.hx) + std::fabs(g.hy));  // one is 0
    const long l = rho > 0 ? log2_256(rho) : -100000;
    ok &= same(o[i], ref_lod(q[i].u, q[i].v, lod256(float(l) / 256, lin), lin));
    if (i % 4 == 0) std::printf(" %g", o[i].x);
  }
  std::printf("\n");
  report("tex2DGrad: log2 of the longer gradient (texels of level 0), linear mipmap filter", ok);
  // Bias and clamps, through explicit levels and gradients.
  Sampler bc;
  bc.bias = 0.5f, bc.lo = 1.25f, bc.hi = 3.5f;
  Sampler bp = bc;
  bp.linear_mip = false;
  Sampler nb;
  nb.bias = -0.75f;
  Sampler inv;
  inv.lo = 2, inv.hi = 1;
  struct {
    const char* name;
    Sampler s;
  } ss[] = {{"bias 0.5 clamp [1.25, 3.5]", bc}, {"same, point mipmap filter", bp}, {"bias -0.75", nb},
            {"clamp [2, 1] (inverted)", inv}};
  for (auto& s : ss) {
    cudaTextureObject_t t = make_tex(mip2d, s.s);
    q.clear();
    for (int k = -4; k <= 32; ++k) q.push_back(Q{pu(k + 4), pv(k + 4), k / 4.0f});
    if (fetch(lod2d, t, q, o)) return 1;
    ok = true;
    std::printf("  %s: levels", s.name);
    for (size_t i = 0; i < q.size(); ++i) {
      ok &= same(o[i], ref_lod(q[i].u, q[i].v, lod256(q[i].lod, s.s), s.s));
      if (i % 4 == 0) std::printf(" %g->%g", q[i].lod, o[i].x);
    }
    std::printf("\n");
    char what[96];
    std::snprintf(what, sizeof what, "tex2DLod with %s", s.name);
    report(what, ok);
    q.clear();
    for (int k = 0; k <= 12; ++k) {
      const float g = std::exp2(k * 0.5f - 1);
      q.push_back(Q{pu(k), pv(k), 0, g / 64, 0, 0, g / 32});
    }
    if (fetch(grad2d, t, q, o)) return 1;
    ok = true;
    for (size_t i = 0; i < q.size(); ++i)
      ok &= same(o[i], ref_lod(q[i].u, q[i].v, lod256(float(log2_256(q[i].gx * 64)) / 256, s.s), s.s));
    std::snprintf(what, sizeof what, "tex2DGrad with %s", s.name);
    report(what, ok);
    CK(cudaDestroyTextureObject(t));
  }
  CK(cudaDestroyTextureObject(tl));
  return 0;
}

// 1D (64, 7 levels), 3D (16^3, 5 levels), layered 2D (16x16 x 3, 5 levels) and cubemap (16, 5
// levels) float textures: texel value 10 * level + position in the level / size (exact).
static int other_geometries() {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m1, m3, ml, mc;
  CK(cudaMallocMipmappedArray(&m1, &f, make_cudaExtent(64, 0, 0), 7));
  CK(cudaMallocMipmappedArray(&m3, &f, make_cudaExtent(16, 16, 16), 5));
  CK(cudaMallocMipmappedArray(&ml, &f, make_cudaExtent(16, 16, 3), 5, cudaArrayLayered));
  CK(cudaMallocMipmappedArray(&mc, &f, make_cudaExtent(16, 16, 6), 5, cudaArrayCubemap));
  auto v1 = [](int l, int x) { return 10.f * l + float(x) / float(64 >> l); };
  auto v3 = [](int l, int x, int y, int z) { return 10.f * l + x + 0.25f * y + 0.0625f * z; };
  auto vl = [](int l, int x, int y, int z) { return 100.f * z + 10.f * l + x + 0.5f * y; };
  for (int l = 0; l < 7; ++l) {
    cudaArray_t a;
    CK(cudaGetMipmappedArrayLevel(&a, m1, l));
    std::vector<float> v(64 >> l);
    for (int x = 0; x < (64 >> l); ++x) v[x] = v1(l, x);
    CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), v.size() * 4, v.size() * 4, 1, cudaMemcpyHostToDevice));
  }
  for (int l = 0; l < 5; ++l) {
    const int s = 16 >> l;
    for (int which = 0; which < 3; ++which) {
      cudaArray_t a;
      CK(cudaGetMipmappedArrayLevel(&a, which == 0 ? m3 : which == 1 ? ml : mc, l));
      const int d = which == 0 ? s : which == 1 ? 3 : 6;
      std::vector<float> v(s * s * d);
      for (int z = 0; z < d; ++z)
        for (int y = 0; y < s; ++y)
          for (int x = 0; x < s; ++x) v[(z * s + y) * s + x] = which == 0 ? v3(l, x, y, z) : vl(l, x, y, z);
      cudaMemcpy3DParms p = {};
      p.srcPtr = make_cudaPitchedPtr(v.data(), s * 4, s, s);
      p.dstArray = a;
      p.extent = make_cudaExtent(s, s, d);
      p.kind = cudaMemcpyHostToDevice;
      CK(cudaMemcpy3D(&p));
    }
  }
  Sampler lin;
  cudaTextureObject_t t1 = make_tex(m1, lin), t3 = make_tex(m3, lin), tl = make_tex(ml, lin), tc = make_tex(mc, lin);
  std::vector<Q> q;
  for (int k = -2; k <= 28; ++k) {
    const float lod = k / 4.0f, g = std::exp2(lod);
    q.push_back(Q{((k + 2) * 5 % 16 + 0.5f) / 16, ((k + 2) * 3 % 16 + 0.5f) / 16, lod, g / 64, 0, g / 64, g / 16});
  }
  float* d;
  CK(cudaMalloc(&d, q.size() * 6 * 4));
  CK(cudaMemcpy(dq, q.data(), q.size() * sizeof(Q), cudaMemcpyHostToDevice));
  others<<<1, 64>>>(t1, t3, tl, tc, dq, d, int(q.size()));
  CK(cudaGetLastError());
  std::vector<float> o(q.size() * 6);
  CK(cudaMemcpy(o.data(), d, o.size() * 4, cudaMemcpyDeviceToHost));
  bool ok[6] = {true, true, true, true, true, true};
  // The level-of-detail in 1/256 (the gradients' lengths are exact powers 2^(k/4) whose 8-bit log2
  // is 64 k, as the H100 answers) through the linear mipmap filter.
  auto mix = [](long l256, int levels, auto val) {
    const long top = (levels - 1) * 256;
    l256 = l256 < 0 ? 0 : l256 > top ? top : l256;
    const int l0 = int(l256 >> 8);
    const float w = float(l256 & 255) / 256;
    return w == 0 ? val(l0) : blend(val(l0), val(l0 + 1), w);
  };
  for (size_t i = 0; i < q.size(); ++i) {
    const float u = q[i].u, v = q[i].v;
    const long l256 = long(std::floor(q[i].lod * 256));
    auto at1 = [&](int l) { return v1(l, int(u * (64 >> l))); };
    auto at3 = [&](int l) { const int s = 16 >> l; return v3(l, int(u * s), int(v * s), int(u * s)); };
    auto atl = [&](int l) { const int s = 16 >> l; return vl(l, int(u * s), int(v * s), 2); };
    // The cube direction (1, 2v - 1, 1 - 2u) is face +x at face coordinates (u, 1 - v)... as the
    // Programming Guide's table gives: s = (-z / x + 1) / 2 = u, t = (-y / x + 1) / 2 = 1 - v.
    auto atc = [&](int l) { const int s = 16 >> l; return vl(l, int(u * s), int((1 - v) * s), 0); };
    ok[0] &= o[6 * i + 0] == mix(l256, 7, at1);
    ok[1] &= o[6 * i + 1] == mix(l256, 7, at1);
    ok[2] &= o[6 * i + 2] == mix(l256, 5, at3);
    ok[3] &= o[6 * i + 3] == mix(l256, 5, at3);
    ok[4] &= o[6 * i + 4] == mix(l256, 5, atl);
    ok[5] &= o[6 * i + 5] == mix(l256, 5, atc);
  }
  report("tex1DLod", ok[0]);
  report("tex1DGrad", ok[1]);
  report("tex3DLod", ok[2]);
  report("tex3DGrad", ok[3]);
  report("tex2DLayeredLod (layer 2)", ok[4]);
  report("texCubemapLod (face +x)", ok[5]);
  for (size_t i = 0; i < q.size(); i += 6)
    std::printf("  lod %g: 1D %g 3D %g layered %g cube %g\n", q[i].lod, o[6 * i], o[6 * i + 2], o[6 * i + 4],
                o[6 * i + 5]);
  // tex1DGrad (dPdy 0) against tex1DLod at the same level of detail.
  std::printf("  tex1DGrad where it differs from tex1DLod:");
  for (size_t i = 0; i < q.size(); ++i)
    if (o[6 * i + 1] != o[6 * i]) std::printf(" lod %g u %g: %g vs %g;", q[i].lod, q[i].u, o[6 * i + 1], o[6 * i]);
  std::printf("\n");

  // Queries.
  int* dqr;
  CK(cudaMalloc(&dqr, 30 * 4));
  auto query = [&](const char* what, cudaTextureObject_t t, cudaSurfaceObject_t s) {
    std::vector<int> r(30, -1);
    cudaMemset(dqr, 0xff, 30 * 4);
    queries<<<1, 1>>>(t, s, dqr);
    if (cudaMemcpy(r.data(), dqr, 30 * 4, cudaMemcpyDeviceToHost) != cudaSuccess) return std::printf("query failed\n");
    std::printf("txq %s: %dx%dx%d, levels", what, r[0], r[1], r[2]);
    for (int l = 0; l < 8; ++l) std::printf(" %dx%dx%d", r[3 + 3 * l], r[4 + 3 * l], r[5 + 3 * l]);
    if (s) std::printf("; suq %dx%dx%d", r[27], r[28], r[29]);
    return std::printf("\n");
  };
  cudaTextureObject_t t2 = make_tex(mip2d, lin);
  query("2D 64x32 mipmapped", t2, 0);
  query("1D 64 mipmapped", t1, 0);
  query("3D 16^3 mipmapped", t3, 0);
  query("layered 16x16 x 3 mipmapped", tl, 0);
  query("cubemap 16 mipmapped", tc, 0);
  cudaArray_t a1, al;
  CK(cudaMallocArray(&a1, &f, 9, 0, cudaArraySurfaceLoadStore));
  CK(cudaMalloc3DArray(&al, &f, make_cudaExtent(8, 6, 3), cudaArrayLayered | cudaArraySurfaceLoadStore));
  for (cudaArray_t a : {a1, al}) {
    cudaResourceDesc r = {};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc td = {};
    cudaTextureObject_t t;
    cudaSurfaceObject_t s;
    CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
    CK(cudaCreateSurfaceObject(&s, &r));
    query(a == a1 ? "1D array 9" : "layered array 8x6 x 3", t, s);
    CK(cudaDestroyTextureObject(t));
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
  }
  for (auto t : {t1, t3, tl, tc, t2}) CK(cudaDestroyTextureObject(t));
  for (auto m : {m1, m3, ml, mc}) CK(cudaFreeMipmappedArray(m));
  CK(cudaFree(d));
  CK(cudaFree(dqr));
  return 0;
}

// The driver API: a mipmapped array, its levels filled through the runtime, a texture object made
// by cuTexObjectCreate.
static int driver() {
  CUDA_ARRAY3D_DESCRIPTOR d = {};
  d.Width = 32;
  d.Height = 16;
  d.Format = CU_AD_FORMAT_FLOAT;
  d.NumChannels = 1;
  CUmipmappedArray m;
  CUresult r = cuMipmappedArrayCreate(&m, &d, 4);
  std::printf("cuMipmappedArrayCreate 32x16, 4 levels: %d\n", int(r));
  if (r) return 1;
  for (unsigned l = 0; l < 5; ++l) {
    CUarray a;
    r = cuMipmappedArrayGetLevel(&a, m, l);
    if (r) {
      std::printf("  level %u: %d\n", l, int(r));
      continue;
    }
    CUDA_ARRAY3D_DESCRIPTOR g = {};
    cuArray3DGetDescriptor(&g, a);
    std::printf("  level %u: %zu x %zu\n", l, g.Width, g.Height);
    std::vector<float> v(g.Width * g.Height, float(l + 1));
    CK(cudaMemcpy2DToArray((cudaArray_t)a, 0, 0, v.data(), g.Width * 4, g.Width * 4, g.Height, cudaMemcpyHostToDevice));
  }
  CUDA_RESOURCE_DESC rd = {};
  rd.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
  rd.res.mipmap.hMipmappedArray = m;
  CUDA_TEXTURE_DESC td = {};
  td.filterMode = CU_TR_FILTER_MODE_POINT;
  td.mipmapFilterMode = CU_TR_FILTER_MODE_LINEAR;
  td.maxMipmapLevelClamp = 10;
  td.flags = CU_TRSF_NORMALIZED_COORDINATES;
  CUtexObject t;
  r = cuTexObjectCreate(&t, &rd, &td, nullptr);
  std::printf("cuTexObjectCreate on the mipmapped array: %d\n", int(r));
  if (r) return 1;
  std::vector<Q> q;
  for (int k = 0; k < 16; ++k) q.push_back(Q{0.5f, 0.5f, k * 0.25f});
  std::vector<float4> o;
  if (fetch(lod2d, t, q, o)) return 1;
  bool ok = true;
  std::printf("  levels of detail 0..3.75 read:");
  for (size_t i = 0; i < q.size(); ++i) {
    const float l = std::fmin(q[i].lod, 3);
    ok &= o[i].x == 1 + l;
    std::printf(" %g", o[i].x);
  }
  std::printf("\n");
  report("cuTexObjectCreate(CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) read by tex2DLod", ok);
  cuTexObjectDestroy(t);
  std::printf("cuMipmappedArrayDestroy: %d\n", int(cuMipmappedArrayDestroy(m)));
  return 0;
}

int main() {
  if (cudaMalloc(&dq, 1024 * sizeof(Q)) != cudaSuccess || cudaMalloc(&dout, 1024 * sizeof(float4)) != cudaSuccess)
    return 1;
  if (arrays() || explicit_lod() || gradients_and_clamps() || other_geometries() || driver()) {
    std::printf("texture_mipmap: FAIL (error)\n");
    return 1;
  }
  CK(cudaFreeMipmappedArray(mip2d));
  std::printf("texture_mipmap: %s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
