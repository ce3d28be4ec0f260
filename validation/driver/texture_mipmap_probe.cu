// Mipmap probe: what the H100 does for tex.level / tex.grad (measurement, raw output), for
// src/func/texture.hpp's level-of-detail rules and its log2 table.
// h100_texture_mipmap_probe.out: nvcc -arch=sm_90 -DNOQ -o probe texture_mipmap_probe.cu && ./probe
// (without -DNOQ the txq/suq kernel makes the driver refuse the whole module: every launch fails
// with cudaErrorNotSupported; texture_queries.sh finds which queries it refuses). The "grad12"
// lines are the table: the level of detail (in 1/256, as the blend of levels holding 0 and 1)
// of isotropic gradients 1 + m/256 texels long.
#include <cstdio>
#include <cmath>
#include <vector>
#include <cstdint>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); } } while (0)

__global__ void lod2d(cudaTextureObject_t t, const float* lod, const float2* c, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex2DLod<float4>(t, c[i].x, c[i].y, lod[i]);
}
__global__ void grad2d(cudaTextureObject_t t, const float4* g, const float2* c, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex2DGrad<float4>(t, c[i].x, c[i].y, make_float2(g[i].x, g[i].y), make_float2(g[i].z, g[i].w));
}
__global__ void lod1d(cudaTextureObject_t t, const float* lod, float x, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex1DLod<float4>(t, x, lod[i]);
}
__global__ void grad1d(cudaTextureObject_t t, const float* g, float x, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex1DGrad<float4>(t, x, g[i], 0.f);
}
__global__ void lod3d(cudaTextureObject_t t, const float* lod, float x, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex3DLod<float4>(t, x, x, x, lod[i]);
}
__global__ void grad3d(cudaTextureObject_t t, const float4* g, float x, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex3DGrad<float4>(t, x, x, x, make_float4(g[i].x, 0, 0, 0), make_float4(0, g[i].y, 0, 0) );
}
__global__ void lodlayer(cudaTextureObject_t t, const float* lod, float4* o, int n, int layer) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = tex2DLayeredLod<float4>(t, 0.5f, 0.5f, layer, lod[i]);
}
__global__ void lodcube(cudaTextureObject_t t, const float* lod, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = texCubemapLod<float4>(t, 1.f, 0.2f, 0.1f, lod[i]);
}
__global__ void gradcube(cudaTextureObject_t t, const float* g, float4* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = texCubemapGrad<float4>(t, 1.f, 0.2f, 0.1f, make_float4(0, g[i], 0, 0), make_float4(0, 0, g[i], 0));
}
#ifndef NOQ
__global__ void queries(cudaTextureObject_t t, int* o) {
  int v;
#define Q(name, k) asm volatile("txq." #name ".b32 %0, [%1];" : "=r"(v) : "l"(t)); o[k] = v;
  Q(width, 0) Q(height, 1) Q(depth, 2) Q(channel_data_type, 3) Q(channel_order, 4) Q(normalized_coords, 5)
  Q(array_size, 6) Q(num_mipmap_levels, 7) Q(num_samples, 8) Q(filter_mode, 9) Q(addr_mode_0, 10)
  Q(addr_mode_1, 11) Q(addr_mode_2, 12) Q(force_unnormalized_coords, 13)
  for (int l = 0; l < 9; ++l) {
    asm volatile("txq.level.width.b32 %0, [%1], %2;" : "=r"(v) : "l"(t), "r"(l)); o[14 + 3 * l] = v;
    asm volatile("txq.level.height.b32 %0, [%1], %2;" : "=r"(v) : "l"(t), "r"(l)); o[15 + 3 * l] = v;
    asm volatile("txq.level.depth.b32 %0, [%1], %2;" : "=r"(v) : "l"(t), "r"(l)); o[16 + 3 * l] = v;
  }
  asm volatile("txq.level.width.b32 %0, [%1], %2;" : "=r"(v) : "l"(t), "r"(-1)); o[41] = v;
}
__global__ void squeries(cudaSurfaceObject_t t, int* o) {
  int v;
#define S(name, k) asm volatile("suq." #name ".b32 %0, [%1];" : "=r"(v) : "l"(t)); o[k] = v;
  S(width, 0) S(height, 1) S(depth, 2) S(channel_data_type, 3) S(channel_order, 4) S(array_size, 5) S(memory_layout, 6)
}

