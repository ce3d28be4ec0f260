// Layered textures and surfaces, cubemaps and texture gather, against CPU references:
// - 1D and 2D layered cudaArrays filled and read back by cudaMemcpy3D, sampled by tex1DLayered /
//   tex2DLayered (point and linear: layers are never filtered across), layer indices outside the
//   array (the hardware clamps them into [0, layers - 1]: printed);
// - surf1DLayeredwrite/read and surf2DLayeredwrite/read, surf3Dwrite;
// - cubemaps: face selection by the major axis and the Programming Guide's s,t table, at texel
//   centres of every face, at ties between axes (printed) and with linear filtering inside a face;
//   layered cubemaps (texCubemapLayered, surfCubemapLayeredwrite);
// - tex2Dgather: the four texels of the bilinear footprint in tld4's order (printed), every
//   component, clamp and wrap addressing, integer textures;
// - the driver API's cuArray3DCreate with CUDA_ARRAY3D_LAYERED / CUBEMAP, and the shapes the
//   runtime refuses (a cubemap whose width != height or depth != 6).
// Printed values are integers or exact binary fractions, so the output is deterministic.
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

static int fails = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "yes" : "NO");
  if (!ok) ++fails;
}
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

// ---------------------------------------------------------------- kernels

__global__ void l1d_kernel(cudaTextureObject_t t, float* out, int w, float dx, bool norm, int layer0) {
  int x = threadIdx.x, l = blockIdx.x;
  float u = x + dx;
  if (norm) u /= w;
  out[l * w + x] = tex1DLayered<float>(t, u, l + layer0);
}
__global__ void l2d_kernel(cudaTextureObject_t t, float* out, int w, int h, float dx, float dy) {
  int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
  out[(l * h + y) * w + x] = tex2DLayered<float>(t, x + dx, y + dy, l);
}
__global__ void layer_probe_kernel(cudaTextureObject_t t, const int* layers, float* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float>(t, 1.5f, 2.5f, layers[i]);
}
__global__ void surf_layered_kernel(cudaSurfaceObject_t s2, cudaSurfaceObject_t s1, int w, int h) {
  int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
  surf2DLayeredwrite(float(l * 1000 + y * 10 + x) + 0.5f, s2, x * 4, y, l);
  if (y == 0) surf1DLayeredwrite(l * 100 + x, s1, x * 4, l);
}
__global__ void surf_layered_read_kernel(cudaSurfaceObject_t s2, cudaSurfaceObject_t s1, float* o2, int* o1, int w,
                                         int h) {
  int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
  // Read a neighbour so the store and load addressing are checked separately.
  const int xr = (x + 1) % w, yr = (y + 1) % h;
  o2[(l * h + y) * w + x] = surf2DLayeredread<float>(s2, xr * 4, yr, l);
  if (y == 0) o1[l * w + x] = surf1DLayeredread<int>(s1, xr * 4, l);
}
__global__ void surf_layer_oob_kernel(cudaSurfaceObject_t s2, float* out, int layers) {
  // Out-of-range layers: zero mode reads 0 and drops the store; clamp mode clamps.
  surf2DLayeredwrite(-1.f, s2, 0, 0, layers + 2, cudaBoundaryModeZero);
  out[0] = surf2DLayeredread<float>(s2, 0, 0, layers, cudaBoundaryModeZero);
  out[1] = surf2DLayeredread<float>(s2, 4, 1, layers + 3, cudaBoundaryModeClamp);
  out[2] = surf2DLayeredread<float>(s2, 4, 1, -1, cudaBoundaryModeClamp);
}
__global__ void surf3d_kernel(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  surf3Dwrite(short(z * 100 + y * 10 + x), s, x * 2, y, z);
}
__global__ void cube_kernel(cudaTextureObject_t t, const float4* dirs, float* out, int n, bool layered) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 d = dirs[i];
  out[i] = layered ? texCubemapLayered<float>(t, d.x, d.y, d.z, int(d.w)) : texCubemap<float>(t, d.x, d.y, d.z);
}
__global__ void surf_cube_kernel(cudaSurfaceObject_t s, int w) {
  int x = threadIdx.x, y = threadIdx.y, lf = blockIdx.x;  // layer * 6 + face
  surfCubemapLayeredwrite(float(lf * 100 + y * 10 + x), s, x * 4, y, lf);
}
__global__ void gather_kernel(cudaTextureObject_t t, const float2* xy, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 p = xy[i];
  out[4 * i + 0] = tex2Dgather<float4>(t, p.x, p.y, 0);
  out[4 * i + 1] = tex2Dgather<float4>(t, p.x, p.y, 1);
  out[4 * i + 2] = tex2Dgather<float4>(t, p.x, p.y, 2);
  out[4 * i + 3] = tex2Dgather<float4>(t, p.x, p.y, 3);
}
__global__ void gather_int_kernel(cudaTextureObject_t t, const float2* xy, int4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = tex2Dgather<int4>(t, xy[i].x, xy[i].y, 1);
}

