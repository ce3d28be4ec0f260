// bulk: sm_90's bulk copies (cp.async.bulk, the TMA unit's non-tensor form; what cuda::memcpy_async
// with a 16-byte aligned size compiles to): latency of one copy of N bytes and bandwidth of a
// kernel that streams with them. Build for sm_90 (nvcc -O3 -cudart shared -arch=sm_90).
//
// Sections (--sections, default LWS; with --quick LWB):
//   L  global -> shared latency: one thread of one CTA arrives on an mbarrier with expect_tx(N),
//      issues cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes of N bytes and spins
//      on mbarrier.try_wait.parity until the phase flips; clock64 around it (cycles). Metrics:
//        g2s_l2_<N>     source in L2 (the same N bytes copied twice before, so in the near partition)
//        g2s_dram_<N>   source not in L2: a 2 MiB page per sample, the first N bytes of it, never
//                       touched since a 256 MiB flush, the page's translation warmed by a .cg load of
//                       its last line (which lies outside the copy)
//        mbar_only      the same arrive + try_wait with expect_tx(0) and no copy (the base)
//      N = 16, 128, 512, 1 KiB, 4 KiB, 16 KiB, 64 KiB; median (and _min) of the samples.
//   W  shared -> global latency: cp.async.bulk.global.shared::cta.bulk_group of N bytes,
//      cp.async.bulk.commit_group, then cp.async.bulk.wait_group.read 0 (s2g_read_<N>: the source
//      has been read) or cp.async.bulk.wait_group 0 (s2g_<N>: the writes are done); destination in L2.
//   S  one CTA per SM (dynamic shared memory forces it), one thread per CTA streams its slice of a
//      buffer with copies of C bytes into S stages (a stage is reused once its mbarrier phase has
//      completed: the copies in flight are S). Metrics <where>_<sms>sm_c<C>_s<S>_:
//        bpc_sm   bytes per SM clock per active SM (bytes / (clock64 end - start), mean over CTAs)
//        gbs      aggregate GB/s: all bytes / (last end - first start, %globaltimer)
//      where = l2 (a 4 MiB ring each CTA reads round and round, 8 MiB per SM by default) or dram (a
//      buffer of 1 GiB, each CTA its own contiguous slice, read once, flushed from L2 before).
//   V  stream variants: without the fence.proxy.async before a stage is reused (_v1), without
//      reading the stage (_v2), with a test_wait spin (_v4), combinations (_v<bits>, see stream())
//   I  issue cost: one thread issues k copies (k = 1, 4, 16) of 16 B / 1 KiB / 4 KiB back to back
//      (issue_<k>x<N>_issue: cycles to issue them, _landed: until the last has landed; L2-resident)
//   M  k issuing warps in one CTA (lane 0 of each; own stages, mbarriers and slice): metrics
//      <where>_<sms>sm_k<k>_c<C>_s<S>_bpc_sm / _gbs. The 132-SM l2 rows start CTA b at b x 128 KiB
//      of a 16 MiB ring (distinct lines at a time), unlike section S, where every SM reads the
//      same 4 MiB ring from offset 0 at once
//   D  dram_<all SMs>sm_c16384_s4 alone (a row of S, for looking at it in the simulator)
//   B  (sim checks) the same streams, small: what the simulator runs with --quick.
// Self-checks: every copy's first word (stream) or every word (latency) against the buffer's
// contents, computed on the host.
// Options: --sections S, --per-sm-kib K (stream bytes per active SM, default 8192; --quick 256)
#include "../common.cuh"

#include <cstdint>

__device__ __forceinline__ unsigned long long rd_globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}
__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void arrive_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_g2s(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}" ::"r"(bar),
        "r"(parity)
        : "memory");
}
__device__ __forceinline__ void wait_parity_test(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n .reg .pred p;\n WAIT_%=:\n mbarrier.test_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}" ::"r"(bar),
        "r"(parity)
        : "memory");
}
__device__ __forceinline__ unsigned ld_cg(const unsigned* p) {
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__host__ __device__ __forceinline__ unsigned word_at(unsigned long long byte_off) { return (unsigned)mix64(byte_off >> 2); }

__global__ void k_fill(unsigned* p, size_t words) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        p[i] = word_at(i * 4);
}
__global__ void k_flush(unsigned* p, size_t words) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (unsigned)i;
}