#else
__global__ void queries(cudaTextureObject_t, int*) {}
__global__ void squeries(cudaSurfaceObject_t, int*) {}
#endif
static const int N = 16384;
float *d_lod; float2* d_c; float4 *d_g, *d_o; float* d_gs;
std::vector<float4> run_lod2d(cudaTextureObject_t t, const std::vector<float>& lod, const std::vector<float2>& c) {
  int n = lod.size();
  cudaMemcpy(d_lod, lod.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(d_c, c.data(), n * 8, cudaMemcpyHostToDevice);
  lod2d<<<(n + 127) / 128, 128>>>(t, d_lod, d_c, d_o, n);
  { static int once = 0; cudaError_t e = cudaGetLastError(); if (!once++ || e) printf("launch: %s sync %s\n", cudaGetErrorName(e), cudaGetErrorName(cudaDeviceSynchronize())); }
  std::vector<float4> o(n);
  CK(cudaMemcpy(o.data(), d_o, n * 16, cudaMemcpyDeviceToHost));
  return o;
}
std::vector<float4> run_grad2d(cudaTextureObject_t t, const std::vector<float4>& g, const std::vector<float2>& c) {
  int n = g.size();
  cudaMemcpy(d_g, g.data(), n * 16, cudaMemcpyHostToDevice);
  cudaMemcpy(d_c, c.data(), n * 8, cudaMemcpyHostToDevice);
  grad2d<<<(n + 127) / 128, 128>>>(t, d_g, d_c, d_o, n);
  std::vector<float4> o(n);
  CK(cudaMemcpy(o.data(), d_o, n * 16, cudaMemcpyDeviceToHost));
  return o;
}

cudaMipmappedArray_t make2d(int w, int h, int levels, float (*f)(int, int, int)) {
  cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t m;
  CK(cudaMallocMipmappedArray(&m, &d, make_cudaExtent(w, h, 0), levels));
  for (int l = 0; l < levels; ++l) {
    cudaArray_t a;
    CK(cudaGetMipmappedArrayLevel(&a, m, l));
    cudaExtent e; cudaChannelFormatDesc dd; unsigned fl;
    CK(cudaArrayGetInfo(&dd, &e, &fl, a));
    int lw = e.width, lh = e.height;
    std::vector<float> v(lw * lh);
    for (int y = 0; y < lh; ++y) for (int x = 0; x < lw; ++x) v[y * lw + x] = f(l, x, y);
    CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), lw * 4, lw * 4, lh, cudaMemcpyHostToDevice));
  }
  return m;
}
cudaTextureObject_t tex_of(cudaMipmappedArray_t m, bool linear, bool miplinear, bool norm, float bias = 0,
                           float mn = 0, float mx = 100, int aniso = 0) {
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeMipmappedArray;
  r.res.mipmap.mipmap = m;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
  td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.mipmapFilterMode = miplinear ? cudaFilterModeLinear : cudaFilterModePoint;
  td.normalizedCoords = norm;
  td.readMode = cudaReadModeElementType;
  td.mipmapLevelBias = bias;
  td.minMipmapLevelClamp = mn;
  td.maxMipmapLevelClamp = mx;
  td.maxAnisotropy = aniso;
  cudaTextureObject_t t = 0;
  CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
  return t;
}
static float lvl_const(int l, int, int) { return float(l); }
static float lvl_rand(int l, int x, int y) { return float(((l * 131 + x * 37 + y * 101) * 2654435761u >> 20) % 1000) / 8.f; }
static float lvl_big(int l, int, int) { return float(l * 1024); }

void transitions(const char* what, const std::vector<float>& arg, const std::vector<float4>& o, int limit = 600) {
  printf("# %s transitions (arg value)\n", what);
  int printed = 0;
  for (size_t i = 0; i < o.size() && printed < limit; ++i)
    if (i == 0 || o[i].x != o[i - 1].x) { printf("%s %.9g %.9g\n", what, arg[i], o[i].x); ++printed; }
}

