// cudaMalloc3D, cudaMemset3D(+Async), cudaMemcpy3D(+Async) on pitched pointers; cudaMemcpy3D from
// something that is not a cudaArray reports cudaErrorInvalidResourceHandle (array copies:
// texture.cu).
#include <cstdio>
#include <vector>

__global__ void add_index(cudaPitchedPtr p, int w, int h, int d) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) {
    int* row = (int*)((char*)p.ptr + (z * h + y) * p.pitch);
    row[x] += x + 100 * y + 10000 * z;
  }
}

int main() {
  const int W = 37, H = 5, D = 3;
  cudaExtent ext = make_cudaExtent(W * sizeof(int), H, D);
  cudaPitchedPtr dp;
  if (cudaMalloc3D(&dp, ext) != cudaSuccess) { printf("cudaMalloc3D failed\n"); return 1; }
  printf("pitch ok: %d, xsize %zu, ysize %zu\n", dp.pitch >= W * sizeof(int) && dp.pitch % 128 == 0, dp.xsize, dp.ysize);
  cudaMemset3D(dp, 0x01, ext);                      // every int 0x01010101
  add_index<<<dim3(H, D), 64>>>(dp, W, H, D);
  std::vector<int> host(W * H * D, -1);
  cudaMemcpy3DParms c = {};
  c.srcPtr = dp;
  c.dstPtr = make_cudaPitchedPtr(host.data(), W * sizeof(int), W, H);
  c.extent = ext;
  c.kind = cudaMemcpyDeviceToHost;
  cudaError_t e = cudaMemcpy3D(&c);
  int bad = 0;
  for (int z = 0; z < D; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) bad += host[(z * H + y) * W + x] != 0x01010101 + x + 100 * y + 10000 * z;
  printf("memcpy3D D2H: %s, %d wrong\n", cudaGetErrorName(e), bad);
  // A sub-box with offsets, host -> device asynchronously, then back.
  std::vector<int> box(4 * 2 * 2);
  for (int i = 0; i < 16; i++) box[i] = 7000 + i;
  cudaMemcpy3DParms u = {};
  u.srcPtr = make_cudaPitchedPtr(box.data(), 4 * sizeof(int), 4, 2);
  u.dstPtr = dp;
  u.dstPos = make_cudaPos(3 * sizeof(int), 2, 1);
  u.extent = make_cudaExtent(4 * sizeof(int), 2, 2);
  u.kind = cudaMemcpyHostToDevice;
  cudaStream_t st;
  cudaStreamCreate(&st);
  e = cudaMemcpy3DAsync(&u, st);
  cudaMemset3DAsync(make_cudaPitchedPtr(dp.ptr, dp.pitch, W * sizeof(int), H), 0, make_cudaExtent(sizeof(int), 1, 1), st);
  cudaStreamSynchronize(st);
  cudaMemcpy3D(&c);
  bad = 0;
  for (int z = 0; z < D; z++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        int want = 0x01010101 + x + 100 * y + 10000 * z;
        if (z >= 1 && z < 3 && y >= 2 && y < 4 && x >= 3 && x < 7) want = 7000 + ((z - 1) * 2 + (y - 2)) * 4 + (x - 3);
        if (x == 0 && y == 0 && z == 0) want = 0;
        bad += host[(z * H + y) * W + x] != want;
      }
  printf("memcpy3DAsync H2D box + memset3DAsync: %s, %d wrong\n", cudaGetErrorName(e), bad);
  // Not an array handle.
  cudaMemcpy3DParms a = {};
  a.srcArray = (cudaArray_t)0x1000;
  a.dstPtr = dp;
  a.extent = make_cudaExtent(4, 1, 1);
  a.kind = cudaMemcpyDeviceToDevice;
  printf("memcpy3D from a cudaArray: %s\n", cudaGetErrorName(cudaMemcpy3D(&a)));
  cudaGetLastError();
  cudaFree(dp.ptr);
  printf("%s\n", bad ? "FAIL" : "PASS");
  return 0;
}
