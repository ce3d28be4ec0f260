// One txq/suq query per program (a query the driver refuses makes the whole module fail to load).
#include <cstdio>
#include <vector>
#ifndef SURF
__global__ void k(cudaTextureObject_t t, int* o, int lvl) {
  int v = -7;
#ifdef LEVEL
  asm volatile("txq.level." Q ".b32 %0, [%1], %2;" : "=r"(v) : "l"(t), "r"(lvl));
#else
  asm volatile("txq." Q ".b32 %0, [%1];" : "=r"(v) : "l"(t));
#endif
  *o = v;
}
#else
__global__ void k(cudaSurfaceObject_t t, int* o, int) { int v = -7; asm volatile("suq." Q ".b32 %0, [%1];" : "=r"(v) : "l"(t)); *o = v; }
#endif
cudaTextureObject_t mk(cudaResourceDesc r, int filt, int norm, int a0, int a1, int a2) {
  cudaTextureDesc td = {}; td.addressMode[0] = cudaTextureAddressMode(a0); td.addressMode[1] = cudaTextureAddressMode(a1); td.addressMode[2] = cudaTextureAddressMode(a2);
  td.filterMode = cudaTextureFilterMode(filt); td.normalizedCoords = norm; td.mipmapFilterMode = cudaFilterModeLinear; td.maxMipmapLevelClamp = 100;
  cudaTextureObject_t t = 0; cudaCreateTextureObject(&t, &r, &td, nullptr); return t;
}
int main() {
  int* d; cudaMalloc(&d, 4);
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>(), u4 = cudaCreateChannelDesc<uchar4>(), s2 = cudaCreateChannelDesc<short2>(), h1 = cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
  std::vector<std::pair<const char*, unsigned long long>> objs;
  cudaResourceDesc r = {};
  cudaMipmappedArray_t m; cudaMallocMipmappedArray(&m, &f1, make_cudaExtent(40, 24, 0), 6);
  r.resType = cudaResourceTypeMipmappedArray; r.res.mipmap.mipmap = m;
  cudaMipmappedArray_t m3; cudaMallocMipmappedArray(&m3, &u4, make_cudaExtent(16, 8, 4), 5);
  cudaResourceDesc r3 = r; r3.res.mipmap.mipmap = m3;
  cudaArray_t a1, a2, al, a3, ac;
  cudaMallocArray(&a1, &s2, 9, 0, cudaArraySurfaceLoadStore);
  cudaMallocArray(&a2, &u4, 20, 10, cudaArraySurfaceLoadStore);
  cudaMalloc3DArray(&al, &h1, make_cudaExtent(8, 6, 3), cudaArrayLayered | cudaArraySurfaceLoadStore);
  cudaMalloc3DArray(&a3, &f1, make_cudaExtent(5, 6, 7), cudaArraySurfaceLoadStore);
  cudaMalloc3DArray(&ac, &f1, make_cudaExtent(4, 4, 12), cudaArrayCubemap | cudaArrayLayered | cudaArraySurfaceLoadStore);
  cudaResourceDesc ra = {}; ra.resType = cudaResourceTypeArray;
  void* lin; cudaMalloc(&lin, 4096);
#ifndef SURF
  objs.push_back({"mip2d-40x24-f32-lin-norm-wcm", mk(r, 1, 1, 0, 1, 2)});
  objs.push_back({"mip3d-16x8x4-u8x4-point-unnorm-bbc", mk(r3, 0, 0, 3, 3, 1)});
  ra.res.array.array = a1; objs.push_back({"arr1d-9-s16x2", mk(ra, 0, 0, 1, 1, 1)});
  ra.res.array.array = a2; objs.push_back({"arr2d-20x10-u8x4", mk(ra, 0, 1, 2, 0, 1)});
  ra.res.array.array = al; objs.push_back({"layered-8x6x3-f16", mk(ra, 1, 0, 1, 1, 1)});
  ra.res.array.array = a3; objs.push_back({"arr3d-5x6x7-f32", mk(ra, 0, 0, 1, 1, 1)});
  ra.res.array.array = ac; objs.push_back({"cubelayered-4x4x12", mk(ra, 0, 1, 1, 1, 1)});
  cudaResourceDesc rl = {}; rl.resType = cudaResourceTypeLinear; rl.res.linear.devPtr = lin; rl.res.linear.desc = s2; rl.res.linear.sizeInBytes = 400;
  objs.push_back({"linear-100-s16x2", mk(rl, 0, 0, 1, 1, 1)});
  cudaResourceDesc rp = {}; rp.resType = cudaResourceTypePitch2D; rp.res.pitch2D.devPtr = lin; rp.res.pitch2D.desc = f1; rp.res.pitch2D.width = 12; rp.res.pitch2D.height = 3; rp.res.pitch2D.pitchInBytes = 128;
  objs.push_back({"pitch2d-12x3-f32", mk(rp, 0, 0, 1, 1, 1)});
#else
  cudaSurfaceObject_t s;
  for (auto p : {std::make_pair("arr1d-9-s16x2", a1), std::make_pair("arr2d-20x10-u8x4", a2), std::make_pair("layered-8x6x3-f16", al), std::make_pair("arr3d-5x6x7-f32", a3), std::make_pair("cubelayered-4x4x12", ac)}) {
    ra.res.array.array = p.second; cudaCreateSurfaceObject(&s, &ra); objs.push_back({p.first, s});
  }
#endif
  printf("%s:", Q);
  for (auto& o : objs) {
    for (int lvl = 0; lvl < LV; ++lvl) {
      int v = -9; cudaMemset(d, 0xff, 4);
      k<<<1, 1>>>(o.second, d, lvl == LV - 1 && LV > 1 ? -1 : lvl);
      cudaError_t e = cudaGetLastError();
      if (e) { printf(" %s", cudaGetErrorName(e)); goto done; }
      cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost);
      printf(" %s=%d", lvl ? "" : o.first, v);
    }
  }
done:
  printf("\n");
  return 0;
}