int main() {
  cudaMalloc(&d_lod, N * 4); cudaMalloc(&d_c, N * 8); cudaMalloc(&d_g, N * 16); cudaMalloc(&d_o, N * 16);
  cudaMalloc(&d_gs, N * 4);
  // Level extents and errors.
  {
    cudaChannelFormatDesc d = cudaCreateChannelDesc<float4>();
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &d, make_cudaExtent(40, 24, 0), 6));
    for (int l = 0; l < 7; ++l) {
      cudaArray_t a = nullptr;
      cudaError_t e = cudaGetMipmappedArrayLevel(&a, m, l);
      cudaExtent x = {}; unsigned fl = 99; cudaChannelFormatDesc dd;
      if (e == cudaSuccess) cudaArrayGetInfo(&dd, &x, &fl, a);
      printf("level %d: %s %zux%zux%zu flags %u\n", l, cudaGetErrorName(e), x.width, x.height, x.depth, fl);
    }
    cudaError_t e0 = cudaMallocMipmappedArray(&m, &d, make_cudaExtent(40, 24, 0), 0);
    printf("numLevels 0: %s\n", cudaGetErrorName(e0));
    if (e0 == cudaSuccess) { cudaArray_t a; int l = 0; while (cudaGetMipmappedArrayLevel(&a, m, l) == cudaSuccess) ++l; printf("  levels %d\n", l); }
    cudaGetLastError();
    printf("numLevels 7 of 40x24: %s\n", cudaGetErrorName(cudaMallocMipmappedArray(&m, &d, make_cudaExtent(40, 24, 0), 7)));
    cudaGetLastError();
    printf("numLevels 20 of 40x24: %s\n", cudaGetErrorName(cudaMallocMipmappedArray(&m, &d, make_cudaExtent(40, 24, 0), 20)));
    cudaGetLastError();
    cudaMipmappedArray_t m3;
    CK(cudaMallocMipmappedArray(&m3, &d, make_cudaExtent(16, 8, 4), 5));
    for (int l = 0; l < 5; ++l) {
      cudaArray_t a = nullptr; cudaExtent x = {}; unsigned fl = 0; cudaChannelFormatDesc dd;
      cudaGetMipmappedArrayLevel(&a, m3, l); cudaArrayGetInfo(&dd, &x, &fl, a);
      printf("3d level %d: %zux%zux%zu\n", l, x.width, x.height, x.depth);
    }
    CK(cudaMallocMipmappedArray(&m3, &d, make_cudaExtent(16, 0, 0), 5));
    for (int l = 0; l < 5; ++l) {
      cudaArray_t a = nullptr; cudaExtent x = {}; unsigned fl = 0; cudaChannelFormatDesc dd;
      cudaGetMipmappedArrayLevel(&a, m3, l); cudaArrayGetInfo(&dd, &x, &fl, a);
      printf("1d level %d: %zux%zux%zu\n", l, x.width, x.height, x.depth);
    }
    CK(cudaMallocMipmappedArray(&m3, &d, make_cudaExtent(16, 16, 3), 3, cudaArrayLayered));
    for (int l = 0; l < 3; ++l) {
      cudaArray_t a = nullptr; cudaExtent x = {}; unsigned fl = 0; cudaChannelFormatDesc dd;
      cudaGetMipmappedArrayLevel(&a, m3, l); cudaArrayGetInfo(&dd, &x, &fl, a);
      printf("layered level %d: %zux%zux%zu flags %u\n", l, x.width, x.height, x.depth, fl);
    }
    printf("free mip: %s, free level array: ", cudaGetErrorName(cudaFreeMipmappedArray(m3)));
    cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m, 0);
    printf("%s\n", cudaGetErrorName(cudaFreeArray(a)));
    cudaGetLastError();
  }
  cudaMipmappedArray_t mc = make2d(64, 64, 7, lvl_const);
  float2 mid = make_float2(0.5f, 0.5f);
  // 1. level blend weight (linear mip filter), lod in steps of 1/4096 over [0, 1], and over [2.9, 3.1].
  {
    cudaTextureObject_t t = tex_of(mc, false, true, true);
    std::vector<float> lod; std::vector<float2> c;
    for (int k = 0; k <= 4096; ++k) { lod.push_back(k / 4096.f); c.push_back(mid); }
    transitions("blend01", lod, run_lod2d(t, lod, c), 300);
    lod.clear(); c.clear();
    for (int k = -40; k <= 40; ++k) { lod.push_back(k / 8.f); c.push_back(mid); }
    auto o = run_lod2d(t, lod, c);
    for (size_t i = 0; i < o.size(); ++i) printf("lodlin %g %.9g\n", lod[i], o[i].x);
    lod = {NAN, INFINITY, -INFINITY, -0.0f, 1e-8f, 0.001953125f, 0.00195f, 0.5f/256, 1.5f/256, 2.5f/256};
    c.assign(lod.size(), mid);
    o = run_lod2d(t, lod, c);
    for (size_t i = 0; i < o.size(); ++i) printf("lodspecial %.9g %.9g\n", lod[i], o[i].x);
    // big-valued levels, to see the weight applied to non-0/1 values
    cudaMipmappedArray_t mb = make2d(64, 64, 7, lvl_big);
    cudaTextureObject_t tb = tex_of(mb, false, true, true);
    lod.clear(); c.clear();
    for (int k = 0; k <= 64; ++k) { lod.push_back(1 + k / 64.f + 1.f/1024); c.push_back(mid); }
    o = run_lod2d(tb, lod, c);
    for (size_t i = 0; i < o.size(); ++i) printf("lodbig %.9g %.9g\n", lod[i], o[i].x);
  }
  // 2. point mip filter: level chosen
  {
    cudaTextureObject_t t = tex_of(mc, false, false, true);
    std::vector<float> lod; std::vector<float2> c;
    for (int k = -2048; k <= 4096 * 2; k += 1) { lod.push_back(k / 4096.f); c.push_back(mid); }
    transitions("pointmip", lod, run_lod2d(t, lod, c));
    lod = {6.4f, 6.6f, 7.f, 9.f, 100.f, NAN, -1.f};
    c.assign(lod.size(), mid);
    auto o = run_lod2d(t, lod, c);
    for (size_t i = 0; i < o.size(); ++i) printf("pointspecial %g %.9g\n", lod[i], o[i].x);
  }
  // 3. gradients: isotropic, normalized coords, g*64 from 1 to 2 (multiplicative steps) -> lod 0..1
  {
    cudaTextureObject_t t = tex_of(mc, false, true, true);
    std::vector<float4> g; std::vector<float2> c; std::vector<float> arg;
    for (int k = 0; k <= 4096; ++k) { float s = (1 + k / 4096.f) / 64; g.push_back(make_float4(s, 0, 0, s)); c.push_back(mid); arg.push_back(s * 64); }
    transitions("grad12", arg, run_grad2d(t, g, c), 400);
    g.clear(); c.clear(); arg.clear();
    for (int k = 0; k <= 4096; ++k) { float s = (2 + 2 * k / 4096.f) / 64; g.push_back(make_float4(s, 0, 0, s)); c.push_back(mid); arg.push_back(s * 64); }
    transitions("grad24", arg, run_grad2d(t, g, c), 60);
    // anisotropic and diagonal cases; print lod = value
    struct G { float ax, ay, bx, by; } cases[] = {
      {1, 0, 0, 1}, {2, 0, 0, 1}, {4, 0, 0, 1}, {1, 0, 0, 2}, {1, 0, 0, 4}, {0, 4, 1, 0}, {8, 0, 0, 0}, {0, 0, 0, 8},
      {1, 1, 0, 0}, {1, 1, -1, 1}, {3, 4, 0, 0}, {3, 4, 0, 1}, {2, 2, 2, 2}, {0.5f, 0, 0, 0.5f}, {0, 0, 0, 0},
      {-4, 0, 0, -4}, {1, 2, 3, 4}, {2, 0, 0, 3}, {3, 0, 0, 2}, {2.5f, 0, 0, 2.5f}, {1, 0, 1, 0}, {4, 4, 4, -4}};
    g.clear(); c.clear();
    for (auto& q : cases) { g.push_back(make_float4(q.ax / 64, q.ay / 64, q.bx / 64, q.by / 64)); c.push_back(mid); }
    auto o = run_grad2d(t, g, c);
    for (size_t i = 0; i < o.size(); ++i) printf("gradcase (%g,%g) (%g,%g) %.9g\n", cases[i].ax, cases[i].ay, cases[i].bx, cases[i].by, o[i].x);
    // anisotropy 16
    cudaTextureObject_t ta = tex_of(mc, false, true, true, 0, 0, 100, 16);
    o = run_grad2d(ta, g, c);
    for (size_t i = 0; i < o.size(); ++i) printf("gradaniso16 (%g,%g) (%g,%g) %.9g\n", cases[i].ax, cases[i].ay, cases[i].bx, cases[i].by, o[i].x);
    // unnormalized coordinates: are gradients in texels?
    cudaTextureObject_t tu = tex_of(mc, false, true, false);
    g.clear(); c.clear();
    float us[] = {1, 2, 4, 1.0f / 64, 2.0f / 64, 4.0f / 64, 0.5f};
    for (float s : us) { g.push_back(make_float4(s, 0, 0, s)); c.push_back(make_float2(32, 32)); }
    o = run_grad2d(tu, g, c);
    for (size_t i = 0; i < o.size(); ++i) printf("gradunnorm %g %.9g\n", us[i], o[i].x);
    std::vector<float> lod = {0.5f, 1.f, 2.5f}; c.assign(3, make_float2(32, 32));
    o = run_lod2d(tu, lod, c);
    for (size_t i = 0; i < o.size(); ++i) printf("lodunnorm %g %.9g\n", lod[i], o[i].x);
  }
  // 4. bias and clamps
  {
    cudaTextureObject_t tl = tex_of(mc, false, true, true, 0.5f, 1.25f, 3.5f);
    cudaTextureObject_t tp = tex_of(mc, false, false, true, 0.5f, 1.25f, 3.5f);
    cudaTextureObject_t tn = tex_of(mc, false, true, true, -0.75f, 0.f, 100.f);
    cudaTextureObject_t tz = tex_of(mc, false, true, true, 0.f, 0.f, 0.f);
    cudaTextureObject_t tq = tex_of(mc, false, true, true, 0.f, 2.f, 1.f);
    std::vector<float> lod; std::vector<float2> c;
    for (int k = -8; k <= 32; ++k) { lod.push_back(k / 4.f); c.push_back(mid); }
    auto a = run_lod2d(tl, lod, c), b = run_lod2d(tp, lod, c), n = run_lod2d(tn, lod, c), z = run_lod2d(tz, lod, c), q = run_lod2d(tq, lod, c);
    for (size_t i = 0; i < lod.size(); ++i) printf("biasclamp %g lin %.9g point %.9g negbias %.9g zeroclamp %.9g inverted %.9g\n", lod[i], a[i].x, b[i].x, n[i].x, z[i].x, q[i].x);
    std::vector<float4> g;
    for (int k = 0; k <= 8; ++k) { float s = exp2f(k * 0.75f - 1) / 64; g.push_back(make_float4(s, 0, 0, s)); }
    c.assign(g.size(), mid);
    a = run_grad2d(tl, g, c); b = run_grad2d(tn, g, c);
    for (size_t i = 0; i < g.size(); ++i) printf("gradbias %g lin %.9g negbias %.9g\n", g[i].x * 64, a[i].x, b[i].x);
  }
  // 5. trilinear on random data: levels filtered bilinearly then blended
  {
    cudaMipmappedArray_t mr = make2d(16, 16, 5, lvl_rand);
    cudaTextureObject_t t = tex_of(mr, true, true, false);
    std::vector<float> lod; std::vector<float2> c;
    float ls[] = {0, 0.3f, 0.5f, 1.f, 1.7f, 2.2f, 3.9f, 4.f, 5.f};
    for (float l : ls) for (int k = 0; k < 8; ++k) { lod.push_back(l); c.push_back(make_float2(1.3f + k * 1.37f, 2.6f + k * 0.71f)); }
    auto o = run_lod2d(t, lod, c);
    for (size_t i = 0; i < o.size(); ++i) printf("trilin lod %g (%.9g,%.9g) %.9g\n", lod[i], c[i].x, c[i].y, o[i].x);
    cudaTextureObject_t tn = tex_of(mr, true, true, true);
    for (auto& p : c) { p.x /= 16; p.y /= 16; }
    o = run_lod2d(tn, lod, c);
    for (size_t i = 0; i < o.size(); ++i) printf("trilinnorm lod %g (%.9g,%.9g) %.9g\n", lod[i], c[i].x, c[i].y, o[i].x);
    cudaTextureObject_t tp = tex_of(mr, false, true, true);
    o = run_lod2d(tp, lod, c);
    for (size_t i = 0; i < o.size(); ++i) printf("pointlin lod %g (%.9g,%.9g) %.9g\n", lod[i], c[i].x, c[i].y, o[i].x);
  }
  // 6. 1D and 3D, layered, cubemap
  {
    cudaChannelFormatDesc d = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m1, m3, ml, mcu;
    CK(cudaMallocMipmappedArray(&m1, &d, make_cudaExtent(64, 0, 0), 7));
    for (int l = 0; l < 7; ++l) { cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m1, l); std::vector<float> v(64 >> l, float(l)); CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), v.size() * 4, v.size() * 4, 1, cudaMemcpyHostToDevice)); }
    CK(cudaMallocMipmappedArray(&m3, &d, make_cudaExtent(16, 16, 16), 5));
    for (int l = 0; l < 5; ++l) {
      cudaArray_t a; cudaGetMipmappedArrayLevel(&a, m3, l); int s = 16 >> l; std::vector<float> v(s * s * s, float(l));
      cudaMemcpy3DParms p = {}; p.srcPtr = make_cudaPitchedPtr(v.data(), s * 4, s, s); p.dstArray = a; p.extent = make_cudaExtent(s, s, s); p.kind = cudaMemcpyHostToDevice;
      CK(cudaMemcpy3D(&p));
    }
    CK(cudaMallocMipmappedArray(&ml, &d, make_cudaExtent(16, 16, 3), 5, cudaArrayLayered));
    for (int l = 0; l < 5; ++l) {
      cudaArray_t a; cudaGetMipmappedArrayLevel(&a, ml, l); int s = 16 >> l; std::vector<float> v(s * s * 3);
      for (int z = 0; z < 3; ++z) for (int i = 0; i < s * s; ++i) v[z * s * s + i] = l + 10 * z;
      cudaMemcpy3DParms p = {}; p.srcPtr = make_cudaPitchedPtr(v.data(), s * 4, s, s); p.dstArray = a; p.extent = make_cudaExtent(s, s, 3); p.kind = cudaMemcpyHostToDevice;
      CK(cudaMemcpy3D(&p));
    }
    CK(cudaMallocMipmappedArray(&mcu, &d, make_cudaExtent(16, 16, 6), 5, cudaArrayCubemap));
    for (int l = 0; l < 5; ++l) {
      cudaArray_t a; cudaGetMipmappedArrayLevel(&a, mcu, l); int s = 16 >> l; std::vector<float> v(s * s * 6);
      for (int z = 0; z < 6; ++z) for (int i = 0; i < s * s; ++i) v[z * s * s + i] = l + 10 * z;
      cudaMemcpy3DParms p = {}; p.srcPtr = make_cudaPitchedPtr(v.data(), s * 4, s, s); p.dstArray = a; p.extent = make_cudaExtent(s, s, 6); p.kind = cudaMemcpyHostToDevice;
      CK(cudaMemcpy3D(&p));
    }
    cudaTextureObject_t t1 = tex_of(m1, false, true, true), t3 = tex_of(m3, false, true, true), tl = tex_of(ml, false, true, true), tc = tex_of(mcu, false, true, true);
    std::vector<float> lod, gs; std::vector<float4> g4;
    for (int k = -2; k <= 30; ++k) { lod.push_back(k / 4.f); float s = exp2f(k / 4.f); gs.push_back(s / 64); g4.push_back(make_float4(s / 16, s / 16, 0, 0)); }
    int n = lod.size();
    cudaMemcpy(d_lod, lod.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d_gs, gs.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(d_g, g4.data(), n * 16, cudaMemcpyHostToDevice);
    std::vector<float4> o(n);
    auto show = [&](const char* w) { CK(cudaMemcpy(o.data(), d_o, n * 16, cudaMemcpyDeviceToHost)); for (int i = 0; i < n; ++i) printf("%s %g %.9g\n", w, lod[i], o[i].x); };
    lod1d<<<1, 64>>>(t1, d_lod, 0.5f, d_o, n); show("lod1d");
    grad1d<<<1, 64>>>(t1, d_gs, 0.5f, d_o, n); show("grad1d");
    lod3d<<<1, 64>>>(t3, d_lod, 0.5f, d_o, n); show("lod3d");
    grad3d<<<1, 64>>>(t3, d_g, 0.5f, d_o, n); show("grad3d");
    lodlayer<<<1, 64>>>(tl, d_lod, d_o, n, 2); show("lodlayer2");
    lodcube<<<1, 64>>>(tc, d_lod, d_o, n); show("lodcube");
    gradcube<<<1, 64>>>(tc, d_gs, d_o, n); show("gradcube");
    // txq
    int* d_q; cudaMalloc(&d_q, 64 * 4); std::vector<int> q(64);
    auto showq = [&](const char* w) { cudaMemset(d_q, 0xff, 256); CK(cudaDeviceSynchronize()); };
    (void)showq;
    cudaTextureObject_t objs[] = {t1, t3, tl, tc, tex_of(mc, true, false, false), tex_of(make2d(40, 24, 6, lvl_const), false, true, true)};
    const char* names[] = {"mip1d", "mip3d", "miplayered", "mipcube", "mip2d-linear-unnorm", "mip2d-40x24"};
    for (int i = 0; i < 6; ++i) {
      cudaMemset(d_q, 0xff, 256);
      queries<<<1, 1>>>(objs[i], d_q);
      CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
      printf("txq %s:", names[i]); for (int k = 0; k < 42; ++k) printf(" %d", q[k]); printf("\n");
    }
    // non-mip textures: 2D array (uchar4 normalized read, wrap), layered, linear, pitch2D
    {
      cudaChannelFormatDesc d4 = cudaCreateChannelDesc<uchar4>();
      cudaArray_t a; CK(cudaMallocArray(&a, &d4, 20, 10));
      cudaResourceDesc r = {}; r.resType = cudaResourceTypeArray; r.res.array.array = a;
      cudaTextureDesc td = {}; td.addressMode[0] = cudaAddressModeWrap; td.addressMode[1] = cudaAddressModeMirror; td.addressMode[2] = cudaAddressModeBorder;
      td.filterMode = cudaFilterModeLinear; td.readMode = cudaReadModeNormalizedFloat; td.normalizedCoords = 1;
      cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
      cudaMemset(d_q, 0xff, 256); queries<<<1, 1>>>(t, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
      printf("txq array2d-uchar4:"); for (int k = 0; k < 42; ++k) printf(" %d", q[k]); printf("\n");
      std::vector<float2> c(3, mid); std::vector<float> lz = {0.f, 2.f, -1.f};
      cudaChannelFormatDesc df = cudaCreateChannelDesc<float>();
      cudaArray_t af; CK(cudaMallocArray(&af, &df, 8, 8)); std::vector<float> vv(64, 7.f); CK(cudaMemcpy2DToArray(af, 0, 0, vv.data(), 32, 32, 8, cudaMemcpyHostToDevice));
      r.res.array.array = af; td = {}; td.normalizedCoords = 1; td.filterMode = cudaFilterModePoint; td.mipmapFilterMode = cudaFilterModeLinear;
      CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
      auto o2 = run_lod2d(t, lz, c);
      printf("lod on plain array: %g %g %g\n", o2[0].x, o2[1].x, o2[2].x);
      int* lin; cudaMalloc(&lin, 400);
      cudaResourceDesc rl = {}; rl.resType = cudaResourceTypeLinear; rl.res.linear.devPtr = lin; rl.res.linear.desc = cudaCreateChannelDesc<short2>(); rl.res.linear.sizeInBytes = 400;
      cudaTextureDesc tdl = {}; CK(cudaCreateTextureObject(&t, &rl, &tdl, nullptr));
      cudaMemset(d_q, 0xff, 256); queries<<<1, 1>>>(t, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
      printf("txq linear-short2:"); for (int k = 0; k < 42; ++k) printf(" %d", q[k]); printf("\n");
      cudaResourceDesc rp = {}; rp.resType = cudaResourceTypePitch2D; rp.res.pitch2D.devPtr = lin; rp.res.pitch2D.desc = cudaCreateChannelDesc<unsigned short>(); rp.res.pitch2D.width = 12; rp.res.pitch2D.height = 3; rp.res.pitch2D.pitchInBytes = 128;
      CK(cudaCreateTextureObject(&t, &rp, &tdl, nullptr));
      cudaMemset(d_q, 0xff, 256); queries<<<1, 1>>>(t, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
      printf("txq pitch2d-ushort:"); for (int k = 0; k < 42; ++k) printf(" %d", q[k]); printf("\n");
      // channel types
      int fmts[][5] = {{8,0,0,0,0},{8,0,0,0,1},{16,0,0,0,0},{16,0,0,0,1},{32,0,0,0,0},{32,0,0,0,1},{16,0,0,0,2},{32,0,0,0,2},{8,8,0,0,1},{32,32,32,32,2},{16,16,0,0,2}};
      for (auto& f : fmts) {
        cudaChannelFormatDesc dd = cudaCreateChannelDesc(f[0], f[1], f[2], f[3], cudaChannelFormatKind(f[4]));
        cudaArray_t aa; CK(cudaMalloc3DArray(&aa, &dd, make_cudaExtent(4, 4, 2), cudaArrayLayered | cudaArraySurfaceLoadStore));
        cudaResourceDesc ra = {}; ra.resType = cudaResourceTypeArray; ra.res.array.array = aa;
        cudaTextureDesc tda = {}; CK(cudaCreateTextureObject(&t, &ra, &tda, nullptr));
        cudaMemset(d_q, 0xff, 256); queries<<<1, 1>>>(t, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
        printf("txq fmt %d,%d,%d,%d kind %d:", f[0], f[1], f[2], f[3], f[4]); for (int k = 0; k < 14; ++k) printf(" %d", q[k]); printf("\n");
        cudaSurfaceObject_t s; CK(cudaCreateSurfaceObject(&s, &ra));
        cudaMemset(d_q, 0xff, 256); squeries<<<1, 1>>>(s, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
        printf("suq:"); for (int k = 0; k < 7; ++k) printf(" %d", q[k]); printf("\n");
      }
      cudaArray_t a3; CK(cudaMalloc3DArray(&a3, &df, make_cudaExtent(5, 6, 7), cudaArraySurfaceLoadStore));
      cudaResourceDesc ra = {}; ra.resType = cudaResourceTypeArray; ra.res.array.array = a3;
      cudaSurfaceObject_t s; CK(cudaCreateSurfaceObject(&s, &ra));
      cudaMemset(d_q, 0xff, 256); squeries<<<1, 1>>>(s, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
      printf("suq 3d 5x6x7:"); for (int k = 0; k < 7; ++k) printf(" %d", q[k]); printf("\n");
      cudaArray_t a1; CK(cudaMallocArray(&a1, &df, 9, 0, cudaArraySurfaceLoadStore));
      ra.res.array.array = a1; CK(cudaCreateSurfaceObject(&s, &ra));
      cudaMemset(d_q, 0xff, 256); squeries<<<1, 1>>>(s, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
      printf("suq 1d 9:"); for (int k = 0; k < 7; ++k) printf(" %d", q[k]); printf("\n");
      cudaTextureDesc tda = {}; CK(cudaCreateTextureObject(&t, &ra, &tda, nullptr));
      cudaMemset(d_q, 0xff, 256); queries<<<1, 1>>>(t, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
      printf("txq 1d 9:"); for (int k = 0; k < 42; ++k) printf(" %d", q[k]); printf("\n");
      ra.res.array.array = a3; CK(cudaCreateTextureObject(&t, &ra, &tda, nullptr));
      cudaMemset(d_q, 0xff, 256); queries<<<1, 1>>>(t, d_q); CK(cudaMemcpy(q.data(), d_q, 256, cudaMemcpyDeviceToHost));
      printf("txq 3d 5x6x7:"); for (int k = 0; k < 42; ++k) printf(" %d", q[k]); printf("\n");
    }
  }
  printf("last error: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
