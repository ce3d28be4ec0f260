// Survey: CUB device algorithms of CCCL 3.0 beyond tests/cudart/cub_*.cu, at 10^5-10^6 items.
//   nvcc -cudart shared -arch=sm_80 -o cub80 cub.cu ; ./cub80 [i,j,...]
#include <cub/cub.cuh>
#include <cuda/std/tuple>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include "common.h"

static const int N = 1 << 20;

struct Pt { float f; int64_t i; };
struct PtDecomposer {
  __host__ __device__ cuda::std::tuple<float&, int64_t&> operator()(Pt& p) const { return {p.f, p.i}; }
};
struct Rec { int key; float w; int id; };
struct RecLess { __host__ __device__ bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key; } };
struct Above {  // stateful: reads its threshold from device memory
  const int* thr;
  __device__ bool operator()(int x) const { return x > *thr; }
};
struct MaxOp { __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; } };
struct MinMax { int lo, hi; };
struct MinMaxOp {
  __host__ __device__ MinMax operator()(MinMax a, MinMax b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
};
struct ToMinMax { __host__ __device__ MinMax operator()(int x) const { return {x, x}; } };
struct Counter {  // stateful for_each: counts multiples of k through an atomic
  int* count; int k;
  __device__ void operator()(int x) const { if (x % k == 0) atomicAdd(count, 1); }
};
struct Axpy3 {
  __device__ float operator()(float a, float b, int c) const { return 2.0f * a + b * float(c); }
};
struct Bulk { int* out; __device__ void operator()(int64_t i) const { out[i] = int(i * 3 + 1); } };
struct IsOdd { __host__ __device__ bool operator()(int f) const { return f & 1; } };
struct SrcOf { __host__ __device__ thrust::counting_iterator<int> operator()(int b) const { return thrust::counting_iterator<int>(b * 1000); } };
struct DstOf { int* base; const int* off; __host__ __device__ int* operator()(int b) const { return base + off[b]; } };
struct ModEq { __host__ __device__ bool operator()(int a, int b) const { return a / 8 == b / 8; } };

static std::vector<int> rints(size_t n, int mod) {
  std::vector<int> v(n);
  for (auto& x : v) x = int(rnd() % mod);
  return v;
}

int main(int argc, char** argv) {
  std::vector<Case> cases = {
    {"RadixSort::SortKeys decomposer {float,int64} 256K", [] {
       const int n = 1 << 18;
       std::vector<Pt> h(n);
       for (auto& p : h) { p.f = float(int(rnd() % 2001) - 1000) * 0.25f; p.i = int64_t(rnd()) >> 3; }
       Dev<Pt> in(h), out(n);
       CUB2(cub::DeviceRadixSort::SortKeys(tmp_, tb_, in.p, out.p, n, PtDecomposer{}));
       auto ref = h;
       std::stable_sort(ref.begin(), ref.end(), [](const Pt& a, const Pt& b) { return a.f < b.f || (a.f == b.f && a.i < b.i); });
       auto g = out.get();
       for (int i = 0; i < n; ++i) if (g[i].f != ref[i].f || g[i].i != ref[i].i) return false;
       return true; }},
    {"RadixSort::SortPairsDescending decomposer 256K", [] {
       const int n = 1 << 18;
       std::vector<Pt> h(n); std::vector<int> v(n);
       for (int k = 0; k < n; ++k) { h[k].f = float(int(rnd() % 301) - 150); h[k].i = int64_t(rnd() % 1000) - 500; v[k] = k; }
       Dev<Pt> ki(h), ko(n); Dev<int> vi(v), vo(n);
       CUB2(cub::DeviceRadixSort::SortPairsDescending(tmp_, tb_, ki.p, ko.p, vi.p, vo.p, n, PtDecomposer{}));
       std::vector<int> idx(n); std::iota(idx.begin(), idx.end(), 0);
       std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return h[a].f > h[b].f || (h[a].f == h[b].f && h[a].i > h[b].i); });
       auto gv = vo.get();
       for (int i = 0; i < n; ++i) if (gv[i] != idx[i]) return false;
       return true; }},
    {"RadixSort::SortPairs int64 num_items 1M", [] {
       std::vector<uint32_t> k(N); std::vector<int> v(N);
       for (int i = 0; i < N; ++i) { k[i] = uint32_t(rnd()); v[i] = i; }
       Dev<uint32_t> ki(k), ko(N); Dev<int> vi(v), vo(N);
       int64_t n = N;
       CUB2(cub::DeviceRadixSort::SortPairs(tmp_, tb_, ki.p, ko.p, vi.p, vo.p, n));
       std::vector<int> idx(N); std::iota(idx.begin(), idx.end(), 0);
       std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return k[a] < k[b]; });
       auto gv = vo.get(); auto gk = ko.get();
       for (int i = 0; i < N; ++i) if (gv[i] != idx[i] || gk[i] != k[idx[i]]) return false;
       return true; }},
    {"Histogram::HistogramRange float levels 1M", [] {
       std::vector<float> x(N);
       for (auto& f : x) f = float(rndu() * 12.0 - 1.0);
       std::vector<float> lv = {0.f, 0.5f, 1.f, 1.75f, 2.5f, 3.f, 4.25f, 6.f, 7.5f, 9.f, 10.f};
       int nl = int(lv.size());
       Dev<float> d(x), dl(lv); Dev<int> hist(nl - 1);
       CUB2(cub::DeviceHistogram::HistogramRange(tmp_, tb_, d.p, hist.p, nl, dl.p, N));
       std::vector<int> ref(nl - 1, 0);
       for (float f : x) for (int b = 0; b < nl - 1; ++b) if (f >= lv[b] && f < lv[b + 1]) { ++ref[b]; break; }
       return hist.get() == ref; }},
    {"Histogram::HistogramEven float, int64 items 1M", [] {
       std::vector<float> x(N);
       for (auto& f : x) f = float(rndu() * 2.0 - 0.5);
       Dev<float> d(x); Dev<int> hist(64);
       int64_t n = N;
       CUB2(cub::DeviceHistogram::HistogramEven(tmp_, tb_, d.p, hist.p, 65, 0.0f, 1.0f, n));
       std::vector<int> ref(64, 0);
       for (float f : x) if (f >= 0.f && f < 1.f) { int b = int((f - 0.0f) / (1.0f / 64)); ref[std::min(b, 63)]++; }
       auto g = hist.get();
       // bin edges by the same float formula may differ by one item at a boundary; demand exact totals
       long tg = 0, tr = 0; int worst = 0;
       for (int b = 0; b < 64; ++b) { tg += g[b]; tr += ref[b]; worst = std::max(worst, std::abs(g[b] - ref[b])); }
       return tg == tr && worst <= 2; }},
    {"Reduce::ArgMin/ArgMax new API (values, index) 1M", [] {
       std::vector<float> x(N);
       for (auto& f : x) f = float(rndu() * 1000.0);
       x[777777] = -5.f; x[123] = -5.f; x[4242] = 2000.f;
       Dev<float> d(x), vmin(1), vmax(1); Dev<int64_t> imin(1), imax(1);
       CUB2(cub::DeviceReduce::ArgMin(tmp_, tb_, d.p, vmin.p, imin.p, int64_t(N)));
       CUB2(cub::DeviceReduce::ArgMax(tmp_, tb_, d.p, vmax.p, imax.p, int64_t(N)));
       return vmin.get()[0] == -5.f && imin.get()[0] == 123 && vmax.get()[0] == 2000.f && imax.get()[0] == 4242; }},
    {"Reduce::TransformReduce to struct (min,max) 1M", [] {
       auto x = rints(N, 1 << 30);
       Dev<int> d(x); Dev<MinMax> out(1);
       CUB2(cub::DeviceReduce::TransformReduce(tmp_, tb_, d.p, out.p, N, MinMaxOp{}, ToMinMax{}, MinMax{INT32_MAX, INT32_MIN}));
       auto g = out.get()[0];
       return g.lo == *std::min_element(x.begin(), x.end()) && g.hi == *std::max_element(x.begin(), x.end()); }},
    {"Reduce::ReduceByKey max 1M (runs)", [] {
       std::vector<int> k(N), v = rints(N, 100000);
       int key = 0;
       for (int i = 0; i < N; ++i) { if (rnd() % 7 == 0) ++key; k[i] = key; }
       Dev<int> dk(k), dv(v), uk(N), ag(N), nr(1);
       CUB2(cub::DeviceReduce::ReduceByKey(tmp_, tb_, dk.p, uk.p, dv.p, ag.p, nr.p, MaxOp{}, N));
       std::vector<int> rk, ra;
       for (int i = 0; i < N; ++i) { if (i == 0 || k[i] != k[i - 1]) { rk.push_back(k[i]); ra.push_back(v[i]); } else ra.back() = std::max(ra.back(), v[i]); }
       int m = nr.get()[0];
       return m == int(rk.size()) && uk.get(m) == rk && ag.get(m) == ra; }},
    {"Scan::ExclusiveScanByKey max 1M", [] {
       std::vector<int> k(N), v = rints(N, 1000000);
       int key = 0;
       for (int i = 0; i < N; ++i) { if (rnd() % 50 == 0) ++key; k[i] = key; }
       Dev<int> dk(k), dv(v), o(N);
       CUB2(cub::DeviceScan::ExclusiveScanByKey(tmp_, tb_, dk.p, dv.p, o.p, MaxOp{}, -1, N));
       std::vector<int> ref(N);
       int acc = -1;
       for (int i = 0; i < N; ++i) { if (i == 0 || k[i] != k[i - 1]) acc = -1; ref[i] = acc; acc = std::max(acc, v[i]); }
       return o.get() == ref; }},
    {"Scan::InclusiveScanInit int64 1M", [] {
       std::vector<int64_t> v(N);
       for (auto& x : v) x = int64_t(rnd() % 2000000) - 1000000;
       Dev<int64_t> d(v), o(N);
       CUB2(cub::DeviceScan::InclusiveScanInit(tmp_, tb_, d.p, o.p, cuda::std::plus<>{}, int64_t(1) << 40, N));
       std::vector<int64_t> ref(N);
       int64_t a = int64_t(1) << 40;
       for (int i = 0; i < N; ++i) ref[i] = (a += v[i]);
       return o.get() == ref; }},
    {"Scan::ExclusiveSum double 1M (tolerance)", [] {
       std::vector<double> v(N);
       for (auto& x : v) x = rndu();
       Dev<double> d(v), o(N);
       CUB2(cub::DeviceScan::ExclusiveSum(tmp_, tb_, d.p, o.p, N));
       auto g = o.get();
       double a = 0, worst = 0;
       for (int i = 0; i < N; ++i) { worst = std::max(worst, std::fabs(g[i] - a)); a += v[i]; }
       return worst < 1e-6; }},
    {"Select::If stateful functor (device threshold) 1M", [] {
       auto x = rints(N, 1000);
       std::vector<int> thr = {700};
       Dev<int> d(x), t(thr), o(N), nsel(1);
       CUB2(cub::DeviceSelect::If(tmp_, tb_, d.p, o.p, nsel.p, N, Above{t.p}));
       std::vector<int> ref;
       for (int v : x) if (v > 700) ref.push_back(v);
       int m = nsel.get()[0];
       return m == int(ref.size()) && o.get(m) == ref; }},
    {"Select::FlaggedIf + Partition::Flagged 1M", [] {
       auto x = rints(N, 1 << 20); auto f = rints(N, 4);
       Dev<int> d(x), fl(f), o(N), ns(1), po(N), pn(1);
       CUB2(cub::DeviceSelect::FlaggedIf(tmp_, tb_, d.p, fl.p, o.p, ns.p, N, IsOdd{}));
       std::vector<uint8_t> f8(N); for (int i = 0; i < N; ++i) f8[i] = f[i] == 0;
       Dev<uint8_t> fl8(f8);
       CUB2(cub::DevicePartition::Flagged(tmp_, tb_, d.p, fl8.p, po.p, pn.p, N));
       std::vector<int> r1, sel, rej;
       for (int i = 0; i < N; ++i) { if (f[i] & 1) r1.push_back(x[i]); if (f8[i]) sel.push_back(x[i]); else rej.push_back(x[i]); }
       int m = ns.get()[0], p = pn.get()[0];
       if (m != int(r1.size()) || o.get(m) != r1 || p != int(sel.size())) return false;
       auto g = po.get();
       for (int i = 0; i < p; ++i) if (g[i] != sel[i]) return false;
       for (size_t i = 0; i < rej.size(); ++i) if (g[N - 1 - i] != rej[i]) return false;  // rejected ones reversed at the end
       return true; }},
    {"Select::UniqueByKey custom equality 1M", [] {
       std::vector<int> x(N), v(N); int a = 0;
       for (int i = 0; i < N; ++i) { a += int(rnd() % 3); x[i] = a; v[i] = i; }
       Dev<int> d(x), dv(v), o(N), ov(N), n(1);
       CUB2(cub::DeviceSelect::UniqueByKey(tmp_, tb_, d.p, dv.p, o.p, ov.p, n.p, N, ModEq{}));
       std::vector<int> ref, rv;
       for (int i = 0; i < N; ++i) if (i == 0 || x[i] / 8 != x[i - 1] / 8) { ref.push_back(x[i]); rv.push_back(i); }
       int m = n.get()[0];
       return m == int(ref.size()) && o.get(m) == ref && ov.get(m) == rv; }},
    {"SegmentedReduce::ArgMin int64 offsets 100K segs", [] {
       const int S = 100000;
       auto x = rints(N, 1 << 24);
       std::vector<int64_t> off(S + 1);
       for (int s = 0; s <= S; ++s) off[s] = int64_t(s) * N / S;
       Dev<int> d(x); Dev<int64_t> doff(off); Dev<cub::KeyValuePair<int, int>> o(S);
       CUB2(cub::DeviceSegmentedReduce::ArgMin(tmp_, tb_, d.p, o.p, S, doff.p, doff.p + 1));
       auto g = o.get();
       for (int s = 0; s < S; ++s) {
         auto it = std::min_element(x.begin() + off[s], x.begin() + off[s + 1]);
         if (g[s].value != *it || g[s].key != int(it - x.begin() - off[s])) return false;
       }
       return true; }},
    {"SegmentedReduce::Reduce custom op, empty segments", [] {
       const int S = 5000;
       auto x = rints(N, 1 << 24);
       std::vector<int> off(S + 1);
       for (int s = 0; s <= S; ++s) off[s] = (s % 10 == 3) ? off[s - 1] : int(int64_t(s) * N / S);
       off[S] = N;
       Dev<int> d(x), doff(off), o(S);
       CUB2(cub::DeviceSegmentedReduce::Reduce(tmp_, tb_, d.p, o.p, S, doff.p, doff.p + 1, MaxOp{}, -7));
       auto g = o.get();
       for (int s = 0; s < S; ++s) {
         int r = -7;
         for (int i = off[s]; i < off[s + 1]; ++i) r = std::max(r, x[i]);
         if (g[s] != r) return false;
       }
       return true; }},
    {"MergeSort::SortPairs struct keys (stable?) 256K", [] {
       const int n = 1 << 18;
       std::vector<Rec> h(n); std::vector<int> v(n);
       for (int i = 0; i < n; ++i) { h[i] = {int(rnd() % 5000), float(i), i}; v[i] = i; }
       Dev<Rec> k(h); Dev<int> dv(v);
       CUB2(cub::DeviceMergeSort::StableSortPairs(tmp_, tb_, k.p, dv.p, n, RecLess{}));
       auto ref = h;
       std::stable_sort(ref.begin(), ref.end(), RecLess{});
       auto g = k.get(); auto gv = dv.get();
       for (int i = 0; i < n; ++i) if (g[i].id != ref[i].id || gv[i] != ref[i].id) return false;
       return true; }},
    {"MergeSort::SortKeysCopy int64 desc 1M", [] {
       std::vector<int64_t> h(N);
       for (auto& x : h) x = int64_t(rnd());
       Dev<int64_t> k(h), o(N);
       CUB2(cub::DeviceMergeSort::SortKeysCopy(tmp_, tb_, k.p, o.p, N, cuda::std::greater<int64_t>{}));
       auto ref = h;
       std::sort(ref.begin(), ref.end(), std::greater<int64_t>());
       return o.get() == ref; }},
    {"DeviceMerge::MergePairs 512K + 512K", [] {
       const int n = N / 2;
       std::vector<int> a = rints(n, 1 << 20), b = rints(n, 1 << 20), va(n), vb(n);
       std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
       for (int i = 0; i < n; ++i) { va[i] = i; vb[i] = n + i; }
       Dev<int> da(a), db(b), dva(va), dvb(vb), ko(N), vo(N);
       CUB2(cub::DeviceMerge::MergePairs(tmp_, tb_, da.p, dva.p, n, db.p, dvb.p, n, ko.p, vo.p));
       std::vector<std::pair<int, int>> ref;
       for (int i = 0; i < n; ++i) ref.push_back({a[i], va[i]});
       for (int i = 0; i < n; ++i) ref.push_back({b[i], vb[i]});
       std::stable_sort(ref.begin(), ref.end(), [](auto x, auto y) { return x.first < y.first; });
       auto gk = ko.get(), gv = vo.get();
       for (int i = 0; i < N; ++i) if (gk[i] != ref[i].first || gv[i] != ref[i].second) return false;
       return true; }},
    {"SegmentedSort::StableSortKeys 1M in 100K segments", [] {
       const int S = 100000;
       auto x = rints(N, 1000);
       std::vector<int> off(S + 1);
       for (int s = 0; s <= S; ++s) off[s] = int(int64_t(s) * N / S);
       off[S / 2] = off[S / 2 - 1];  // an empty segment
       Dev<int> d(x), o(N), doff(off);
       CUB2(cub::DeviceSegmentedSort::StableSortKeys(tmp_, tb_, d.p, o.p, N, S, doff.p, doff.p + 1));
       auto ref = x;
       for (int s = 0; s < S; ++s) std::sort(ref.begin() + off[s], ref.begin() + off[s + 1]);
       return o.get() == ref; }},
    {"SegmentedRadixSort::SortKeys float 1M, 1000 segs", [] {
       const int S = 1000;
       std::vector<float> x(N);
       for (auto& f : x) f = float(rndu() * 200.0 - 100.0);
       std::vector<int> off(S + 1);
       for (int s = 0; s <= S; ++s) off[s] = int(int64_t(s) * s * N / (int64_t(S) * S));  // growing sizes
       Dev<float> d(x), o(N); Dev<int> doff(off);
       CUB2(cub::DeviceSegmentedRadixSort::SortKeys(tmp_, tb_, d.p, o.p, N, S, doff.p, doff.p + 1));
       auto ref = x;
       for (int s = 0; s < S; ++s) std::sort(ref.begin() + off[s], ref.begin() + off[s + 1]);
       return o.get() == ref; }},
    {"RunLengthEncode::Encode + NonTrivialRuns 1M", [] {
       std::vector<int> x(N); int v = 0;
       for (auto& e : x) { if (rnd() % 5 == 0) v = int(rnd() % 4); e = v; }
       Dev<int> d(x), u(N), c(N), nr(1), so(N), sl(N), nn(1);
       CUB2(cub::DeviceRunLengthEncode::Encode(tmp_, tb_, d.p, u.p, c.p, nr.p, N));
       CUB2(cub::DeviceRunLengthEncode::NonTrivialRuns(tmp_, tb_, d.p, so.p, sl.p, nn.p, N));
       std::vector<int> ru, rc, rs, rl;
       for (int i = 0; i < N; ++i) {
         if (i == 0 || x[i] != x[i - 1]) { ru.push_back(x[i]); rc.push_back(1); } else rc.back()++;
       }
       int pos = 0;
       for (size_t r = 0; r < rc.size(); ++r) { if (rc[r] > 1) { rs.push_back(pos); rl.push_back(rc[r]); } pos += rc[r]; }
       int m = nr.get()[0], q = nn.get()[0];
       return m == int(ru.size()) && u.get(m) == ru && c.get(m) == rc && q == int(rs.size()) && so.get(q) == rs && sl.get(q) == rl; }},
    {"DeviceFor::ForEachN stateful + Bulk int64 1M", [] {
       auto x = rints(N, 1 << 20);
       Dev<int> d(x), cnt(1), out(N);
       CK(cub::DeviceFor::ForEachN(d.p, N, Counter{cnt.p, 7}));
       CK(cub::DeviceFor::Bulk(int64_t(N), Bulk{out.p}));
       CK(cudaDeviceSynchronize());
       int ref = 0;
       for (int v : x) ref += v % 7 == 0;
       auto g = out.get();
       for (int i = 0; i < N; ++i) if (g[i] != i * 3 + 1) return false;
       return cnt.get()[0] == ref; }},
    {"DeviceTransform 3 inputs (float,float,int) 1M", [] {
       std::vector<float> a(N), b(N); auto c = rints(N, 100);
       for (int i = 0; i < N; ++i) { a[i] = float(rndu()); b[i] = float(rndu()); }
       Dev<float> da(a), db(b), o(N); Dev<int> dc(c);
       CK(cub::DeviceTransform::Transform(cuda::std::make_tuple(da.p, db.p, dc.p), o.p, N, Axpy3{}));
       CK(cudaDeviceSynchronize());
       auto g = o.get();
       for (int i = 0; i < N; ++i) if (g[i] != 2.0f * a[i] + b[i] * float(c[i])) return false;
       return true; }},
    {"DeviceTransform odd size/offset pointer 999,999", [] {
       const int n = 999999;
       auto a = rints(n + 3, 1 << 20);
       Dev<int> da(a), o(n + 3);
       CK(cub::DeviceTransform::Transform(da.p + 3, o.p + 1, n, cuda::std::negate<int>{}));
       CK(cudaDeviceSynchronize());
       auto g = o.get();
       for (int i = 0; i < n; ++i) if (g[i + 1] != -a[i + 3]) return false;
       return g[0] == 0; }},
    {"DeviceCopy::Batched iterator ranges 10K", [] {
       const int B = 10000;
       std::vector<int> sz(B), off(B + 1, 0);
       for (int b = 0; b < B; ++b) { sz[b] = int(rnd() % 200); off[b + 1] = off[b] + sz[b]; }
       Dev<int> dst(off[B] + 1), dsz(sz), doff(off);
       auto si = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), SrcOf{});
       auto di = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), DstOf{dst.p, doff.p});
       CUB2(cub::DeviceCopy::Batched(tmp_, tb_, si, di, dsz.p, B));
       auto g = dst.get();
       for (int b = 0; b < B; ++b) for (int i = 0; i < sz[b]; ++i) if (g[off[b] + i] != b * 1000 + i) return false;
       return true; }},
    {"AdjacentDifference::SubtractLeft in place custom op 1M", [] {
       auto x = rints(N, 1 << 20);
       Dev<int> d(x);
       CUB2(cub::DeviceAdjacentDifference::SubtractLeft(tmp_, tb_, d.p, N, MaxOp{}));
       auto g = d.get();
       if (g[0] != x[0]) return false;
       for (int i = 1; i < N; ++i) if (g[i] != std::max(x[i], x[i - 1])) return false;
       return true; }},
  };
  return run_cases(argc, argv, cases);
}