// ---------------------------------------------------------------- CPU references

static int clampi(int v, int lo, int hi) { return std::min(std::max(v, lo), hi); }
static float w8(float f) { return std::round(f * 256) / 256; }  // 9-bit fixed-point weights

// The Programming Guide's cubemap table: the face of the major axis and (s, t) on it.
static void cube_face(float x, float y, float z, int& face, float& s, float& t) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  float m, sc, tc;
  if (ax >= ay && ax >= az) {
    face = x >= 0 ? 0 : 1, m = ax, sc = x >= 0 ? -z : z, tc = -y;
  } else if (ay >= az) {
    face = y >= 0 ? 2 : 3, m = ay, sc = x, tc = y >= 0 ? z : -z;
  } else {
    face = z >= 0 ? 4 : 5, m = az, sc = z >= 0 ? x : -x, tc = -y;
  }
  s = (sc / m + 1) / 2;
  t = (tc / m + 1) / 2;
}

// ---------------------------------------------------------------- tests

static int layered_1d() {
  const int w = 16, L = 3;
  std::vector<float> img(w * L);
  for (int l = 0; l < L; ++l)
    for (int x = 0; x < w; ++x) img[l * w + x] = float(l * 1000 + (x * 7) % 16);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(w, 0, L), cudaArrayLayered));
  cudaChannelFormatDesc gd;
  cudaExtent ge;
  unsigned gf = 0;
  CK(cudaArrayGetInfo(&gd, &ge, &gf, a));
  std::printf("1D layered array info: extent %zu x %zu x %zu flags %u\n", ge.width, ge.height, ge.depth, gf);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(img.data(), w * 4, w, 1);
  p.dstArray = a;
  p.extent = make_cudaExtent(w, 1, L);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  std::vector<float> back(w * L);
  cudaMemcpy3DParms q = {};
  q.srcArray = a;
  q.dstPtr = make_cudaPitchedPtr(back.data(), w * 4, w, 1);
  q.extent = make_cudaExtent(w, 1, L);
  q.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&q));
  report("1D layered cudaMemcpy3D round trip", back == img);
  float* d;
  CK(cudaMalloc(&d, w * L * 4));
  std::vector<float> o(w * L);
  for (int mode = 0; mode < 2; ++mode) {
    const bool lin = mode == 1;
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = lin ? cudaAddressModeWrap : cudaAddressModeClamp;
    td.filterMode = lin ? cudaFilterModeLinear : cudaFilterModePoint;
    td.normalizedCoords = lin;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    const float dx = lin ? 0.25f : 0.5f;
    l1d_kernel<<<L, w>>>(t, d, w, dx, lin, 0);
    CK(cudaMemcpy(o.data(), d, w * L * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int l = 0; l < L; ++l)
      for (int x = 0; x < w; ++x) {
        float r;
        if (!lin) r = img[l * w + x];
        else {
          const float xb = x + dx - 0.5f;
          const int i = int(std::floor(xb));
          const float a = w8(xb - i);
          r = (1 - a) * img[l * w + (i % w + w) % w] + a * img[l * w + ((i + 1) % w + w) % w];
        }
        ok &= std::fabs(o[l * w + x] - r) <= 1e-3f * std::max(1.f, std::fabs(r));
      }
    report(lin ? "tex1DLayered linear wrap normalized (no filtering across layers)" : "tex1DLayered point clamp", ok);
    CK(cudaDestroyTextureObject(t));
  }
  CK(cudaFree(d));
  CK(cudaFreeArray(a));
  return 0;
}

