// cub's block-, warp- and device-wide algorithms as programs use them, each against a CPU reference:
// BlockReduce, BlockScan, BlockLoad/BlockStore (WARP_TRANSPOSE, VECTORIZE), BlockRadixSort,
// BlockExchange, WarpReduce/WarpScan, DeviceScan, DeviceSelect, DevicePartition, DeviceHistogram,
// DeviceSegmentedReduce, DeviceSegmentedRadixSort, DeviceRunLengthEncode, DeviceMergeSort. Integer
// data, so every check is exact and independent of the summation order.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "PASS" : "FAIL");
  if (!ok) ++failures;
}
static uint32_t lcg(uint32_t& s) { s = s * 1664525u + 1013904223u; return s >> 8; }

template <typename T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t n_) : n(n_) { cudaMalloc(&p, n * sizeof(T) + 16); }
  DevBuf(const std::vector<T>& v) : DevBuf(v.size()) { cudaMemcpy(p, v.data(), n * sizeof(T), cudaMemcpyHostToDevice); }
  ~DevBuf() { cudaFree(p); }
  std::vector<T> get(size_t m = 0) const {
    std::vector<T> v(m ? m : n);
    cudaMemcpy(v.data(), p, v.size() * sizeof(T), cudaMemcpyDeviceToHost);
    return v;
  }
};
struct Temp {
  void* p = nullptr;
  size_t bytes = 0;
  void alloc() { cudaMalloc(&p, bytes ? bytes : 1); }
  ~Temp() { cudaFree(p); }
};

constexpr int BT = 128, IPT = 4, TILE = BT * IPT;

// Block-wide: each block loads a tile (warp-transposed), reduces, scans, radix-sorts, exchanges and
// stores it (vectorised).
__global__ void block_algos(const int* in, int* sums, int* scans, int* sorted, int* striped, int* maxes) {
  using Load = cub::BlockLoad<int, BT, IPT, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using StoreV = cub::BlockStore<int, BT, IPT, cub::BLOCK_STORE_VECTORIZE>;
  using StoreWT = cub::BlockStore<int, BT, IPT, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Reduce = cub::BlockReduce<int, BT>;
  using ReduceRaking = cub::BlockReduce<int, BT, cub::BLOCK_REDUCE_RAKING>;
  using Scan = cub::BlockScan<int, BT>;
  using Sort = cub::BlockRadixSort<int, BT, IPT>;
  using Exch = cub::BlockExchange<int, BT, IPT>;
  __shared__ union {
    typename Load::TempStorage load;
    typename StoreV::TempStorage storev;
    typename StoreWT::TempStorage storewt;
    typename Reduce::TempStorage reduce;
    typename ReduceRaking::TempStorage reducer;
    typename Scan::TempStorage scan;
    typename Sort::TempStorage sort;
    typename Exch::TempStorage exch;
  } tmp;
  int base = blockIdx.x * TILE;
  int items[IPT];
  Load(tmp.load).Load(in + base, items);
  __syncthreads();
  int s = Reduce(tmp.reduce).Sum(items);
  __syncthreads();
  int mx = ReduceRaking(tmp.reducer).Reduce(items, cuda::maximum<int>());
  if (threadIdx.x == 0) { sums[blockIdx.x] = s; maxes[blockIdx.x] = mx; }
  __syncthreads();
  int scanned[IPT];
  int aggregate;
  Scan(tmp.scan).ExclusiveSum(items, scanned, aggregate);
  __syncthreads();
  StoreV(tmp.storev).Store(scans + base, scanned);
  __syncthreads();
  int keys[IPT];
  for (int i = 0; i < IPT; ++i) keys[i] = items[i];
  Sort(tmp.sort).Sort(keys);  // blocked arrangement
  __syncthreads();
  int copy[IPT];  // BlockStore WARP_TRANSPOSE rearranges the items it is given in place
  for (int i = 0; i < IPT; ++i) copy[i] = keys[i];
  StoreWT(tmp.storewt).Store(sorted + base, copy);
  __syncthreads();
  // Blocked -> striped: thread t holds items t, t+BT, ... of the sorted tile.
  Exch(tmp.exch).BlockedToStriped(keys);
  for (int i = 0; i < IPT; ++i) striped[base + i * BT + threadIdx.x] = keys[i];
}

