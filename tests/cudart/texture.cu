// Texture and surface objects: a 2D float cudaArray read through a texture object with point and
// linear filtering (clamp and wrap addressing, normalized coordinates), a 1D texture over linear
// memory (tex1Dfetch), a uchar4 pitch-2D texture read as normalized floats with border addressing,
// a 3D array filled by cudaMemcpy3D and read with tex3D, and a surface object written then read
// (surf2Dread/surf2Dwrite, an out-of-range store dropped by cudaBoundaryModeZero). CPU references
// follow the CUDA Programming Guide's texture-fetching appendix (linear filtering with 9-bit
// fixed-point weights).
#include <cstdio>
#include <cmath>
#include <algorithm>
#include <vector>

static int fails = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "yes" : "NO");
  if (!ok) ++fails;
}
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void tex2d_kernel(cudaTextureObject_t t, float* out, int w, int h, float dx, float dy, bool norm) {
  int x = threadIdx.x, y = blockIdx.x;
  float u = x + dx, v = y + dy;
  if (norm) { u /= w; v /= h; }
  out[y * w + x] = tex2D<float>(t, u, v);
}
__global__ void fetch_kernel(cudaTextureObject_t t, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(t, i) * 3;
}
__global__ void surf_kernel(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  float v;
  surf2Dread(&v, s, x * 4, y);
  surf2Dwrite(v * 10.f + 1.f, s, x * 4, y);
  surf2Dwrite(-1.f, s, (x + w) * 4, y, cudaBoundaryModeZero);  // outside: dropped
}
__global__ void rgba_kernel(cudaTextureObject_t t, float4* out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;  // one texel beyond each edge: border colour
  out[y * (w + 2) + x] = tex2D<float4>(t, x - 1 + 0.5f, y - 1 + 0.5f);
}
__global__ void tex3d_kernel(cudaTextureObject_t t, int* out, int w, int h, int d) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  out[(z * h + y) * w + x] = tex3D<int>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