// L: out[s] = cycles of sample s; bad[0] counts words that differ. Source of sample s: src +
// s * stride (stride 0: the same bytes every sample, copied `warm` times first).
__global__ void k_lat_g2s(const char* src, size_t src_off, size_t stride, unsigned bytes, int samples, int warm,
                          int copy, long long* out, unsigned* bad) {
    extern __shared__ __align__(128) char buf[];
    __shared__ __align__(8) unsigned long long bar_obj;
    __shared__ unsigned scratch;
    if (threadIdx.x != 0) return;
    const unsigned bar = smem_addr(&bar_obj), dst = smem_addr(buf);
    mbar_init(bar, 1);
    fence_async();
    unsigned phase = 0, errs = 0;
    for (int s = -warm; s < samples; ++s) {
        const char* p = src + (s < 0 ? 0 : s) * stride;
        if (stride && copy) {  // the page's translation; the store waits for the load, clock64 for the store
            const unsigned v = ld_cg((const unsigned*)(p + (2u << 20) - 128));
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_addr(&scratch)), "r"(v) : "memory");
        }
        fence_async();  // the check's reads of buf (generic proxy) before the copy's writes (async proxy)
        const long long t0 = rd_clock64();
        arrive_tx(bar, copy ? bytes : 0);
        if (copy) bulk_g2s(dst, p, bytes, bar);
        wait_parity(bar, phase);
        const long long t1 = rd_clock64();
        phase ^= 1;
        if (s >= 0) out[s] = t1 - t0;
        if (copy && s >= 0) {
            const unsigned long long off = src_off + (unsigned long long)(p - src);
            for (unsigned i = 0; i < bytes / 4; ++i)
                if (((const unsigned*)buf)[i] != word_at(off + 4ull * i)) ++errs;
        }
    }
    bad[0] = errs;
}

// W: out[s] = cycles of sample s (writes N bytes of shared memory to dst; read_only: wait_group.read).
__global__ void k_lat_s2g(char* dst, unsigned bytes, int samples, int read_only, long long* out) {
    extern __shared__ __align__(128) char buf[];
    for (unsigned i = threadIdx.x; i < bytes / 4; i += blockDim.x) ((unsigned*)buf)[i] = word_at(4ull * i);
    fence_async();
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (int s = -2; s < samples; ++s) {
        const long long t0 = rd_clock64();
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_addr(buf)),
                     "r"(bytes)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        if (read_only) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        else asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        const long long t1 = rd_clock64();
        if (s >= 0) out[s] = t1 - t0;
    }
}

// S: one thread per CTA streams per_cta bytes (offsets modulo ring) in chunks of `chunk` bytes
// through `stages` buffers. rec[4 b + 0..3] = clocks, start ns, end ns, sum of first words.
__global__ void k_stream(const char* src, unsigned long long ring, unsigned long long per_cta, unsigned chunk,
                         unsigned stages, unsigned active, unsigned long long* rec, unsigned variant) {
    extern __shared__ __align__(128) char buf[];
    __shared__ __align__(8) unsigned long long bars[16];
    if (blockIdx.x >= active || threadIdx.x != 0) return;
    for (unsigned s = 0; s < stages; ++s) mbar_init(smem_addr(&bars[s]), 1);
    fence_async();
    // 32-bit counters, power-of-two stages and an offset stepped by `chunk`: no 64-bit division in
    // the loop (the first version's i % stages and % ring were subroutine calls that made the loop,
    // not the copies, the limit: ~800 cycles per copy at any size).
    const unsigned n = (unsigned)(per_cta / chunk), sh = (unsigned)(__ffs(stages) - 1);
    const unsigned bar0 = smem_addr(&bars[0]), dst0 = smem_addr(buf);
    unsigned long long off = ((unsigned long long)blockIdx.x * per_cta) % ring;
    unsigned long long sum = 0;
    const long long c0 = rd_clock64();
    const unsigned long long g0 = rd_globaltimer();
    for (unsigned i = 0; i < n + stages; ++i) {
        const unsigned s = i & (stages - 1);
        const unsigned bar = bar0 + 8 * s;
        if (i >= stages) {  // the stage's previous copy (i - stages) has landed
            if (variant & 4) wait_parity_test(bar, ((i >> sh) - 1) & 1);
            else wait_parity(bar, ((i >> sh) - 1) & 1);
            if (!(variant & 2)) sum += ((const unsigned*)(buf + (size_t)s * chunk))[0];
        }
        if (i < n) {
            if (i >= stages && !(variant & 1)) fence_async();  // the read above before the copy's writes
            arrive_tx(bar, chunk);
            bulk_g2s(dst0 + s * chunk, src + off, chunk, bar);
            off += chunk;
            if (off >= ring) off -= ring;
        }
    }
    const long long c1 = rd_clock64();
    const unsigned long long g1 = rd_globaltimer();
    rec[4 * blockIdx.x + 0] = (unsigned long long)(c1 - c0);
    rec[4 * blockIdx.x + 1] = g0;
    rec[4 * blockIdx.x + 2] = g1;
    rec[4 * blockIdx.x + 3] = sum;
}

