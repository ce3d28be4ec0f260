// Kernels for bench/func_bench.cpp: functional-mode speed of the simulator on an ALU-bound kernel
// (FMA chains), a memory-bound one (streaming copy) and a divergent one (Mandelbrot).
// PTX regenerated with: nvcc -arch=sm_80 -ptx func_bench.cu -o func_bench.ptx

__global__ void fma_chain(float* out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = 1.0f + i * 1e-6f, b = 0.5f, c = 0.25f, d = 0.125f;
  for (int k = 0; k < iters; ++k) {
    a = fmaf(a, 0.9999f, 0.0001f);
    b = fmaf(b, 0.9998f, 0.0002f);
    c = fmaf(c, 0.9997f, 0.0003f);
    d = fmaf(d, 0.9996f, 0.0004f);
  }
  out[i] = a + b + c + d;
}

__global__ void stream_copy(const float* __restrict__ in, float* __restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i];
}

__global__ void mandelbrot(int* out, int width, int height, int max_iter) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / height;
  float zr = 0.0f, zi = 0.0f;
  int it = 0;
  while (it < max_iter && zr * zr + zi * zi < 4.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    ++it;
  }
  out[y * width + x] = it;
}
