// tma: sm_90's tensor copies (cp.async.bulk.tensor through a CUtensorMap from
// cuTensorMapEncodeTiled): the latency of one 64x64 f16 box (8 KiB, 128-byte swizzle) from L2 and
// the rate at which an SM streams such boxes. Build for sm_90a (nvcc -O3 -cudart shared -arch=sm_90a).
//
// Metrics:
//   box_l2_lat        one thread: mbarrier.arrive.expect_tx(8192), the 2D tensor load, try_wait
//                     spin until the phase flips; clock64 around it; the box was loaded twice
//                     before (L2-resident); median of 16 samples (cycles)
//   box_l2_lat_min    the fastest sample
//   stream_<n>sm_w4_s<S>_bpc_sm  one CTA per SM (its dynamic shared memory forces it), 4 warps whose
//                     lane 0 each streams B boxes through S stages of its own (a stage is reused
//                     once its mbarrier phase completed), from a 4 MiB f16 tensor (2048 x 1024)
//                     that stays in L2; bytes per SM clock per SM (mean over CTAs); n = 1 and all SMs
// Self-check: the first 16 bytes of every streamed box's first row and the whole latency box,
// unswizzled, against the tensor's contents.
#include "../common.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdint>

constexpr int kW = 2048, kH = 1024, kBox = 64, kBoxBytes = kBox * kBox * 2;

__host__ __device__ __forceinline__ unsigned short elem(unsigned x, unsigned y) {
    return (unsigned short)(mix64(y * 4096ull + x) & 0xffff);
}
__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void arrive_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void box_load(unsigned dst, const CUtensorMap* tm, int x, int y, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
        "l"(tm), "r"(x), "r"(y), "r"(bar)
        : "memory");
}
__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}" ::"r"(bar),
        "r"(parity)
        : "memory");
}
// The element at box position (r, c) in a 128-byte-swizzled 64x64 f16 box image.
__device__ __forceinline__ unsigned short boxed(const unsigned char* buf, int r, int c) {
    unsigned off = unsigned(r) * 128 + unsigned(c) * 2;
    off ^= ((off >> 7) & 7) << 4;
    return *(const unsigned short*)(buf + off);
}

__global__ void k_fill(unsigned short* p) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < kW * kH; i += gridDim.x * blockDim.x)
        p[i] = elem(i % kW, i / kW);
}

__global__ void k_lat(const __grid_constant__ CUtensorMap tm, int samples, long long* out, unsigned* bad) {
    __shared__ __align__(1024) unsigned char buf[kBoxBytes];
    __shared__ __align__(8) unsigned long long bar_obj;
    if (threadIdx.x != 0) return;
    const unsigned bar = smem_addr(&bar_obj), dst = smem_addr(buf);
    mbar_init(bar, 1);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    unsigned phase = 0, errs = 0;
    for (int s = -2; s < samples; ++s) {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        const long long t0 = rd_clock64();
        arrive_tx(bar, kBoxBytes);
        box_load(dst, &tm, 128, 64, bar);
        wait_parity(bar, phase);
        const long long t1 = rd_clock64();
        phase ^= 1;
        if (s < 0) continue;
        out[s] = t1 - t0;
        for (int r = 0; r < kBox; ++r)
            for (int c = 0; c < kBox; ++c) errs += boxed(buf, r, c) != elem(128 + c, 64 + r);
    }
    bad[0] = errs;
}