// M: `issuers` warps of one CTA (lane 0 of each) stream per_issuer bytes each, as k_stream does,
// each with its own stages and mbarriers: separates a limit of the issuing thread from one of the
// SM's copy unit. CTA b starts at (b * cta_step) % ring. rec[4 (b * issuers + w) + 0..3].
__global__ void k_stream_multi(const char* src, unsigned long long ring, unsigned long long per_issuer,
                               unsigned long long cta_step, unsigned chunk, unsigned stages, unsigned issuers,
                               unsigned active, unsigned long long* rec) {
    extern __shared__ __align__(128) char buf[];
    __shared__ __align__(8) unsigned long long bars[64];
    const unsigned w = threadIdx.x / 32;
    if (blockIdx.x >= active || (threadIdx.x & 31) || w >= issuers) return;
    const unsigned bar0 = smem_addr(&bars[w * stages]), dst0 = smem_addr(buf + (size_t)w * stages * chunk);
    for (unsigned s = 0; s < stages; ++s) mbar_init(bar0 + 8 * s, 1);
    fence_async();
    const unsigned n = (unsigned)(per_issuer / chunk), sh = (unsigned)(__ffs(stages) - 1);
    unsigned long long off = ((unsigned long long)blockIdx.x * cta_step + (unsigned long long)w * per_issuer) % ring;
    unsigned long long sum = 0;
    const long long c0 = rd_clock64();
    const unsigned long long g0 = rd_globaltimer();
    for (unsigned i = 0; i < n + stages; ++i) {
        const unsigned s = i & (stages - 1);
        const unsigned bar = bar0 + 8 * s;
        if (i >= stages) {
            wait_parity(bar, ((i >> sh) - 1) & 1);
            sum += ((const unsigned*)(buf + ((size_t)w * stages + s) * chunk))[0];
        }
        if (i < n) {
            if (i >= stages) fence_async();
            arrive_tx(bar, chunk);
            bulk_g2s(dst0 + s * chunk, src + off, chunk, bar);
            off += chunk;
            if (off >= ring) off -= ring;
        }
    }
    const long long c1 = rd_clock64();
    const unsigned long long g1 = rd_globaltimer();
    const unsigned r = 4 * (blockIdx.x * issuers + w);
    rec[r + 0] = (unsigned long long)c0;
    rec[r + 1] = g0;
    rec[r + 2] = g1;
    rec[r + 3] = sum;
    rec[r + 0] = ((unsigned long long)(c1 - c0) << 32) | ((unsigned long long)c0 & 0xffffffffull);
}

// I: issue cost: one thread issues k copies of `bytes` (k stages) back to back; out[0] = cycles
// to issue them all, out[1] = cycles until the last has landed.
__global__ void k_issue(const char* src, unsigned bytes, unsigned k, long long* out) {
    extern __shared__ __align__(128) char buf[];
    __shared__ __align__(8) unsigned long long bars[32];
    if (threadIdx.x) return;
    for (unsigned s = 0; s < k; ++s) mbar_init(smem_addr(&bars[s]), 1);
    fence_async();
    long long t0 = 0, t1 = 0, t2 = 0;
    for (int rep = 0; rep < 3; ++rep) {  // the last of 3 (the first two warm L2, TLB and code)
        t0 = rd_clock64();
        for (unsigned s = 0; s < k; ++s) {
            arrive_tx(smem_addr(&bars[s]), bytes);
            bulk_g2s(smem_addr(buf + (size_t)s * bytes), src + (size_t)s * bytes, bytes, smem_addr(&bars[s]));
        }
        t1 = rd_clock64();
        for (unsigned s = 0; s < k; ++s) wait_parity(smem_addr(&bars[s]), rep & 1);
        t2 = rd_clock64();
    }
    out[0] = t1 - t0;
    out[1] = t2 - t0;
}