// Warp-wide: sums and inclusive max-scans inside each warp, logical warps of 16.
__global__ void warp_algos(const int* in, int* wsum, int* wscan, int* hsum) {
  using WR = cub::WarpReduce<int>;
  using WS = cub::WarpScan<int>;
  using WR16 = cub::WarpReduce<int, 16>;
  __shared__ typename WR::TempStorage wr[BT / 32];
  __shared__ typename WS::TempStorage ws[BT / 32];
  __shared__ typename WR16::TempStorage wr16[BT / 16];
  int gid = blockIdx.x * BT + threadIdx.x;
  int w = threadIdx.x / 32;
  int v = in[gid];
  int s = WR(wr[w]).Sum(v);
  if (threadIdx.x % 32 == 0) wsum[gid / 32] = s;
  int sc;
  WS(ws[w]).InclusiveScan(v, sc, cuda::maximum<int>());
  wscan[gid] = sc;
  int valid = (threadIdx.x / 16) % 2 ? 10 : 16;  // partial logical warps too
  int h = WR16(wr16[threadIdx.x / 16]).Sum(v, valid);
  if (threadIdx.x % 16 == 0) hsum[gid / 16] = h;
}

struct is_mult3 { __host__ __device__ bool operator()(int x) const { return x % 3 == 0; } };
struct custom_op { __host__ __device__ int operator()(int a, int b) const { return a ^ b; } };
struct desc_cmp { __host__ __device__ bool operator()(int a, int b) const { return (a / 4) > (b / 4); } };