// One CTA per SM, 4 warps, lane 0 of each streams `boxes` boxes through `stages` stages.
__global__ void k_stream(const __grid_constant__ CUtensorMap tm, int boxes, int stages, long long* cycles,
                         unsigned* bad) {
    extern __shared__ __align__(1024) unsigned char dyn[];
    __shared__ __align__(8) unsigned long long bars[4 * 8];
    const int warp = threadIdx.x / 32;
    unsigned char* mine = dyn + size_t(warp) * stages * kBoxBytes;
    if (threadIdx.x % 32 == 0)
        for (int s = 0; s < stages; ++s) mbar_init(smem_addr(&bars[warp * 8 + s]), 1);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const long long t0 = rd_clock64();
    unsigned errs = 0;
    if (threadIdx.x % 32 == 0) {
        const int tiles_x = kW / kBox, tiles = tiles_x * (kH / kBox);
        auto tile = [&](int i) { return (blockIdx.x * 4 + warp) * 7 + i * 13; };
        for (int i = 0; i < boxes + stages; ++i) {
            const int s = i % stages;
            const unsigned bar = smem_addr(&bars[warp * 8 + s]);
            if (i >= stages) {  // the box issued `stages` ago
                wait_parity(bar, unsigned((i / stages - 1) & 1));
                const int t = tile(i - stages) % tiles, x = (t % tiles_x) * kBox, y = (t / tiles_x) * kBox;
                const unsigned char* b = mine + size_t(s) * kBoxBytes;
                for (int c = 0; c < 8; ++c) errs += boxed(b, 0, c) != elem(x + c, y);
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            }
            if (i < boxes) {
                const int t = tile(i) % tiles;
                arrive_tx(bar, kBoxBytes);
                box_load(smem_addr(mine + size_t(s) * kBoxBytes), &tm, (t % tiles_x) * kBox, (t / tiles_x) * kBox, bar);
            }
        }
    }
    __syncthreads();
    const long long t1 = rd_clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
    if (errs) atomicAdd(bad, errs);
}

int main(int argc, char** argv) {
    auto rest = parse_common(argc, argv, "tma");
    if (!rest.empty()) usage_exit("");
    query_device();
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
    auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    unsigned short* t;
    CHECK(cudaMalloc(&t, size_t(kW) * kH * 2));
    k_fill<<<256, 256>>>(t);
    CHECK(cudaDeviceSynchronize());
    alignas(64) CUtensorMap tm;
    const cuuint64_t dim[2] = {kW, kH}, stride[1] = {kW * 2};
    const cuuint32_t box[2] = {kBox, kBox}, es[2] = {1, 1};
    if (encode(&tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, t, dim, stride, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) !=
        CUDA_SUCCESS) {
        fail("tma", "cuTensorMapEncodeTiled");
        return finish();
    }
    long long* out;
    unsigned* bad;
    CHECK(cudaMalloc(&out, 1024 * sizeof(long long)));
    CHECK(cudaMalloc(&bad, 4));
    {
        const int samples = 16;
        std::vector<double> reps_med, reps_min;
        for (int r = 0; r < g_reps; ++r) {
            CHECK(cudaMemset(bad, 0, 4));
            k_lat<<<1, 32>>>(tm, samples, out, bad);
            CHECK(cudaDeviceSynchronize());
            std::vector<long long> h(samples);
            unsigned hb = 0;
            CHECK(cudaMemcpy(h.data(), out, samples * 8, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(&hb, bad, 4, cudaMemcpyDeviceToHost));
            if (hb) fail("tma", "latency box contents");
            std::vector<double> v(h.begin(), h.end());
            reps_med.push_back(median(v));
            reps_min.push_back(*std::min_element(v.begin(), v.end()));
        }
        emit("tma", "box_l2_lat", median(reps_med), "cycles");
        emit("tma", "box_l2_lat_min", median(reps_min), "cycles");
    }
    const int stages = 4, boxes = g_quick ? 16 : 256;
    const size_t dyn = size_t(4) * stages * kBoxBytes;  // 128 KiB: one CTA per SM
    CHECK(cudaFuncSetAttribute(k_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dyn)));
    for (int sms : {1, g_dev.sms}) {
        std::vector<double> reps;
        for (int r = 0; r < g_reps; ++r) {
            CHECK(cudaMemset(bad, 0, 4));
            k_stream<<<sms, 128, dyn>>>(tm, boxes, stages, out, bad);
            CHECK(cudaDeviceSynchronize());
            std::vector<long long> h(static_cast<size_t>(sms));
            unsigned hb = 0;
            CHECK(cudaMemcpy(h.data(), out, size_t(sms) * 8, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(&hb, bad, 4, cudaMemcpyDeviceToHost));
            if (hb) fail("tma", "streamed box contents");
            double sum = 0;
            for (long long c : h) sum += 4.0 * boxes * kBoxBytes / double(c);
            reps.push_back(sum / sms);
        }
        char name[64];
        snprintf(name, sizeof name, "stream_%dsm_w4_s%d_bpc_sm", sms, stages);
        emit("tma", name, median(reps), "B/clk");
    }
    return finish();
}