static char* g_buf = nullptr;      // the source buffer (filled by k_fill)
static size_t g_buf_bytes = 0;
static unsigned* g_flush = nullptr;
static size_t g_flush_bytes = 0;

static void flush_l2() {
    if (!g_flush_bytes) return;
    k_flush<<<1024, 256>>>(g_flush, g_flush_bytes / 4);
    CHECK(cudaDeviceSynchronize());
}

static void section_latency(bool sim, bool g2s, bool s2g) {
    std::vector<unsigned> sizes = {16, 128, 512, 1024, 4096, 16384, 65536};
    if (sim) sizes = {16, 128, 1024, 4096, 16384};
    const int samples = sim ? 3 : 15;
    long long* d_out;
    unsigned* d_bad;
    CHECK(cudaMalloc(&d_out, 64 * sizeof(long long)));
    CHECK(cudaMalloc(&d_bad, sizeof(unsigned)));
    CHECK(cudaFuncSetAttribute(k_lat_g2s, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
    CHECK(cudaFuncSetAttribute(k_lat_s2g, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
    auto run = [&](const char* metric, const char* src, size_t stride, unsigned bytes, int warm, int copy) {
        std::vector<double> all;
        for (int r = 0; r < g_reps; ++r) {
            if (stride) flush_l2();
            CHECK(cudaMemset(d_bad, 0, sizeof(unsigned)));
            k_lat_g2s<<<1, 32, copy ? bytes : 16>>>(src, size_t(src - g_buf), stride, bytes, samples, warm, copy, d_out, d_bad);
            CHECK(cudaDeviceSynchronize());
            std::vector<long long> h(samples);
            unsigned bad = 0;
            CHECK(cudaMemcpy(h.data(), d_out, samples * sizeof(long long), cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
            if (bad) fail("bulk", std::string(metric) + ": " + std::to_string(bad) + " words differ");
            for (auto v : h) all.push_back(double(v));
        }
        emit("bulk", metric, median(all), "cycles");
        emit("bulk", std::string(metric) + "_min", *std::min_element(all.begin(), all.end()), "cycles");
    };
    if (g2s) run("mbar_only", g_buf, 0, 16, 2, 0);
    if (g2s)
        for (unsigned n : sizes) run(("g2s_l2_" + std::to_string(n)).c_str(), g_buf, 0, n, 2, 1);
    // DRAM: sample s reads page s of the buffer's second GiB (flushed before each launch).
    const size_t page = 2u << 20;
    const size_t dram_off = sim ? 0 : (size_t(1) << 30);
    if (g2s && g_buf_bytes >= dram_off + (size_t)samples * page)
        for (unsigned n : sizes) run(("g2s_dram_" + std::to_string(n)).c_str(), g_buf + dram_off, page, n, 0, 1);
    // shared -> global
    char* d_dst;
    CHECK(cudaMalloc(&d_dst, 65536));
    for (int ro = 1; ro >= 0 && s2g; --ro)
        for (unsigned n : sizes) {
            std::vector<double> all;
            for (int r = 0; r < g_reps; ++r) {
                k_lat_s2g<<<1, 128, n>>>(d_dst, n, samples, ro, d_out);
                CHECK(cudaDeviceSynchronize());
                std::vector<long long> h(samples);
                CHECK(cudaMemcpy(h.data(), d_out, samples * sizeof(long long), cudaMemcpyDeviceToHost));
                for (auto v : h) all.push_back(double(v));
            }
            std::vector<unsigned> back(n / 4);
            CHECK(cudaMemcpy(back.data(), d_dst, n, cudaMemcpyDeviceToHost));
            for (unsigned i = 0; i < n / 4; ++i)
                if (back[i] != word_at(4ull * i)) {
                    fail("bulk", "s2g data differs at word " + std::to_string(i));
                    break;
                }
            const std::string m = (ro ? "s2g_read_" : "s2g_") + std::to_string(n);
            emit("bulk", m, median(all), "cycles");
            emit("bulk", m + "_min", *std::min_element(all.begin(), all.end()), "cycles");
        }
    CHECK(cudaFree(d_dst));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_bad));
}

// variant bits: 1 no fence.proxy.async before reusing a stage, 2 no read of the stage's first word
// (no data check), 4 mbarrier.test_wait spin instead of try_wait.
static void stream(const char* where, unsigned sms, unsigned chunk, unsigned stages, size_t ring, size_t per_sm,
                   bool dram, unsigned variant = 0) {
    const size_t smem = std::max<size_t>((size_t)chunk * stages, 116 * 1024);  // one CTA per SM
    CHECK(cudaFuncSetAttribute(k_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    unsigned long long* d_rec;
    CHECK(cudaMalloc(&d_rec, 4 * sizeof(unsigned long long) * g_dev.sms));
    std::vector<double> bpc, gbs;
    for (int r = 0; r < g_reps + 1; ++r) {
        if (dram) flush_l2();
        k_stream<<<g_dev.sms, 32, smem>>>(g_buf, ring, per_sm, chunk, stages, sms, d_rec, variant);
        CHECK(cudaDeviceSynchronize());
        std::vector<unsigned long long> h(4 * g_dev.sms);
        CHECK(cudaMemcpy(h.data(), d_rec, h.size() * 8, cudaMemcpyDeviceToHost));
        unsigned long long g0 = ~0ull, g1 = 0;
        double sum_bpc = 0;
        for (unsigned b = 0; b < sms; ++b) {
            unsigned long long want = 0;
            for (unsigned long long i = 0; i < per_sm / chunk; ++i) want += word_at((b * per_sm + i * chunk) % ring);
            if (!(variant & 2) && h[4 * b + 3] != want) fail("bulk", std::string(where) + ": stream data of CTA " + std::to_string(b));
            sum_bpc += double(per_sm) / double(h[4 * b]);
            g0 = std::min(g0, h[4 * b + 1]);
            g1 = std::max(g1, h[4 * b + 2]);
        }
        if (r == 0 && !dram) continue;  // warm-up launch (brings the ring into L2)
        bpc.push_back(sum_bpc / sms);
        gbs.push_back(double(per_sm) * sms / double(g1 - g0));
    }
    const std::string m = std::string(where) + "_" + std::to_string(sms) + "sm_c" + std::to_string(chunk) + "_s" +
                          std::to_string(stages) + (variant ? "_v" + std::to_string(variant) : std::string());
    emit("bulk", m + "_bpc_sm", median(bpc), "B/clk/SM");
    emit("bulk", m + "_gbs", median(gbs), "GB/s");
    CHECK(cudaFree(d_rec));
}

static void stream_multi(const char* where, unsigned sms, unsigned issuers, unsigned chunk, unsigned stages,
                         size_t ring, size_t cta_step, size_t per_issuer, bool dram) {
    const size_t smem = std::max<size_t>((size_t)issuers * chunk * stages, 116 * 1024);
    CHECK(cudaFuncSetAttribute(k_stream_multi, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    unsigned long long* d_rec;
    const size_t nrec = (size_t)g_dev.sms * issuers;
    CHECK(cudaMalloc(&d_rec, 4 * sizeof(unsigned long long) * nrec));
    std::vector<double> bpc, gbs;
    for (int r = 0; r < g_reps + 1; ++r) {
        if (dram) flush_l2();
        k_stream_multi<<<g_dev.sms, 32 * issuers, smem>>>(g_buf, ring, per_issuer, cta_step, chunk, stages, issuers, sms,
                                                          d_rec);
        CHECK(cudaDeviceSynchronize());
        std::vector<unsigned long long> h(4 * nrec);
        CHECK(cudaMemcpy(h.data(), d_rec, h.size() * 8, cudaMemcpyDeviceToHost));
        unsigned long long g0 = ~0ull, g1 = 0;
        double sum_bpc = 0;
        for (unsigned b = 0; b < sms; ++b) {
            unsigned long long lo = ~0ull, hi = 0;  // the CTA's span: first start to last end (low 32 bits of clock64)
            for (unsigned w = 0; w < issuers; ++w) {
                const unsigned long long* q = &h[4 * (b * issuers + w)];
                unsigned long long want = 0, off = (b * cta_step + w * per_issuer) % ring;
                for (unsigned long long i = 0; i < per_issuer / chunk; ++i, off = (off + chunk) % ring) want += word_at(off);
                if (q[3] != want) fail("bulk", std::string(where) + ": stream data of CTA " + std::to_string(b));
                const unsigned long long start = q[0] & 0xffffffffull, len = q[0] >> 32;
                lo = std::min(lo, start);
                hi = std::max(hi, start + len);
                g0 = std::min(g0, q[1]);
                g1 = std::max(g1, q[2]);
            }
            sum_bpc += double(per_issuer) * issuers / double(hi - lo);
        }
        if (r == 0 && !dram) continue;
        bpc.push_back(sum_bpc / sms);
        gbs.push_back(double(per_issuer) * issuers * sms / double(g1 - g0));
    }
    const std::string m = std::string(where) + "_" + std::to_string(sms) + "sm_k" + std::to_string(issuers) + "_c" +
                          std::to_string(chunk) + "_s" + std::to_string(stages);
    emit("bulk", m + "_bpc_sm", median(bpc), "B/clk/SM");
    emit("bulk", m + "_gbs", median(gbs), "GB/s");
    CHECK(cudaFree(d_rec));
}

static void section_issue() {
    long long* d_out;
    CHECK(cudaMalloc(&d_out, 2 * sizeof(long long)));
    CHECK(cudaFuncSetAttribute(k_issue, cudaFuncAttributeMaxDynamicSharedMemorySize, 128 * 1024));
    for (unsigned bytes : {16u, 1024u, 4096u})
        for (unsigned k : {1u, 4u, 16u}) {
            if ((size_t)bytes * k > 128 * 1024) continue;
            std::vector<double> a, b;
            for (int r = 0; r < g_reps; ++r) {
                k_issue<<<1, 32, bytes * k>>>(g_buf, bytes, k, d_out);
                CHECK(cudaDeviceSynchronize());
                long long h[2];
                CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
                a.push_back(double(h[0]));
                b.push_back(double(h[1]));
            }
            const std::string m = "issue_" + std::to_string(k) + "x" + std::to_string(bytes);
            emit("bulk", m + "_issue", median(a), "cycles");
            emit("bulk", m + "_landed", median(b), "cycles");
        }
    CHECK(cudaFree(d_out));
}

// N: one launch of each kind for Nsight Compute (its default --cache-control all empties L2
// first): a 4096-byte global -> shared copy (one sample, no warm-up: 128 sectors read), 2 + 1
// shared -> global copies of 4096 bytes (384 sectors written), one SM streaming 1 MiB in 16 KiB
// copies (32768 sectors read).
static void section_ncu() {
    long long* d_out;
    unsigned* d_bad;
    CHECK(cudaMalloc(&d_out, 64 * sizeof(long long)));
    CHECK(cudaMalloc(&d_bad, sizeof(unsigned)));
    char* d_dst;
    CHECK(cudaMalloc(&d_dst, 65536));
    k_lat_g2s<<<1, 32, 4096>>>(g_buf, 0, 0, 4096, 1, 0, 1, d_out, d_bad);
    k_lat_s2g<<<1, 128, 4096>>>(d_dst, 4096, 1, 0, d_out);
    CHECK(cudaDeviceSynchronize());
    unsigned long long* d_rec;
    CHECK(cudaMalloc(&d_rec, 4 * sizeof(unsigned long long) * g_dev.sms));
    CHECK(cudaFuncSetAttribute(k_stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 116 * 1024));
    k_stream<<<g_dev.sms, 32, 116 * 1024>>>(g_buf, g_buf_bytes, 1u << 20, 16384, 4, 1, d_rec, 0);
    CHECK(cudaDeviceSynchronize());
    emit("bulk", "ncu_launches", 3, "kernels");
}

int main(int argc, char** argv) {
    auto rest = parse_common(argc, argv, "bulk");
    std::string sections = "LWS";  // N: the Nsight Compute launches (see section_ncu)
    size_t per_sm_kib = 0;
    for (size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] == "--sections" && i + 1 < rest.size()) sections = rest[++i];
        else if (rest[i] == "--per-sm-kib" && i + 1 < rest.size()) per_sm_kib = strtoull(rest[++i].c_str(), 0, 10);
        else usage_exit("[--sections LWSB] [--per-sm-kib K]");
    }
    query_device();
    const bool sim = g_quick;
    if (sim && sections == "LWS") sections = "LWB";
    g_buf_bytes = sim ? (size_t(64) << 20) : (size_t(2) << 30);
    g_flush_bytes = sim ? (size_t(96) << 20) : (size_t(256) << 20);
    CHECK(cudaMalloc(&g_buf, g_buf_bytes));
    if (g_flush_bytes) CHECK(cudaMalloc(&g_flush, g_flush_bytes));
    k_fill<<<1024, 256>>>((unsigned*)g_buf, g_buf_bytes / 4);
    CHECK(cudaDeviceSynchronize());
    const size_t per_sm = (per_sm_kib ? per_sm_kib : (sim ? 256 : 8192)) << 10;
    for (char c : sections) {
        if (c == 'L') section_latency(sim, true, false);
        if (c == 'W') section_latency(sim, false, true);
        if (c == 'N') section_ncu();
        if (c == 'S') {  // (stages must be a power of two)
            const size_t ring = 4u << 20;
            using CS = std::pair<unsigned, unsigned>;
            for (CS cs : {CS{1024, 4}, CS{1024, 16}, CS{4096, 1}, CS{4096, 2}, CS{4096, 4}, CS{4096, 8}, CS{4096, 16},
                          CS{16384, 1}, CS{16384, 2}, CS{16384, 4}, CS{16384, 8}, CS{32768, 2}, CS{32768, 4}})
                stream("l2", 1, cs.first, cs.second, ring, per_sm, false);
            for (CS cs : {CS{4096, 16}, CS{16384, 4}, CS{16384, 8}, CS{32768, 4}})
                stream("dram", 1, cs.first, cs.second, g_buf_bytes, per_sm, true);
            for (CS cs : {CS{4096, 8}, CS{16384, 4}, CS{32768, 4}}) {
                stream("l2", g_dev.sms, cs.first, cs.second, ring, per_sm, false);
                stream("dram", g_dev.sms, cs.first, cs.second, g_buf_bytes, per_sm, true);
            }
        }
        if (c == 'V') {  // does the fence, the read or the kind of wait matter
            const size_t ring = 4u << 20;
            for (unsigned v : {1u, 3u, 4u}) {
                stream("l2", 1, 16384, 4, ring, per_sm, false, v);
                stream("dram", g_dev.sms, 16384, 4, g_buf_bytes, per_sm, true, v);
            }
        }
        if (c == 'I') section_issue();
        if (c == 'M') {  // issuing warps per CTA: the issuing thread's limit or the SM's
            const size_t ring = 4u << 20, big = 16u << 20;
            for (unsigned k : {1u, 2u, 4u}) {
                stream_multi("l2", 1, k, 4096, 4, ring, 0, per_sm / k, false);
                stream_multi("l2", 1, k, 16384, 2, ring, 0, per_sm / k, false);
            }
            stream_multi("l2", 1, 8, 4096, 2, ring, 0, per_sm / 8, false);
            stream_multi("l2", 1, 4, 1024, 8, ring, 0, per_sm / 8, false);
            stream_multi("l2", g_dev.sms, 4, 16384, 2, big, 128u << 10, per_sm / 4, false);
            stream_multi("l2", g_dev.sms, 1, 16384, 4, big, 128u << 10, per_sm, false);
            stream_multi("dram", g_dev.sms, 4, 16384, 2, g_buf_bytes, per_sm, per_sm / 4, true);
            stream_multi("dram", g_dev.sms, 8, 4096, 4, g_buf_bytes, per_sm, per_sm / 8, true);
        }
        if (c == 'D') stream("dram", g_dev.sms, 16384, 4, g_buf_bytes, per_sm, true);  // (one row of S, for the simulator)
        if (c == 'B') {
            const size_t ring = 1u << 20;
            for (unsigned chunk : {4096u, 16384u})
                for (unsigned st : {1u, 4u}) stream("l2", 1, chunk, st, ring, per_sm, false);
            stream("dram", 1, 16384, 4, g_buf_bytes, per_sm, true);
            stream("l2", g_dev.sms, 16384, 4, ring, per_sm, false);
            stream("dram", g_dev.sms, 16384, 4, g_buf_bytes, per_sm, true);
        }
    }
    return finish();
}
