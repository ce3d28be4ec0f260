// thrust algorithms as programs use them, each against a CPU reference: reduce_by_key, scans (also by
// key), copy_if/remove_if, unique, sort_by_key on 64-bit and struct keys with a custom comparator,
// stable_sort, set_intersection/merge, vectorised lower_bound, fancy iterators, min/minmax_element,
// count_if, partition, thrust::complex, and thrust on a user stream. Only order-independent checks
// are printed (integer arithmetic, or float results compared with a tolerance).
#include <thrust/binary_search.h>
#include <thrust/complex.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/merge.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <algorithm>
#include <complex>
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

struct is_odd { __host__ __device__ bool operator()(int x) const { return x & 1; } };
struct below { int t; __host__ __device__ bool operator()(int x) const { return x < t; } };
struct Rec { int a; float b; };
struct rec_less {
  __host__ __device__ bool operator()(const Rec& x, const Rec& y) const {
    return x.a != y.a ? x.a > y.a : x.b < y.b;  // descending a, ascending b
  }
};
struct key_mod { int m; __host__ __device__ int operator()(int i) const { return (i * 7) % m; } };
struct saxpy_zip {
  __host__ __device__ float operator()(const thrust::tuple<float, float>& t) const {
    return 2.0f * thrust::get<0>(t) + thrust::get<1>(t);
  }
};
struct cmul {
  __host__ __device__ thrust::complex<float> operator()(thrust::complex<float> a, thrust::complex<float> b) const {
    return a * b + thrust::exp(thrust::complex<float>(0.f, 0.5f)) ;
  }
};
struct abs_first {
  __host__ __device__ bool operator()(int a, int b) const { return (a / 10) == (b / 10); }
};