static int layered_2d() {
  const int w = 8, h = 4, L = 3;
  std::vector<float> img(w * h * L);
  for (int l = 0; l < L; ++l)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) img[(l * h + y) * w + x] = float(l * 1000 + y * 10 + x);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(w, h, L), cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(img.data(), w * 4, w, h);
  p.dstArray = a;
  p.extent = make_cudaExtent(w, h, L);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  float* d;
  CK(cudaMalloc(&d, w * h * L * 4));
  std::vector<float> o(w * h * L);
  cudaTextureObject_t tp = 0;
  for (int mode = 0; mode < 2; ++mode) {
    const bool lin = mode == 1;
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = lin ? cudaFilterModeLinear : cudaFilterModePoint;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    const float dx = lin ? 0.25f : 0.5f, dy = lin ? 0.75f : 0.5f;
    l2d_kernel<<<L, dim3(w, h)>>>(t, d, w, h, dx, dy);
    CK(cudaMemcpy(o.data(), d, o.size() * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int l = 0; l < L; ++l)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          auto at = [&](int i, int j) { return img[(l * h + clampi(j, 0, h - 1)) * w + clampi(i, 0, w - 1)]; };
          float r;
          if (!lin) r = at(x, y);
          else {
            const float xb = x + dx - 0.5f, yb = y + dy - 0.5f;
            const int i = int(std::floor(xb)), j = int(std::floor(yb));
            const float al = w8(xb - i), be = w8(yb - j);
            r = (1 - al) * (1 - be) * at(i, j) + al * (1 - be) * at(i + 1, j) + (1 - al) * be * at(i, j + 1) +
                al * be * at(i + 1, j + 1);
          }
          ok &= std::fabs(o[(l * h + y) * w + x] - r) <= 1e-3f * std::max(1.f, std::fabs(r));
        }
    report(lin ? "tex2DLayered linear clamp (no filtering across layers)" : "tex2DLayered point clamp", ok);
    if (lin) CK(cudaDestroyTextureObject(t));
    else tp = t;
  }
  {
    // Layer indices outside [0, L): what the hardware reads (texel (1, 2) of each layer is
    // l*1000 + 21).
    const int layers[] = {0, 1, 2, 3, 4, 100, -1, -2, -1000, 0x7fffffff, int(0x80000000u), 65535, 65536, 65537};
    const int n = sizeof layers / sizeof layers[0];
    int* dl;
    CK(cudaMalloc(&dl, sizeof layers));
    CK(cudaMemcpy(dl, layers, sizeof layers, cudaMemcpyHostToDevice));
    layer_probe_kernel<<<1, 32>>>(tp, dl, d, n);
    CK(cudaMemcpy(o.data(), d, n * 4, cudaMemcpyDeviceToHost));
    std::printf("tex2DLayered layer index ->");
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      std::printf(" %d:%g", layers[i], o[i]);
      // Expected: the index as unsigned, clamped to L - 1.
      const unsigned u = unsigned(layers[i]);
      ok &= o[i] == float(int(std::min(u, unsigned(L - 1))) * 1000 + 21);
    }
    std::printf("\n");
    report("tex2DLayered layer index clamped as unsigned to layers-1", ok);
    CK(cudaFree(dl));
    CK(cudaDestroyTextureObject(tp));
  }
  // Surfaces: 2D layered floats and 1D layered ints written by the kernel, read back by copies and
  // by the kernel.
  {
    cudaChannelFormatDesc ci = cudaCreateChannelDesc<int>();
    cudaArray_t a1;
    CK(cudaMalloc3DArray(&a1, &ci, make_cudaExtent(w, 0, L), cudaArrayLayered | cudaArraySurfaceLoadStore));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s2, s1;
    CK(cudaCreateSurfaceObject(&s2, &rd));
    rd.res.array.array = a1;
    CK(cudaCreateSurfaceObject(&s1, &rd));
    surf_layered_kernel<<<L, dim3(w, h)>>>(s2, s1, w, h);
    CK(cudaGetLastError());
    std::vector<float> b2(w * h * L);
    std::vector<int> b1(w * L);
    cudaMemcpy3DParms q = {};
    q.srcArray = a;
    q.dstPtr = make_cudaPitchedPtr(b2.data(), w * 4, w, h);
    q.extent = make_cudaExtent(w, h, L);
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    q.srcArray = a1;
    q.dstPtr = make_cudaPitchedPtr(b1.data(), w * 4, w, 1);
    q.extent = make_cudaExtent(w, 1, L);
    CK(cudaMemcpy3D(&q));
    bool ok = true;
    for (int l = 0; l < L; ++l)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) ok &= b2[(l * h + y) * w + x] == float(l * 1000 + y * 10 + x) + 0.5f;
    report("surf2DLayeredwrite", ok);
    ok = true;
    for (int l = 0; l < L; ++l)
      for (int x = 0; x < w; ++x) ok &= b1[l * w + x] == l * 100 + x;
    report("surf1DLayeredwrite", ok);
    int* o1;
    CK(cudaMalloc(&o1, w * L * 4));
    surf_layered_read_kernel<<<L, dim3(w, h)>>>(s2, s1, d, o1, w, h);
    CK(cudaMemcpy(o.data(), d, o.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b1.data(), o1, w * L * 4, cudaMemcpyDeviceToHost));
    ok = true;
    bool ok1 = true;
    for (int l = 0; l < L; ++l)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          ok &= o[(l * h + y) * w + x] == b2[(l * h + (y + 1) % h) * w + (x + 1) % w];
          if (y == 0) ok1 &= b1[l * w + x] == l * 100 + (x + 1) % w;
        }
    report("surf2DLayeredread", ok);
    report("surf1DLayeredread", ok1);
    surf_layer_oob_kernel<<<1, 1>>>(s2, d, L);
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), d, 3 * 4, cudaMemcpyDeviceToHost));
    std::printf("surf2DLayeredread outside the layers: zero %g, clamp(layers+3) %g, clamp(-1) %g\n", o[0], o[1], o[2]);
    q.srcArray = a;
    q.dstPtr = make_cudaPitchedPtr(b2.data(), w * 4, w, h);
    q.extent = make_cudaExtent(w, h, L);
    CK(cudaMemcpy3D(&q));
    ok = true;
    for (float v : b2) ok &= v != -1.f;
    report("surf2DLayeredwrite outside the layers (zero mode) dropped", ok);
    CK(cudaDestroySurfaceObject(s1));
    CK(cudaDestroySurfaceObject(s2));
    CK(cudaFree(o1));
    CK(cudaFreeArray(a1));
  }
  {
    // surf3Dwrite of 16-bit elements.
    const int w3 = 5, h3 = 3, d3 = 4;
    cudaChannelFormatDesc cs = cudaCreateChannelDesc<short>();
    cudaArray_t a3;
    CK(cudaMalloc3DArray(&a3, &cs, make_cudaExtent(w3, h3, d3), cudaArraySurfaceLoadStore));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a3;
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &rd));
    surf3d_kernel<<<d3, dim3(w3, h3)>>>(s, w3, h3);
    std::vector<short> b(w3 * h3 * d3);
    cudaMemcpy3DParms q = {};
    q.srcArray = a3;
    q.dstPtr = make_cudaPitchedPtr(b.data(), w3 * 2, w3, h3);
    q.extent = make_cudaExtent(w3, h3, d3);
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    bool ok = true;
    for (int z = 0; z < d3; ++z)
      for (int y = 0; y < h3; ++y)
        for (int x = 0; x < w3; ++x) ok &= b[(z * h3 + y) * w3 + x] == z * 100 + y * 10 + x;
    report("surf3Dwrite", ok);
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a3));
  }
  CK(cudaFree(d));
  CK(cudaFreeArray(a));
  return 0;
}