int main() {
  const int w = 16, h = 8;
  std::vector<float> img(w * h);
  for (int i = 0; i < w * h; ++i) img[i] = (float)((i * 37) % 101);
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CK(cudaMallocArray(&arr, &cd, w, h, cudaArraySurfaceLoadStore));
  CK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
  float* dout; CK(cudaMalloc(&dout, w * h * 4));
  std::vector<float> out(w * h);
  auto at = [&](int x, int y, bool wrap) {
    if (wrap) { x = ((x % w) + w) % w; y = ((y % h) + h) % h; }
    else { x = std::min(std::max(x, 0), w - 1); y = std::min(std::max(y, 0), h - 1); }
    return img[y * w + x];
  };
  for (int mode = 0; mode < 3; ++mode) {
    cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
    cudaTextureDesc td = {};
    bool linear = mode >= 1, wrap = mode == 2;
    td.addressMode[0] = td.addressMode[1] = wrap ? cudaAddressModeWrap : cudaAddressModeClamp;
    td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = wrap;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    float dx = linear ? 0.25f : 0.5f, dy = linear ? 0.75f : 0.5f;
    tex2d_kernel<<<h, w>>>(t, dout, w, h, dx, dy, wrap);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), dout, w * h * 4, cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        float r;
        if (!linear) r = at(x, y, wrap);
        else {
          // x_B = x - 0.5, weights in 1.8 fixed point (9 bits).
          float xb = x + dx - 0.5f, yb = y + dy - 0.5f;
          int i = (int)std::floor(xb), j = (int)std::floor(yb);
          float a = std::round((xb - i) * 256) / 256, b = std::round((yb - j) * 256) / 256;
          r = (1 - a) * (1 - b) * at(i, j, wrap) + a * (1 - b) * at(i + 1, j, wrap) +
              (1 - a) * b * at(i, j + 1, wrap) + a * b * at(i + 1, j + 1, wrap);
        }
        ok &= std::fabs(out[y * w + x] - r) <= 1e-3f * std::max(1.f, std::fabs(r));
      }
    report(mode == 0 ? "tex2D point clamp" : mode == 1 ? "tex2D linear clamp" : "tex2D linear wrap normalized", ok);
    CK(cudaDestroyTextureObject(t));
  }
  {
    const int n = 1000;
    std::vector<int> v(n); for (int i = 0; i < n; ++i) v[i] = i * i % 977;
    int *dv, *dr; CK(cudaMalloc(&dv, n * 4)); CK(cudaMalloc(&dr, n * 4));
    CK(cudaMemcpy(dv, v.data(), n * 4, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeLinear; rd.res.linear.devPtr = dv;
    rd.res.linear.desc = cudaCreateChannelDesc<int>(); rd.res.linear.sizeInBytes = n * 4;
    cudaTextureDesc td = {}; td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    fetch_kernel<<<(n + 127) / 128, 128>>>(t, dr, n);
    std::vector<int> r(n); CK(cudaMemcpy(r.data(), dr, n * 4, cudaMemcpyDeviceToHost));
    bool ok = true; for (int i = 0; i < n; ++i) ok &= r[i] == v[i] * 3;
    report("tex1Dfetch on linear memory", ok);
    CK(cudaDestroyTextureObject(t));
  }
  {
    cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = arr;
    cudaSurfaceObject_t s; CK(cudaCreateSurfaceObject(&s, &rd));
    surf_kernel<<<h, w>>>(s, w, h);
    CK(cudaGetLastError());
    std::vector<float> o(w * h);
    CK(cudaMemcpy2DFromArray(o.data(), w * 4, arr, 0, 0, w * 4, h, cudaMemcpyDeviceToHost));
    bool ok = true; for (int i = 0; i < w * h; ++i) ok &= o[i] == img[i] * 10.f + 1.f;
    report("surf2Dread/surf2Dwrite", ok);
    CK(cudaDestroySurfaceObject(s));
  }
  {
    // uchar4 in pitched memory, normalized-float reads, border colour outside.
    const int rw = 5, rh = 3;
    size_t pitch = 0;
    uchar4* d;
    CK(cudaMallocPitch(&d, &pitch, rw * sizeof(uchar4), rh));
    std::vector<uchar4> px(rw * rh);
    for (int i = 0; i < rw * rh; ++i) px[i] = make_uchar4(i * 17, 255 - i, i * 3, 200);
    CK(cudaMemcpy2D(d, pitch, px.data(), rw * sizeof(uchar4), rw * sizeof(uchar4), rh, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = d;
    rd.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
    rd.res.pitch2D.width = rw;
    rd.res.pitch2D.height = rh;
    rd.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeBorder;
    td.borderColor[0] = 0.25f; td.borderColor[1] = 0.5f; td.borderColor[2] = 0.75f; td.borderColor[3] = 1.f;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    float4* dout4;
    CK(cudaMalloc(&dout4, (rw + 2) * (rh + 2) * sizeof(float4)));
    rgba_kernel<<<rh + 2, rw + 2>>>(t, dout4, rw, rh);
    std::vector<float4> o((rw + 2) * (rh + 2));
    CK(cudaMemcpy(o.data(), dout4, o.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int y = 0; y < rh + 2; ++y)
      for (int x = 0; x < rw + 2; ++x) {
        const float4 v = o[y * (rw + 2) + x];
        float r[4] = {0.25f, 0.5f, 0.75f, 1.f};
        if (x >= 1 && x <= rw && y >= 1 && y <= rh) {
          const uchar4 p = px[(y - 1) * rw + (x - 1)];
          r[0] = p.x / 255.f; r[1] = p.y / 255.f; r[2] = p.z / 255.f; r[3] = p.w / 255.f;
        }
        ok &= std::fabs(v.x - r[0]) < 1e-6f && std::fabs(v.y - r[1]) < 1e-6f && std::fabs(v.z - r[2]) < 1e-6f &&
              std::fabs(v.w - r[3]) < 1e-6f;
      }
    report("tex2D uchar4 normalized float, border addressing", ok);
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(d));
    CK(cudaFree(dout4));
  }
  {
    // 3D int array via cudaMemcpy3D, point sampling.
    const int w3 = 6, h3 = 4, d3 = 3;
    std::vector<int> v(w3 * h3 * d3);
    for (int i = 0; i < w3 * h3 * d3; ++i) v[i] = i * 7 - 50;
    cudaChannelFormatDesc cdi = cudaCreateChannelDesc<int>();
    cudaArray_t a3;
    CK(cudaMalloc3DArray(&a3, &cdi, make_cudaExtent(w3, h3, d3)));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(v.data(), w3 * sizeof(int), w3, h3);
    p.dstArray = a3;
    p.extent = make_cudaExtent(w3, h3, d3);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    cudaResourceDesc rd = {}; rd.resType = cudaResourceTypeArray; rd.res.array.array = a3;
    cudaTextureDesc td = {}; td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t; CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    int* d; CK(cudaMalloc(&d, v.size() * sizeof(int)));
    tex3d_kernel<<<d3, dim3(w3, h3)>>>(t, d, w3, h3, d3);
    std::vector<int> o(v.size()), back(v.size());
    CK(cudaMemcpy(o.data(), d, v.size() * sizeof(int), cudaMemcpyDeviceToHost));
    cudaMemcpy3DParms q = {};
    q.srcArray = a3;
    q.dstPtr = make_cudaPitchedPtr(back.data(), w3 * sizeof(int), w3, h3);
    q.extent = make_cudaExtent(w3, h3, d3);
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    report("tex3D on a cudaMalloc3DArray filled by cudaMemcpy3D", o == v && back == v);
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(a3));
    CK(cudaFree(d));
  }
  {
    // The deprecated 1D array copies continue on the next rows: 25 floats from column 3 of row 1
    // of a 10 x 4 array span rows 1-3; a copy running past the last row is rejected.
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a1;
    CK(cudaMallocArray(&a1, &fd, 10, 4));
    std::vector<float> src(40), back(25, -1.0f), rows(40, 0.0f);
    for (int i = 0; i < 40; ++i) src[i] = float(i) * 1.5f;
    CK(cudaMemcpyToArray(a1, 3 * sizeof(float), 1, src.data(), 25 * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpyFromArray(back.data(), a1, 3 * sizeof(float), 1, 25 * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy2DFromArray(rows.data(), 10 * sizeof(float), a1, 0, 0, 10 * sizeof(float), 4, cudaMemcpyDeviceToHost));
    bool ok = std::equal(back.begin(), back.end(), src.begin());
    for (int i = 0; i < 25; ++i) ok &= rows[13 + i] == src[i];  // row 1 column 3 is element 13
    const cudaError_t past = cudaMemcpyToArray(a1, 0, 3, src.data(), 20 * sizeof(float), cudaMemcpyHostToDevice);
    ok &= past == cudaErrorInvalidValue;
    cudaGetLastError();
    report("cudaMemcpyToArray/FromArray across rows", ok);
    CK(cudaFreeArray(a1));
  }
  CK(cudaFreeArray(arr));
  std::printf("texture: %s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
