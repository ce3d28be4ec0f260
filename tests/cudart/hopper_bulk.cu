// sm_90's bulk copies as the CUDA Programming Guide's "TMA for one-dimensional arrays" example
// writes them: cuda::memcpy_async with a 16-byte aligned size into shared memory completing on a
// cuda::barrier (cp.async.bulk ... mbarrier::complete_tx::bytes), and the shared-to-global bulk
// copy with its bulk group (cp.async.bulk.global.shared::cta.bulk_group, commit_group,
// wait_group.read); results against a CPU reference. Built for sm_90, run on the H100.
#include <cuda/barrier>
#include <cooperative_groups.h>

#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;
using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int kTile = 1024;

__global__ void tile_copy(const int* in, int* out) {
  __shared__ alignas(16) int buf[kTile];
  __shared__ barrier bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf, in + blockIdx.x * kTile, cuda::aligned_size_t<16>(sizeof(int) * kTile), bar);
  bar.arrive_and_wait();
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) out[blockIdx.x * kTile + i] = buf[kTile - 1 - i] + 1;
}

// The guide's example: bulk load with an explicit expect-tx arrive, update in shared memory, bulk
// store back.
__global__ void add_in_place(int* data, int offset) {
  __shared__ alignas(16) int smem[kTile];
  __shared__ barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cuda::memcpy_async(smem, data + blockIdx.x * kTile, cuda::aligned_size_t<16>(sizeof(smem)), bar);
    token = bar.arrive();
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) smem[i] += offset + i;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_shared_to_global(data + blockIdx.x * kTile, smem, sizeof(smem));
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

int main() {
  const int blocks = 6, n = blocks * kTile;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i * 7 - 1000;
  int *in, *out;
  cudaMalloc(&in, n * 4);
  cudaMalloc(&out, n * 4);
  cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
  tile_copy<<<blocks, 256>>>(in, out);
  std::vector<int> o(n);
  cudaMemcpy(o.data(), out, n * 4, cudaMemcpyDeviceToHost);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok &= o[i] == h[(i / kTile) * kTile + kTile - 1 - i % kTile] + 1;
  std::printf("cuda::memcpy_async (bulk, aligned_size_t<16>) + cuda::barrier: %s\n", ok ? "PASS" : "FAIL");
  add_in_place<<<blocks, 128>>>(in, 5);
  cudaMemcpy(o.data(), in, n * 4, cudaMemcpyDeviceToHost);
  ok = true;
  for (int i = 0; i < n; ++i) ok &= o[i] == h[i] + 5 + i % kTile;
  std::printf("bulk load, expect-tx arrive, bulk store with bulk group: %s\n", ok ? "PASS" : "FAIL");
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("hopper_bulk: %s\n", ok && e == cudaSuccess ? "PASS" : "FAIL");
  return ok && e == cudaSuccess ? 0 : 1;
}