int main() {
  const int n = 20000;
  uint32_t seed = 12345;
  std::vector<int> hv(n);
  for (auto& x : hv) x = int(lcg(seed) % 1000);
  thrust::device_vector<int> dv(hv.begin(), hv.end());

  {  // reduce_by_key over runs of equal keys (sorted keys with repeats)
    std::vector<int> keys(n), vals(n);
    for (int i = 0; i < n; ++i) { keys[i] = i / 37 + (i % 5 == 0 ? 0 : 0); vals[i] = hv[i]; }
    thrust::device_vector<int> dk(keys.begin(), keys.end()), dvv(vals.begin(), vals.end());
    thrust::device_vector<int> ok_(n), ov(n);
    auto ends = thrust::reduce_by_key(dk.begin(), dk.end(), dvv.begin(), ok_.begin(), ov.begin());
    int m = int(ends.first - ok_.begin());
    std::vector<int> rk, rv;
    for (int i = 0; i < n; ++i) {
      if (rk.empty() || rk.back() != keys[i]) { rk.push_back(keys[i]); rv.push_back(0); }
      rv.back() += vals[i];
    }
    thrust::host_vector<int> hk = ok_, hvv = ov;
    bool ok = m == int(rk.size());
    for (int i = 0; ok && i < m; ++i) ok = hk[i] == rk[i] && hvv[i] == rv[i];
    report("thrust::reduce_by_key", ok);
  }
  {  // inclusive / exclusive scans, and by key
    thrust::device_vector<int> out(n);
    thrust::inclusive_scan(dv.begin(), dv.end(), out.begin());
    std::vector<int> ref(n);
    std::partial_sum(hv.begin(), hv.end(), ref.begin());
    thrust::host_vector<int> h = out;
    report("thrust::inclusive_scan", std::equal(ref.begin(), ref.end(), h.begin()));
    thrust::exclusive_scan(dv.begin(), dv.end(), out.begin(), 7, thrust::maximum<int>());
    int acc = 7; bool ok = true; h = out;
    for (int i = 0; i < n; ++i) { ok &= h[i] == acc; acc = std::max(acc, hv[i]); }
    report("thrust::exclusive_scan (max, init 7)", ok);
    thrust::device_vector<int> keys(n);
    thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), keys.begin(),
                      [] __device__(int i) { return i / 100; });
    thrust::inclusive_scan_by_key(keys.begin(), keys.end(), dv.begin(), out.begin());
    h = out; ok = true; acc = 0;
    for (int i = 0; i < n; ++i) { acc = (i % 100 == 0 ? 0 : acc) + hv[i]; ok &= h[i] == acc; }
    report("thrust::inclusive_scan_by_key", ok);
    thrust::exclusive_scan_by_key(keys.begin(), keys.end(), dv.begin(), out.begin());
    h = out; ok = true; acc = 0;
    for (int i = 0; i < n; ++i) { if (i % 100 == 0) acc = 0; ok &= h[i] == acc; acc += hv[i]; }
    report("thrust::exclusive_scan_by_key", ok);
  }
  {  // copy_if / remove_if / unique / count_if / partition
    thrust::device_vector<int> out(n);
    auto e = thrust::copy_if(dv.begin(), dv.end(), out.begin(), is_odd());
    std::vector<int> ref;
    std::copy_if(hv.begin(), hv.end(), std::back_inserter(ref), [](int x) { return x & 1; });
    thrust::host_vector<int> h(out.begin(), e);
    report("thrust::copy_if", h.size() == ref.size() && std::equal(ref.begin(), ref.end(), h.begin()));
    thrust::device_vector<int> d2 = dv;
    auto e2 = thrust::remove_if(d2.begin(), d2.end(), below{500});
    std::vector<int> ref2;
    std::copy_if(hv.begin(), hv.end(), std::back_inserter(ref2), [](int x) { return x >= 500; });
    thrust::host_vector<int> h2(d2.begin(), e2);
    report("thrust::remove_if", h2.size() == ref2.size() && std::equal(ref2.begin(), ref2.end(), h2.begin()));
    int c = thrust::count_if(dv.begin(), dv.end(), below{250});
    report("thrust::count_if", c == int(std::count_if(hv.begin(), hv.end(), [](int x) { return x < 250; })));
    thrust::device_vector<int> d3 = dv;
    thrust::sort(d3.begin(), d3.end());
    auto e3 = thrust::unique(d3.begin(), d3.end());
    std::vector<int> s = hv;
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    thrust::host_vector<int> h3(d3.begin(), e3);
    report("thrust::unique (sorted input)", h3.size() == s.size() && std::equal(s.begin(), s.end(), h3.begin()));
    thrust::device_vector<int> d4 = dv;
    auto e4 = thrust::unique(d4.begin(), d4.end(), abs_first());
    std::vector<int> r4 = hv;
    r4.erase(std::unique(r4.begin(), r4.end(), [](int a, int b) { return a / 10 == b / 10; }), r4.end());
    thrust::host_vector<int> h4(d4.begin(), e4);
    report("thrust::unique (custom predicate)", h4.size() == r4.size() && std::equal(r4.begin(), r4.end(), h4.begin()));
    thrust::device_vector<int> d5 = dv;
    auto mid = thrust::stable_partition(d5.begin(), d5.end(), is_odd());
    std::vector<int> r5 = hv;
    auto rmid = std::stable_partition(r5.begin(), r5.end(), [](int x) { return x & 1; });
    thrust::host_vector<int> h5 = d5;
    report("thrust::stable_partition", (mid - d5.begin()) == (rmid - r5.begin()) && std::equal(r5.begin(), r5.end(), h5.begin()));
    thrust::device_vector<int> d6 = dv;
    auto mid6 = thrust::partition(d6.begin(), d6.end(), is_odd());
    thrust::host_vector<int> h6 = d6;
    int k = int(mid6 - d6.begin());
    bool ok = k == int(rmid - r5.begin());
    for (int i = 0; ok && i < n; ++i) ok = bool(h6[i] & 1) == (i < k);
    std::vector<int> a(h6.begin(), h6.end()), b = hv;
    std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
    report("thrust::partition", ok && a == b);
  }
  {  // sort_by_key on 64-bit keys, struct keys with a comparator, stable_sort
    std::vector<unsigned long long> k64(n);
    for (auto& k : k64) k = (uint64_t(lcg(seed)) << 40) ^ (uint64_t(lcg(seed)) << 16) ^ lcg(seed);
    for (int i = 0; i < n; i += 13) k64[i] = k64[i / 2];  // duplicates
    std::vector<int> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    thrust::device_vector<unsigned long long> dk(k64.begin(), k64.end());
    thrust::device_vector<int> di(idx.begin(), idx.end());
    thrust::stable_sort_by_key(dk.begin(), dk.end(), di.begin());
    std::vector<int> ri = idx;
    std::stable_sort(ri.begin(), ri.end(), [&](int a, int b) { return k64[a] < k64[b]; });
    thrust::host_vector<int> hi = di;
    report("thrust::stable_sort_by_key (uint64 keys)", std::equal(ri.begin(), ri.end(), hi.begin()));
    thrust::device_vector<unsigned long long> dk2(k64.begin(), k64.end());
    thrust::sort(dk2.begin(), dk2.end(), thrust::greater<unsigned long long>());
    std::vector<unsigned long long> r2 = k64;
    std::sort(r2.begin(), r2.end(), std::greater<unsigned long long>());
    thrust::host_vector<unsigned long long> h2 = dk2;
    report("thrust::sort (uint64, greater)", std::equal(r2.begin(), r2.end(), h2.begin()));
    std::vector<Rec> recs(n);
    for (int i = 0; i < n; ++i) recs[i] = Rec{int(lcg(seed) % 50), float(lcg(seed) % 10000) * 0.25f};
    thrust::device_vector<Rec> dr(recs.begin(), recs.end());
    thrust::device_vector<int> dri(idx.begin(), idx.end());
    thrust::stable_sort_by_key(dr.begin(), dr.end(), dri.begin(), rec_less());
    std::vector<int> rri = idx;
    std::stable_sort(rri.begin(), rri.end(), [&](int a, int b) { return rec_less()(recs[a], recs[b]); });
    thrust::host_vector<int> hri = dri;
    report("thrust::stable_sort_by_key (struct keys, comparator)", std::equal(rri.begin(), rri.end(), hri.begin()));
    thrust::device_vector<Rec> dr2(recs.begin(), recs.end());
    thrust::sort(dr2.begin(), dr2.end(), rec_less());
    thrust::host_vector<Rec> hr2 = dr2;
    bool ok = true;
    for (int i = 1; i < n; ++i) ok &= !rec_less()(hr2[i], hr2[i - 1]);
    report("thrust::sort (struct, comparator)", ok);
    thrust::device_vector<float> df(n);
    std::vector<float> hf(n);
    for (auto& x : hf) x = float(int(lcg(seed) % 2000) - 1000) * 0.5f;
    df = hf;
    thrust::stable_sort(df.begin(), df.end());
    std::stable_sort(hf.begin(), hf.end());
    thrust::host_vector<float> hdf = df;
    report("thrust::stable_sort (float)", std::equal(hf.begin(), hf.end(), hdf.begin()));
  }
  {  // set_intersection, merge, vectorised lower_bound
    std::vector<int> a(5000), b(7000);
    for (auto& x : a) x = int(lcg(seed) % 20000);
    for (auto& x : b) x = int(lcg(seed) % 20000);
    std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
    thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), out(12000);
    auto e = thrust::set_intersection(da.begin(), da.end(), db.begin(), db.end(), out.begin());
    std::vector<int> ref;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(ref));
    thrust::host_vector<int> h(out.begin(), e);
    report("thrust::set_intersection", h.size() == ref.size() && std::equal(ref.begin(), ref.end(), h.begin()));
    auto e2 = thrust::merge(da.begin(), da.end(), db.begin(), db.end(), out.begin());
    std::vector<int> r2;
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r2));
    thrust::host_vector<int> h2(out.begin(), e2);
    report("thrust::merge", h2.size() == r2.size() && std::equal(r2.begin(), r2.end(), h2.begin()));
    thrust::device_vector<int> pos(b.size());
    thrust::lower_bound(da.begin(), da.end(), db.begin(), db.end(), pos.begin());
    thrust::host_vector<int> hp = pos;
    bool ok = true;
    for (size_t i = 0; i < b.size(); ++i) ok &= hp[i] == int(std::lower_bound(a.begin(), a.end(), b[i]) - a.begin());
    thrust::upper_bound(da.begin(), da.end(), db.begin(), db.end(), pos.begin());
    hp = pos;
    for (size_t i = 0; i < b.size(); ++i) ok &= hp[i] == int(std::upper_bound(a.begin(), a.end(), b[i]) - a.begin());
    report("thrust::lower_bound/upper_bound (vectorised)", ok);
  }
  {  // zip / transform / counting / permutation iterators; min/minmax_element
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) { x[i] = float(lcg(seed) % 1000) / 8; y[i] = float(lcg(seed) % 1000) / 8; }
    thrust::device_vector<float> dx(x.begin(), x.end()), dy(y.begin(), y.end()), out(n);
    thrust::transform(thrust::make_zip_iterator(thrust::make_tuple(dx.begin(), dy.begin())),
                      thrust::make_zip_iterator(thrust::make_tuple(dx.end(), dy.end())), out.begin(), saxpy_zip());
    thrust::host_vector<float> h = out;
    bool ok = true;
    for (int i = 0; i < n; ++i) ok &= h[i] == 2.0f * x[i] + y[i];
    report("zip_iterator transform (saxpy)", ok);
    auto tb = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), key_mod{1000});
    long long s = thrust::reduce(tb, tb + n, 0LL);
    long long rs = 0;
    for (int i = 0; i < n; ++i) rs += (i * 7) % 1000;
    report("transform_iterator over counting_iterator reduce", s == rs);
    thrust::device_vector<int> map(n);
    thrust::sequence(map.begin(), map.end(), 0, 7);
    thrust::transform(map.begin(), map.end(), map.begin(), [] __device__(int v) { return v % 20000; });
    thrust::device_vector<int> g(n);
    thrust::copy(thrust::make_permutation_iterator(dv.begin(), map.begin()),
                 thrust::make_permutation_iterator(dv.begin(), map.end()), g.begin());
    thrust::host_vector<int> hg = g;
    ok = true;
    for (int i = 0; i < n; ++i) ok &= hg[i] == hv[(i * 7) % 20000];
    report("permutation_iterator gather", ok);
    auto mn = thrust::min_element(dv.begin(), dv.end());
    auto mm = thrust::minmax_element(dv.begin(), dv.end());
    auto rmn = std::min_element(hv.begin(), hv.end());
    // thrust's minmax_element returns the first largest element (std's returns the last).
    auto rmm = std::minmax_element(hv.begin(), hv.end());
    report("thrust::min_element / minmax_element",
           (mn - dv.begin()) == (rmn - hv.begin()) && (mm.first - dv.begin()) == (rmm.first - hv.begin()) &&
               (mm.second - dv.begin()) == (std::max_element(hv.begin(), hv.end()) - hv.begin()));
    auto mx = thrust::max_element(dx.begin(), dx.end());
    report("thrust::max_element (float)", (mx - dx.begin()) == (std::max_element(x.begin(), x.end()) - x.begin()));
  }
  {  // thrust::complex
    const int m = 4096;
    std::vector<thrust::complex<float>> a(m), b(m);
    for (int i = 0; i < m; ++i) {
      a[i] = thrust::complex<float>(float(i % 17) / 4, float(i % 11) / 8);
      b[i] = thrust::complex<float>(float(i % 13) / 8, -float(i % 7) / 4);
    }
    thrust::device_vector<thrust::complex<float>> da(a.begin(), a.end()), db(b.begin(), b.end()), dc(m);
    thrust::transform(da.begin(), da.end(), db.begin(), dc.begin(), cmul());
    thrust::host_vector<thrust::complex<float>> hc = dc;
    bool ok = true;
    for (int i = 0; i < m; ++i) {
      std::complex<double> r = std::complex<double>(a[i].real(), a[i].imag()) * std::complex<double>(b[i].real(), b[i].imag()) +
                               std::exp(std::complex<double>(0, 0.5));
      ok &= std::abs(std::complex<double>(hc[i].real(), hc[i].imag()) - r) < 1e-4 * (1 + std::abs(r));
    }
    thrust::complex<float> s = thrust::reduce(dc.begin(), dc.end());
    std::complex<double> rs = 0;
    for (int i = 0; i < m; ++i) rs += std::complex<double>(hc[i].real(), hc[i].imag());
    ok &= std::abs(std::complex<double>(s.real(), s.imag()) - rs) < 1e-3 * std::abs(rs);
    report("thrust::complex multiply, exp, reduce", ok);
  }
  {  // thrust on a user stream
    cudaStream_t st;
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    thrust::device_vector<int> d = dv;
    thrust::sort(thrust::cuda::par.on(st), d.begin(), d.end());
    long long s = thrust::reduce(thrust::cuda::par.on(st), d.begin(), d.end(), 0LL);
    thrust::device_vector<int> sc(n);
    thrust::inclusive_scan(thrust::cuda::par.on(st), d.begin(), d.end(), sc.begin());
    cudaStreamSynchronize(st);
    std::vector<int> r = hv;
    std::sort(r.begin(), r.end());
    thrust::host_vector<int> h = d, hs = sc;
    long long rs = std::accumulate(r.begin(), r.end(), 0LL);
    bool ok = std::equal(r.begin(), r.end(), h.begin()) && s == rs && hs[n - 1] == rs;
    report("thrust::cuda::par.on(stream) sort/reduce/scan", ok);
    cudaStreamDestroy(st);
  }
  std::printf("thrust_algos: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