int main() {
  uint32_t seed = 777;
  const int blocks = 24, n = blocks * TILE;
  std::vector<int> h(n);
  for (auto& x : h) x = int(lcg(seed) % 10000) - 3000;
  DevBuf<int> din(h);

  {
    DevBuf<int> sums(blocks), scans(n), sorted(n), striped(n), maxes(blocks);
    block_algos<<<blocks, BT>>>(din.p, sums.p, scans.p, sorted.p, striped.p, maxes.p);
    auto hs = sums.get(), hsc = scans.get(), hso = sorted.get(), hst = striped.get(), hm = maxes.get();
    bool ok_r = true, ok_s = true, ok_o = true, ok_x = true;
    for (int b = 0; b < blocks; ++b) {
      std::vector<int> t(h.begin() + b * TILE, h.begin() + (b + 1) * TILE);
      ok_r &= hs[b] == std::accumulate(t.begin(), t.end(), 0) && hm[b] == *std::max_element(t.begin(), t.end());
      int acc = 0;
      for (int i = 0; i < TILE; ++i) { ok_s &= hsc[b * TILE + i] == acc; acc += t[i]; }
      std::sort(t.begin(), t.end());
      for (int i = 0; i < TILE; ++i) ok_o &= hso[b * TILE + i] == t[i];
      // BlockedToStriped gives thread tid the items tid, tid+BT, ...; written at i*BT+tid, so the
      // tile is in sorted order again.
      for (int i = 0; i < TILE; ++i) ok_x &= hst[b * TILE + i] == t[i];
    }
    report("cub::BlockReduce Sum + Max (raking)", ok_r);
    report("cub::BlockScan ExclusiveSum + BlockLoad WARP_TRANSPOSE + BlockStore VECTORIZE", ok_s);
    report("cub::BlockRadixSort + BlockStore WARP_TRANSPOSE", ok_o);
    report("cub::BlockExchange BlockedToStriped", ok_x);
  }
  {
    DevBuf<int> ws(n / 32), wsc(n), hs16(n / 16);
    warp_algos<<<n / BT, BT>>>(din.p, ws.p, wsc.p, hs16.p);
    auto a = ws.get(), b = wsc.get(), c = hs16.get();
    bool ok1 = true, ok2 = true, ok3 = true;
    for (int w = 0; w < n / 32; ++w) {
      int s = 0, m = INT32_MIN;
      for (int l = 0; l < 32; ++l) { s += h[w * 32 + l]; m = std::max(m, h[w * 32 + l]); ok2 &= b[w * 32 + l] == m; }
      ok1 &= a[w] == s;
    }
    for (int g = 0; g < n / 16; ++g) {
      int valid = ((g * 16) % BT / 16) % 2 ? 10 : 16, s = 0;
      for (int l = 0; l < valid; ++l) s += h[g * 16 + l];
      ok3 &= c[g] == s;
    }
    report("cub::WarpReduce Sum", ok1);
    report("cub::WarpScan InclusiveScan (max)", ok2);
    report("cub::WarpReduce<16> partial Sum", ok3);
  }
  {  // DeviceScan
    DevBuf<int> out(n);
    Temp t;
    cub::DeviceScan::InclusiveSum(t.p, t.bytes, din.p, out.p, n);
    t.alloc();
    cub::DeviceScan::InclusiveSum(t.p, t.bytes, din.p, out.p, n);
    auto o = out.get();
    std::vector<int> r(n);
    std::partial_sum(h.begin(), h.end(), r.begin());
    report("cub::DeviceScan::InclusiveSum", o == r);
    Temp t2;
    cub::DeviceScan::ExclusiveScan(t2.p, t2.bytes, din.p, out.p, custom_op(), 0x55, n);
    t2.alloc();
    cub::DeviceScan::ExclusiveScan(t2.p, t2.bytes, din.p, out.p, custom_op(), 0x55, n);
    o = out.get();
    int acc = 0x55;
    bool ok = true;
    for (int i = 0; i < n; ++i) { ok &= o[i] == acc; acc ^= h[i]; }
    report("cub::DeviceScan::ExclusiveScan (xor op, init)", ok);
  }
  {  // DeviceSelect If / Flagged / Unique, DevicePartition
    DevBuf<int> out(n), nsel(1);
    Temp t;
    cub::DeviceSelect::If(t.p, t.bytes, din.p, out.p, nsel.p, n, is_mult3());
    t.alloc();
    cub::DeviceSelect::If(t.p, t.bytes, din.p, out.p, nsel.p, n, is_mult3());
    std::vector<int> r;
    std::copy_if(h.begin(), h.end(), std::back_inserter(r), [](int x) { return x % 3 == 0; });
    int k = nsel.get()[0];
    auto o = out.get(k);
    report("cub::DeviceSelect::If", k == int(r.size()) && o == r);
    std::vector<char> flags(n);
    for (int i = 0; i < n; ++i) flags[i] = (h[i] & 4) != 0;
    DevBuf<char> df(flags);
    Temp t2;
    cub::DeviceSelect::Flagged(t2.p, t2.bytes, din.p, df.p, out.p, nsel.p, n);
    t2.alloc();
    cub::DeviceSelect::Flagged(t2.p, t2.bytes, din.p, df.p, out.p, nsel.p, n);
    r.clear();
    for (int i = 0; i < n; ++i) if (flags[i]) r.push_back(h[i]);
    k = nsel.get()[0];
    report("cub::DeviceSelect::Flagged", k == int(r.size()) && out.get(k) == r);
    std::vector<int> runs(n);
    for (int i = 0; i < n; ++i) runs[i] = h[i / 5] / 100;
    DevBuf<int> drun(runs);
    Temp t3;
    cub::DeviceSelect::Unique(t3.p, t3.bytes, drun.p, out.p, nsel.p, n);
    t3.alloc();
    cub::DeviceSelect::Unique(t3.p, t3.bytes, drun.p, out.p, nsel.p, n);
    r = runs;
    r.erase(std::unique(r.begin(), r.end()), r.end());
    k = nsel.get()[0];
    report("cub::DeviceSelect::Unique", k == int(r.size()) && out.get(k) == r);
    Temp t4;
    cub::DevicePartition::If(t4.p, t4.bytes, din.p, out.p, nsel.p, n, is_mult3());
    t4.alloc();
    cub::DevicePartition::If(t4.p, t4.bytes, din.p, out.p, nsel.p, n, is_mult3());
    k = nsel.get()[0];
    o = out.get();
    std::vector<int> sel, rej;
    for (int x : h) (x % 3 == 0 ? sel : rej).push_back(x);
    bool ok = k == int(sel.size());
    for (int i = 0; ok && i < k; ++i) ok = o[i] == sel[i];
    // Rejected items go to the back in reverse order.
    for (int i = 0; ok && i < int(rej.size()); ++i) ok = o[n - 1 - i] == rej[i];
    report("cub::DevicePartition::If", ok);
  }
  {  // DeviceHistogram
    std::vector<float> samples(n);
    for (int i = 0; i < n; ++i) samples[i] = float(h[i] + 3000) / 10.0f;  // [0, 1000)
    DevBuf<float> ds(samples);
    const int bins = 50;
    DevBuf<int> hist(bins);
    Temp t;
    cub::DeviceHistogram::HistogramEven(t.p, t.bytes, ds.p, hist.p, bins + 1, 0.0f, 1000.0f, n);
    t.alloc();
    cub::DeviceHistogram::HistogramEven(t.p, t.bytes, ds.p, hist.p, bins + 1, 0.0f, 1000.0f, n);
    std::vector<int> r(bins, 0);
    for (float s : samples) r[int((s - 0.0f) / 1000.0f * bins)]++;  // same arithmetic as cub's
    auto hh = hist.get();
    bool ok = hh == r;
    if (!ok) {  // bin edges computed in float may differ for samples exactly on an edge: check totals
      ok = std::accumulate(hh.begin(), hh.end(), 0) == n;
      int diff = 0;
      for (int b = 0; b < bins; ++b) diff += std::abs(hh[b] - r[b]);
      ok &= diff <= 8;
    }
    report("cub::DeviceHistogram::HistogramEven", ok);
    std::vector<int> levels = {-3000, -2000, -500, 0, 1, 100, 2500, 7000};
    DevBuf<int> dl(levels);
    DevBuf<int> hist2(levels.size() - 1);
    Temp t2;
    cub::DeviceHistogram::HistogramRange(t2.p, t2.bytes, din.p, hist2.p, int(levels.size()), dl.p, n);
    t2.alloc();
    cub::DeviceHistogram::HistogramRange(t2.p, t2.bytes, din.p, hist2.p, int(levels.size()), dl.p, n);
    std::vector<int> r2(levels.size() - 1, 0);
    for (int x : h) {
      auto it = std::upper_bound(levels.begin(), levels.end(), x);
      int b = int(it - levels.begin()) - 1;
      if (b >= 0 && b < int(r2.size())) r2[b]++;
    }
    report("cub::DeviceHistogram::HistogramRange", hist2.get() == r2);
  }
  {  // Segmented reduce / radix sort
    std::vector<int> offs = {0};
    while (offs.back() < n) offs.push_back(std::min(n, offs.back() + int(lcg(seed) % 700)));
    int segs = int(offs.size()) - 1;
    DevBuf<int> doffs(offs), out(segs);
    Temp t;
    cub::DeviceSegmentedReduce::Sum(t.p, t.bytes, din.p, out.p, segs, doffs.p, doffs.p + 1);
    t.alloc();
    cub::DeviceSegmentedReduce::Sum(t.p, t.bytes, din.p, out.p, segs, doffs.p, doffs.p + 1);
    auto o = out.get();
    bool ok = true;
    for (int s = 0; s < segs; ++s) ok &= o[s] == std::accumulate(h.begin() + offs[s], h.begin() + offs[s + 1], 0);
    report("cub::DeviceSegmentedReduce::Sum", ok);
    Temp t1;
    cub::DeviceSegmentedReduce::Max(t1.p, t1.bytes, din.p, out.p, segs, doffs.p, doffs.p + 1);
    t1.alloc();
    cub::DeviceSegmentedReduce::Max(t1.p, t1.bytes, din.p, out.p, segs, doffs.p, doffs.p + 1);
    o = out.get();
    ok = true;
    for (int s = 0; s < segs; ++s)
      ok &= o[s] == (offs[s] == offs[s + 1] ? INT32_MIN : *std::max_element(h.begin() + offs[s], h.begin() + offs[s + 1]));
    report("cub::DeviceSegmentedReduce::Max", ok);
    std::vector<int> vals(n);
    std::iota(vals.begin(), vals.end(), 0);
    DevBuf<int> dv(vals), ko(n), vo(n);
    Temp t2;
    cub::DeviceSegmentedRadixSort::SortPairs(t2.p, t2.bytes, din.p, ko.p, dv.p, vo.p, n, segs, doffs.p, doffs.p + 1);
    t2.alloc();
    cub::DeviceSegmentedRadixSort::SortPairs(t2.p, t2.bytes, din.p, ko.p, dv.p, vo.p, n, segs, doffs.p, doffs.p + 1);
    auto hk = ko.get(), hvv = vo.get();
    ok = true;
    for (int s = 0; s < segs; ++s) {
      std::vector<int> idx(vals.begin() + offs[s], vals.begin() + offs[s + 1]);
      std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return h[a] < h[b]; });
      for (size_t i = 0; i < idx.size(); ++i) ok &= hvv[offs[s] + i] == idx[i] && hk[offs[s] + i] == h[idx[i]];
    }
    report("cub::DeviceSegmentedRadixSort::SortPairs", ok);
    Temp t3;
    cub::DeviceSegmentedRadixSort::SortKeysDescending(t3.p, t3.bytes, din.p, ko.p, n, segs, doffs.p, doffs.p + 1);
    t3.alloc();
    cub::DeviceSegmentedRadixSort::SortKeysDescending(t3.p, t3.bytes, din.p, ko.p, n, segs, doffs.p, doffs.p + 1);
    hk = ko.get();
    ok = true;
    for (int s = 0; s < segs; ++s) {
      std::vector<int> r(h.begin() + offs[s], h.begin() + offs[s + 1]);
      std::sort(r.begin(), r.end(), std::greater<int>());
      ok &= std::equal(r.begin(), r.end(), hk.begin() + offs[s]);
    }
    report("cub::DeviceSegmentedRadixSort::SortKeysDescending", ok);
  }
  {  // RunLengthEncode
    std::vector<int> runs(n);
    for (int i = 0; i < n; ++i) runs[i] = h[i / 7] / 1000;
    DevBuf<int> dr(runs), uniq(n), cnt(n), nruns(1), offs(n);
    Temp t;
    cub::DeviceRunLengthEncode::Encode(t.p, t.bytes, dr.p, uniq.p, cnt.p, nruns.p, n);
    t.alloc();
    cub::DeviceRunLengthEncode::Encode(t.p, t.bytes, dr.p, uniq.p, cnt.p, nruns.p, n);
    std::vector<int> ru, rc, ro, rl;
    for (int i = 0; i < n; ++i) {
      if (ru.empty() || ru.back() != runs[i]) { ru.push_back(runs[i]); rc.push_back(0); ro.push_back(i); }
      rc.back()++;
    }
    int k = nruns.get()[0];
    report("cub::DeviceRunLengthEncode::Encode", k == int(ru.size()) && uniq.get(k) == ru && cnt.get(k) == rc);
    Temp t2;
    cub::DeviceRunLengthEncode::NonTrivialRuns(t2.p, t2.bytes, dr.p, offs.p, cnt.p, nruns.p, n);
    t2.alloc();
    cub::DeviceRunLengthEncode::NonTrivialRuns(t2.p, t2.bytes, dr.p, offs.p, cnt.p, nruns.p, n);
    std::vector<int> no, nl;
    for (size_t r = 0; r < ru.size(); ++r) if (rc[r] > 1) { no.push_back(ro[r]); nl.push_back(rc[r]); }
    k = nruns.get()[0];
    report("cub::DeviceRunLengthEncode::NonTrivialRuns", k == int(no.size()) && offs.get(k) == no && cnt.get(k) == nl);
  }
  {  // MergeSort (stable, custom comparator)
    std::vector<int> vals(n);
    std::iota(vals.begin(), vals.end(), 0);
    DevBuf<int> dk(h), dv(vals);
    Temp t;
    cub::DeviceMergeSort::StableSortPairs(t.p, t.bytes, dk.p, dv.p, n, desc_cmp());
    t.alloc();
    cub::DeviceMergeSort::StableSortPairs(t.p, t.bytes, dk.p, dv.p, n, desc_cmp());
    std::vector<int> idx = vals;
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return desc_cmp()(h[a], h[b]); });
    auto hk = dk.get(), hvv = dv.get();
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= hvv[i] == idx[i] && hk[i] == h[idx[i]];
    report("cub::DeviceMergeSort::StableSortPairs (custom comparator)", ok);
    DevBuf<int> dk2(h);
    Temp t2;
    cub::DeviceMergeSort::SortKeys(t2.p, t2.bytes, dk2.p, n, cuda::std::less<int>());
    t2.alloc();
    cub::DeviceMergeSort::SortKeys(t2.p, t2.bytes, dk2.p, n, cuda::std::less<int>());
    std::vector<int> r = h;
    std::sort(r.begin(), r.end());
    report("cub::DeviceMergeSort::SortKeys", dk2.get() == r);
  }
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("cuda error: %s\n", cudaGetErrorString(e)); ++failures; }
  std::printf("cub_algos: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
