// CUDA dynamic parallelism (kernels launching kernels; -rdc=true -lcudadevrt), as CUDA 12+ builds
// it (CDP2): child grids per parent thread, a child with dynamic shared memory and a struct
// argument, launches into a device-created stream, cudaStreamTailLaunch and
// cudaStreamFireAndForget, recursion three levels deep (a parallel sum that halves its range), and
// cudaGetLastError in device code, and device printf from a child grid. Results are checked on the host after cudaDeviceSynchronize
// (a parent cannot wait for its children in CDP2), against a CPU reference.
#include <cstdio>

struct Span {
  int begin, count;
  float scale;
};

__global__ void hello(int v) {
  if (threadIdx.x == 0) printf("a child grid says %d\n", v);
}

__global__ void fill(int* p, int base) { p[base + threadIdx.x] = base + threadIdx.x; }

__global__ void reverse_scaled(const float* in, float* out, Span s) {
  extern __shared__ float tile[];
  int t = threadIdx.x;
  if (t < s.count) tile[t] = in[s.begin + t] * s.scale;
  __syncthreads();
  if (t < s.count) out[s.begin + s.count - 1 - t] = tile[t];
}

// Sums v[begin, begin + n) into *out: halves the range twice through child grids, then adds.
__global__ void tree_sum(const int* v, int begin, int n, unsigned long long* out, int depth) {
  if (depth < 2 && n >= 64) {
    if (threadIdx.x == 0) {
      tree_sum<<<1, 32>>>(v, begin, n / 2, out, depth + 1);
      tree_sum<<<1, 32>>>(v, begin + n / 2, n - n / 2, out, depth + 1);
    }
    return;
  }
  unsigned long long s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += v[begin + i];
  atomicAdd(out, s);
}

__global__ void parent(int* p, const float* in, float* out, int* errors) {
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  fill<<<1, 32, 0, s>>>(p, threadIdx.x * 32);
  fill<<<1, 32, 0, cudaStreamTailLaunch>>>(p, 128 + threadIdx.x * 32);
  fill<<<1, 32, 0, cudaStreamFireAndForget>>>(p, 256 + threadIdx.x * 32);
  cudaStreamDestroy(s);
  if (threadIdx.x == 0) {
    Span sp{16, 48, 2.5f};
    reverse_scaled<<<1, 64, 64 * sizeof(float)>>>(in, out, sp);
    hello<<<1, 32>>>(42);
  }
  if (cudaGetLastError() != cudaSuccess) atomicAdd(errors, 1);
}

int main() {
  int *d, *derr;
  float *din, *dout;
  cudaMalloc(&d, 384 * sizeof(int));
  cudaMalloc(&derr, sizeof(int));
  cudaMalloc(&din, 64 * sizeof(float));
  cudaMalloc(&dout, 64 * sizeof(float));
  cudaMemset(d, 0xff, 384 * sizeof(int));
  cudaMemset(derr, 0, sizeof(int));
  cudaMemset(dout, 0, 64 * sizeof(float));
  float hin[64];
  for (int i = 0; i < 64; ++i) hin[i] = float(i) - 10.0f;
  cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice);
  parent<<<1, 4>>>(d, din, dout, derr);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  int h[384], herr = -1;
  float hout[64];
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  cudaMemcpy(&herr, derr, sizeof herr, cudaMemcpyDeviceToHost);
  cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost);
  int wrong_fill = 0, wrong_rev = 0;
  for (int i = 0; i < 384; ++i) wrong_fill += h[i] != i;
  for (int i = 0; i < 64; ++i) {
    float want = i >= 16 ? hin[16 + 63 - i] * 2.5f : 0.0f;
    wrong_rev += hout[i] != want;
  }
  std::printf("launch: %s\nsynchronize: %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync));
  std::printf("children per thread (stream, tail, fire-and-forget): %d wrong of 384\n", wrong_fill);
  std::printf("child with dynamic shared memory and a struct argument: %d wrong of 64\n", wrong_rev);
  std::printf("device-side errors: %d\n", herr);

  const int n = 1000;
  int hv[n];
  unsigned long long want = 0, got = 0;
  for (int i = 0; i < n; ++i) hv[i] = i * 7 % 101, want += hv[i];
  int* dv;
  unsigned long long* dsum;
  cudaMalloc(&dv, sizeof hv);
  cudaMalloc(&dsum, sizeof got);
  cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice);
  cudaMemset(dsum, 0, sizeof got);
  tree_sum<<<1, 32>>>(dv, 0, n, dsum, 0);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(&got, dsum, sizeof got, cudaMemcpyDeviceToHost);
  std::printf("recursive sum, 3 levels: %s, %s\n", cudaGetErrorName(e), got == want ? "right" : "WRONG");
  bool ok = launch == cudaSuccess && sync == cudaSuccess && !wrong_fill && !wrong_rev && herr == 0 && e == cudaSuccess &&
            got == want;
  std::printf("dynamic parallelism: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