static int cubemaps() {
  const int w = 4, NL = 2;
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  {
    cudaArray_t bad;
    cudaError_t e1 = cudaMalloc3DArray(&bad, &cd, make_cudaExtent(4, 3, 6), cudaArrayCubemap);
    cudaGetLastError();
    cudaError_t e2 = cudaMalloc3DArray(&bad, &cd, make_cudaExtent(4, 4, 5), cudaArrayCubemap);
    cudaGetLastError();
    cudaError_t e3 = cudaMalloc3DArray(&bad, &cd, make_cudaExtent(4, 4, 8), cudaArrayCubemap | cudaArrayLayered);
    cudaGetLastError();
    std::printf("cubemap 4x3x6: %s; 4x4x5: %s; layered 4x4x8: %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2),
                cudaGetErrorName(e3));
  }
  // Face f of layer l holds l*1000 + f*100 + y*10 + x.
  std::vector<float> img(w * w * 6 * NL);
  for (int lf = 0; lf < 6 * NL; ++lf)
    for (int y = 0; y < w; ++y)
      for (int x = 0; x < w; ++x) img[(lf * w + y) * w + x] = float((lf / 6) * 1000 + (lf % 6) * 100 + y * 10 + x);
  cudaArray_t c, cl;
  CK(cudaMalloc3DArray(&c, &cd, make_cudaExtent(w, w, 6), cudaArrayCubemap));
  CK(cudaMalloc3DArray(&cl, &cd, make_cudaExtent(w, w, 6 * NL), cudaArrayCubemap | cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(img.data(), w * 4, w, w);
  p.dstArray = c;
  p.extent = make_cudaExtent(w, w, 6);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  p.dstArray = cl;
  p.extent = make_cudaExtent(w, w, 6 * NL);
  CK(cudaMemcpy3D(&p));
  // Directions: every texel centre of every face (scaled by 3 so that the division by the major
  // axis matters), then ties and edges, printed.
  std::vector<float4> dirs;
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < w; ++y)
      for (int x = 0; x < w; ++x) {
        const float s = 2 * (x + 0.5f) / w - 1, t = 2 * (y + 0.5f) / w - 1;  // sc/m, tc/m
        float v[3];
        switch (f) {
          case 0: v[0] = 1, v[2] = -s, v[1] = -t; break;
          case 1: v[0] = -1, v[2] = s, v[1] = -t; break;
          case 2: v[1] = 1, v[0] = s, v[2] = t; break;
          case 3: v[1] = -1, v[0] = s, v[2] = -t; break;
          case 4: v[2] = 1, v[0] = s, v[1] = -t; break;
          default: v[2] = -1, v[0] = -s, v[1] = -t; break;
        }
        dirs.push_back(make_float4(3 * v[0], 3 * v[1], 3 * v[2], float(f % NL)));
      }
  const int ngrid = int(dirs.size());
  const float4 probes[] = {
      {1, 1, 0, 0},   {-1, 1, 0, 0},  {1, -1, 0, 0},  {0, 1, 1, 0},   {0, 1, -1, 0},  {0, -1, 1, 0},
      {1, 0, 1, 0},   {-1, 0, -1, 0}, {1, 0, -1, 0},  {1, 1, 1, 0},   {-1, -1, -1, 0}, {2, 2, -2, 0},
      {1, 0, 0, 0},   {0, 0, 0, 0},   {0, 0, -1, 0},  {1, 0.999f, 0.5f, 0}, {0.25f, 1, -0.99f, 0},
      {1, 0.9f, -0.9f, 0}, {-2, 0.1f, 1.99f, 0}, {0.3f, -0.2f, 1, 1}, {0.3f, -0.2f, 1, 5}, {0.3f, -0.2f, 1, -1}};
  const int nprobe = sizeof probes / sizeof probes[0];
  for (auto& q : probes) dirs.push_back(q);
  float4* dd;
  float* dout;
  CK(cudaMalloc(&dd, dirs.size() * sizeof(float4)));
  CK(cudaMalloc(&dout, dirs.size() * 4));
  CK(cudaMemcpy(dd, dirs.data(), dirs.size() * sizeof(float4), cudaMemcpyHostToDevice));
  std::vector<float> o(dirs.size());
  for (int mode = 0; mode < 4; ++mode) {
    // 0: point, normalized coordinates; 1: point, unnormalized; 2: layered, point; 3: linear.
    const bool layered = mode == 2, lin = mode == 3;
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = layered ? cl : c;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
    td.filterMode = lin ? cudaFilterModeLinear : cudaFilterModePoint;
    td.normalizedCoords = mode != 1;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    cube_kernel<<<(int(dirs.size()) + 63) / 64, 64>>>(t, dd, dout, int(dirs.size()), layered);
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < ngrid; ++i) {
      int face;
      float s, tt;
      cube_face(dirs[i].x, dirs[i].y, dirs[i].z, face, s, tt);
      const int layer = layered ? int(dirs[i].w) : 0;
      auto at = [&](int x, int y) {
        return img[((layer * 6 + face) * w + clampi(y, 0, w - 1)) * w + clampi(x, 0, w - 1)];
      };
      float r;
      if (!lin) r = at(int(std::floor(s * w)), int(std::floor(tt * w)));
      else {
        const float xb = s * w - 0.5f, yb = tt * w - 0.5f;
        const int i0 = int(std::floor(xb)), j0 = int(std::floor(yb));
        const float al = w8(xb - i0), be = w8(yb - j0);
        r = (1 - al) * (1 - be) * at(i0, j0) + al * (1 - be) * at(i0 + 1, j0) + (1 - al) * be * at(i0, j0 + 1) +
            al * be * at(i0 + 1, j0 + 1);
      }
      ok &= std::fabs(o[i] - r) <= 1e-3f * std::max(1.f, std::fabs(r));
    }
    const char* names[] = {"texCubemap point, every texel centre of every face",
                           "texCubemap point, unnormalized-coordinates texture",
                           "texCubemapLayered point, every texel centre",
                           "texCubemap linear at texel centres"};
    report(names[mode], ok);
    if (mode != 3) {
      std::printf("  probes:");
      for (int i = 0; i < nprobe; ++i)
        std::printf(" (%g,%g,%g%s)=%g", probes[i].x, probes[i].y, probes[i].z,
                    layered ? (probes[i].w == 1 ? ",L1" : probes[i].w == 5 ? ",L5" : probes[i].w == -1 ? ",L-1" : ",L0") : "",
                    o[ngrid + i]);
      std::printf("\n");
    }
    CK(cudaDestroyTextureObject(t));
  }
  {
    // Surfaces on a layered cubemap: layer-faces addressed as 6 * layer + face.
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = cl;
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &rd));
    surf_cube_kernel<<<6 * NL, dim3(w, w)>>>(s, w);
    CK(cudaGetLastError());
    std::vector<float> b(img.size());
    cudaMemcpy3DParms q = {};
    q.srcArray = cl;
    q.dstPtr = make_cudaPitchedPtr(b.data(), w * 4, w, w);
    q.extent = make_cudaExtent(w, w, 6 * NL);
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    bool ok = true;
    for (int lf = 0; lf < 6 * NL; ++lf)
      for (int y = 0; y < w; ++y)
        for (int x = 0; x < w; ++x) ok &= b[(lf * w + y) * w + x] == float(lf * 100 + y * 10 + x);
    report("surfCubemapLayeredwrite", ok);
    CK(cudaDestroySurfaceObject(s));
  }
  CK(cudaFree(dd));
  CK(cudaFree(dout));
  CK(cudaFreeArray(c));
  CK(cudaFreeArray(cl));
  return 0;
}

static int gather() {
  const int w = 6, h = 4;
  // Channel c of texel (x, y) is c*100 + y*10 + x.
  std::vector<float4> img(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float b = float(y * 10 + x);
      img[y * w + x] = make_float4(b, 100 + b, 200 + b, 300 + b);
    }
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float4>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &cd, w, h, cudaArrayTextureGather));
  CK(cudaMemcpy2DToArray(a, 0, 0, img.data(), w * sizeof(float4), w * sizeof(float4), h, cudaMemcpyHostToDevice));
  std::vector<float2> xy;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) xy.push_back(make_float2(x + 0.25f + 0.5f * (y & 1), y + 0.75f - 0.5f * (x & 1)));
  const float2 probes[] = {{2.5f, 1.5f}, {3.0f, 2.0f}, {2.9f, 1.1f}, {0.1f, 0.1f}, {5.9f, 3.9f}, {-1.f, -1.f}, {10.f, 2.f}};
  const int ngrid = int(xy.size()), nprobe = sizeof probes / sizeof probes[0];
  for (auto& q : probes) xy.push_back(q);
  const int n = int(xy.size());
  float2* dxy;
  float4* dout;
  CK(cudaMalloc(&dxy, n * sizeof(float2)));
  CK(cudaMalloc(&dout, 4 * n * sizeof(float4)));
  CK(cudaMemcpy(dxy, xy.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  std::vector<float4> o(4 * n);
  for (int mode = 0; mode < 2; ++mode) {
    const bool wrap = mode == 1;
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = wrap ? cudaAddressModeWrap : cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;  // gather ignores the filter mode
    td.normalizedCoords = wrap;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    std::vector<float2> in = xy;
    if (wrap)
      for (auto& q : in) q.x /= w, q.y /= h;
    CK(cudaMemcpy(dxy, in.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    gather_kernel<<<(n + 31) / 32, 32>>>(t, dxy, dout, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), dout, o.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < ngrid; ++i) {
      const float xb = xy[i].x - 0.5f, yb = xy[i].y - 0.5f;
      const int i0 = int(std::floor(xb)), j0 = int(std::floor(yb));
      auto at = [&](int x, int y, int comp) {
        if (wrap) x = (x % w + w) % w, y = (y % h + h) % h;
        else x = clampi(x, 0, w - 1), y = clampi(y, 0, h - 1);
        return float(comp * 100 + y * 10 + x);
      };
      for (int comp = 0; comp < 4; ++comp) {
        // tld4's order: counter-clockwise from the lower left, "lower" being the larger row:
        // (i0, j0+1), (i0+1, j0+1), (i0+1, j0), (i0, j0).
        const float4 v = o[4 * i + comp];
        ok &= v.x == at(i0, j0 + 1, comp) && v.y == at(i0 + 1, j0 + 1, comp) && v.z == at(i0 + 1, j0, comp) &&
              v.w == at(i0, j0, comp);
      }
    }
    report(wrap ? "tex2Dgather wrap normalized, every component" : "tex2Dgather clamp, every component", ok);
    std::printf("  probes:");
    for (int i = 0; i < nprobe; ++i) {
      const float4 v = o[4 * (ngrid + i) + (i % 4)];
      std::printf(" (%g,%g)c%d=%g,%g,%g,%g", probes[i].x, probes[i].y, i % 4, v.x, v.y, v.z, v.w);
    }
    std::printf("\n");
    CK(cudaDestroyTextureObject(t));
  }
  {
    // An integer texture (element-type reads): gather returns the elements.
    std::vector<int2> im(w * h);
    for (int i = 0; i < w * h; ++i) im[i] = make_int2(-i, i * 1000 + 7);
    cudaChannelFormatDesc ci = cudaCreateChannelDesc<int2>();
    cudaArray_t ai;
    CK(cudaMallocArray(&ai, &ci, w, h, cudaArrayTextureGather));
    CK(cudaMemcpy2DToArray(ai, 0, 0, im.data(), w * sizeof(int2), w * sizeof(int2), h, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = ai;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    CK(cudaMemcpy(dxy, xy.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    int4* di;
    CK(cudaMalloc(&di, n * sizeof(int4)));
    gather_int_kernel<<<(n + 31) / 32, 32>>>(t, dxy, di, n);
    std::vector<int4> oi(n);
    CK(cudaMemcpy(oi.data(), di, n * sizeof(int4), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < ngrid; ++i) {
      const int i0 = int(std::floor(xy[i].x - 0.5f)), j0 = int(std::floor(xy[i].y - 0.5f));
      auto at = [&](int x, int y) { return im[clampi(y, 0, h - 1) * w + clampi(x, 0, w - 1)].y; };
      ok &= oi[i].x == at(i0, j0 + 1) && oi[i].y == at(i0 + 1, j0 + 1) && oi[i].z == at(i0 + 1, j0) &&
            oi[i].w == at(i0, j0);
    }
    report("tex2Dgather int2 texture, component 1", ok);
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(di));
    CK(cudaFreeArray(ai));
  }
  CK(cudaFree(dxy));
  CK(cudaFree(dout));
  CK(cudaFreeArray(a));
  return 0;
}

__global__ void l2d_int_kernel(cudaTextureObject_t t, int* out, int w, int h) {
  int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
  out[(l * h + y) * w + x] = tex2DLayered<int>(t, x + 0.5f, y + 0.5f, l);
}

// The driver API's layered and cubemap arrays, sampled through the runtime (CUarray and
// cudaArray_t are the same handles).
static int driver() {
  CK(cudaFree(0));
  CUDA_ARRAY3D_DESCRIPTOR d = {};
  d.Width = 4;
  d.Height = 2;
  d.Depth = 3;
  d.Format = CU_AD_FORMAT_SIGNED_INT32;
  d.NumChannels = 1;
  d.Flags = CUDA_ARRAY3D_LAYERED;
  CUarray a;
  CUresult r = cuArray3DCreate(&a, &d);
  std::printf("cuArray3DCreate layered 4x2x3: %d\n", int(r));
  if (r) return 1;
  CUDA_ARRAY3D_DESCRIPTOR g = {};
  cuArray3DGetDescriptor(&g, a);
  std::printf("  descriptor %zu x %zu x %zu format 0x%x channels %u flags %u\n", g.Width, g.Height, g.Depth,
              unsigned(g.Format), g.NumChannels, g.Flags);
  std::vector<int> v(4 * 2 * 3), o(v.size());
  for (int i = 0; i < int(v.size()); ++i) v[i] = i * 3 + 1;
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(v.data(), 16, 4, 2);
  p.dstArray = (cudaArray_t)a;
  p.extent = make_cudaExtent(4, 2, 3);
  p.kind = cudaMemcpyHostToDevice;
  CK(cudaMemcpy3D(&p));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = (cudaArray_t)a;
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
  // Reuse the float kernel's shape with an int texture: read through tex2DLayered<int>.
  int* dout;
  CK(cudaMalloc(&dout, v.size() * 4));
  l2d_int_kernel<<<3, dim3(4, 2)>>>(t, dout, 4, 2);
  CK(cudaMemcpy(o.data(), dout, v.size() * 4, cudaMemcpyDeviceToHost));
  report("cuArray3DCreate(CUDA_ARRAY3D_LAYERED) read by tex2DLayered", o == v);
  CK(cudaDestroyTextureObject(t));
  CK(cudaFree(dout));
  cuArrayDestroy(a);
  d.Width = d.Height = 8;
  d.Depth = 6;
  d.Format = CU_AD_FORMAT_FLOAT;
  d.Flags = CUDA_ARRAY3D_CUBEMAP;
  r = cuArray3DCreate(&a, &d);
  std::printf("cuArray3DCreate cubemap 8x8x6: %d\n", int(r));
  if (!r) {
    cuArray3DGetDescriptor(&g, a);
    std::printf("  descriptor %zu x %zu x %zu flags %u\n", g.Width, g.Height, g.Depth, g.Flags);
    cuArrayDestroy(a);
  }
  d.Height = 7;
  r = cuArray3DCreate(&a, &d);
  std::printf("cuArray3DCreate cubemap 8x7x6: %d\n", int(r));
  d.Height = 8;
  d.Depth = 12;
  d.Flags = CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED;
  r = cuArray3DCreate(&a, &d);
  std::printf("cuArray3DCreate layered cubemap 8x8x12: %d\n", int(r));
  if (!r) cuArrayDestroy(a);
  return 0;
}
int main() {
  if (layered_1d() || layered_2d() || cubemaps() || gather() || driver()) {
    std::printf("texture_layered: FAIL (error)\n");
    return 1;
  }
  std::printf("texture_layered: %s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
