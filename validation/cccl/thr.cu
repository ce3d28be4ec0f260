// Survey: thrust (CCCL 3.0) beyond tests/cudart/thrust_*.cu, at 10^5-10^6 elements.
//   nvcc -cudart shared -arch=sm_80 --extended-lambda -o thr80 thr.cu ; ./thr80 [i,j,...]
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
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
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>
#include <thrust/uninitialized_fill.h>
#include <thrust/unique.h>
#include <thrust/universal_vector.h>
#include <thrust/mismatch.h>
#include <thrust/equal.h>
#include <thrust/logical.h>
#include <thrust/find.h>
#include "common.h"

static const int N = 1 << 20;

struct Particle { float x, y, z; int id; };
struct ByZThenId {
  __host__ __device__ bool operator()(const Particle& a, const Particle& b) const {
    return a.z < b.z || (a.z == b.z && a.id < b.id);
  }
};
static std::vector<int> rints(size_t n, int mod) {
  std::vector<int> v(n);
  for (auto& x : v) x = int(rnd() % mod);
  return v;
}
template <class T> static std::vector<T> H(const thrust::device_vector<T>& d) {
  thrust::host_vector<T> h = d;
  return std::vector<T>(h.begin(), h.end());
}

int main(int argc, char** argv) {
  std::vector<Case> cases = {
    {"universal_vector + par_nosync transform/reduce 1M", [] {
       thrust::universal_vector<double> u(N);
       for (int i = 0; i < N; ++i) u[i] = double(i % 1000) * 0.5;
       thrust::transform(thrust::cuda::par_nosync, u.begin(), u.end(), u.begin(), [] __host__ __device__(double x) { return x * 2.0 + 1.0; });
       CK(cudaDeviceSynchronize());
       double s = thrust::reduce(thrust::device, u.begin(), u.end(), 0.0);
       double ref = 0; bool ok = true;
       for (int i = 0; i < N; ++i) { double e = double(i % 1000) + 1.0; ref += e; ok = ok && u[i] == e; }
       return ok && std::fabs(s - ref) <= 1e-9 * ref; }},
    {"par_nosync.on(stream) sort + sequence int64 1M", [] {
       cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
       std::vector<int64_t> h(N);
       for (auto& x : h) x = int64_t(rnd());
       thrust::device_vector<int64_t> d(h.begin(), h.end()), q(N);
       thrust::sort(thrust::cuda::par_nosync.on(s), d.begin(), d.end());
       thrust::sequence(thrust::cuda::par_nosync.on(s), q.begin(), q.end(), int64_t(-5), int64_t(3));
       CK(cudaStreamSynchronize(s));
       CK(cudaStreamDestroy(s));
       std::sort(h.begin(), h.end());
       auto g = H(d), gq = H(q);
       for (int i = 0; i < N; ++i) if (gq[i] != -5 + 3 * int64_t(i)) return false;
       return g == h; }},
    {"sort_by_key zip keys (int,float) + zip values 512K", [] {
       const int n = N / 2;
       auto a = rints(n, 100); std::vector<float> b(n); std::vector<int> v(n); std::vector<double> w(n);
       for (int i = 0; i < n; ++i) { b[i] = float(rnd() % 50) * 0.5f; v[i] = i; w[i] = i * 0.25; }
       thrust::device_vector<int> da(a.begin(), a.end()), dv(v.begin(), v.end());
       thrust::device_vector<float> db(b.begin(), b.end()); thrust::device_vector<double> dw(w.begin(), w.end());
       auto keys = thrust::make_zip_iterator(da.begin(), db.begin());
       thrust::stable_sort_by_key(keys, keys + n, thrust::make_zip_iterator(dv.begin(), dw.begin()));
       std::vector<int> idx(n); std::iota(idx.begin(), idx.end(), 0);
       std::stable_sort(idx.begin(), idx.end(), [&](int x, int y) { return a[x] < a[y] || (a[x] == a[y] && b[x] < b[y]); });
       auto gv = H(dv); auto gw = H(dw);
       for (int i = 0; i < n; ++i) if (gv[i] != idx[i] || gw[i] != idx[i] * 0.25) return false;
       return true; }},
    {"reduce_by_key transform+permutation iterators 1M", [] {
       auto k = rints(N, 1); std::vector<int> perm(N), val = rints(N, 1000);
       int key = 0;
       for (int i = 0; i < N; ++i) { if (rnd() % 9 == 0) ++key; k[i] = key; perm[i] = int(rnd() % N); }
       thrust::device_vector<int> dk(k.begin(), k.end()), dp(perm.begin(), perm.end()), dv(val.begin(), val.end()), ok(N);
       thrust::device_vector<long long> ov(N);
       auto vals = thrust::make_transform_iterator(thrust::make_permutation_iterator(dv.begin(), dp.begin()),
                                                   [] __host__ __device__(int x) { return (long long)x * x; });
       auto e = thrust::reduce_by_key(dk.begin(), dk.end(), vals, ok.begin(), ov.begin());
       int m = int(e.first - ok.begin());
       std::vector<int> rk; std::vector<long long> rv;
       for (int i = 0; i < N; ++i) { long long x = (long long)val[perm[i]] * val[perm[i]];
         if (i == 0 || k[i] != k[i - 1]) { rk.push_back(k[i]); rv.push_back(x); } else rv.back() += x; }
       auto gk = H(ok); auto gv = H(ov);
       gk.resize(m); gv.resize(m);
       return gk == rk && gv == rv; }},
    {"inclusive_scan_by_key counting keys / 7, max 1M", [] {
       auto v = rints(N, 1 << 20);
       thrust::device_vector<int> dv(v.begin(), v.end()), o(N);
       auto keys = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), [] __host__ __device__(int i) { return i / 7; });
       thrust::inclusive_scan_by_key(keys, keys + N, dv.begin(), o.begin(), thrust::equal_to<int>(), thrust::maximum<int>());
       std::vector<int> ref(N);
       for (int i = 0; i < N; ++i) ref[i] = (i % 7 == 0) ? v[i] : std::max(ref[i - 1], v[i]);
       return H(o) == ref; }},
    {"transform_inclusive_scan double 1M (tolerance)", [] {
       std::vector<double> v(N);
       for (auto& x : v) x = rndu();
       thrust::device_vector<double> dv(v.begin(), v.end()), o(N);
       thrust::transform_inclusive_scan(dv.begin(), dv.end(), o.begin(), [] __host__ __device__(double x) { return x * x; }, thrust::plus<double>());
       auto g = H(o); double a = 0, worst = 0;
       for (int i = 0; i < N; ++i) { a += v[i] * v[i]; worst = std::max(worst, std::fabs(g[i] - a) / a); }
       return worst < 1e-12; }},
    {"set_symmetric_difference + set_intersection_by_key 512K", [] {
       auto a = rints(N / 2, N), b = rints(N / 2, N);
       std::sort(a.begin(), a.end()); std::sort(b.begin(), b.end());
       thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), o(N), ok(N), ov(N);
       auto e = thrust::set_symmetric_difference(da.begin(), da.end(), db.begin(), db.end(), o.begin());
       std::vector<int> ref, rk;
       std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(ref));
       auto g = H(o); g.resize(e - o.begin());
       thrust::device_vector<int> av(N / 2);
       thrust::sequence(av.begin(), av.end());
       auto e2 = thrust::set_intersection_by_key(da.begin(), da.end(), db.begin(), db.end(), av.begin(), ok.begin(), ov.begin());
       std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(rk));
       auto gk = H(ok); gk.resize(e2.first - ok.begin());
       auto gv = H(ov); gv.resize(e2.second - ov.begin());
       // values: the index in a of each intersected key (first occurrence of a run, in order)
       bool vok = gv.size() == rk.size();
       for (size_t i = 0; vok && i < gv.size(); ++i) vok = a[gv[i]] == rk[i];
       return g == ref && gk == rk && vok; }},
    {"merge_by_key with comparator (descending) 512K+512K", [] {
       auto a = rints(N / 2, 1 << 16), b = rints(N / 2, 1 << 16);
       std::sort(a.begin(), a.end(), std::greater<int>()); std::sort(b.begin(), b.end(), std::greater<int>());
       thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), ok(N), ov(N);
       auto e = thrust::merge_by_key(da.begin(), da.end(), db.begin(), db.end(), thrust::counting_iterator<int>(0),
                                     thrust::counting_iterator<int>(N / 2), ok.begin(), ov.begin(), thrust::greater<int>());
       std::vector<std::pair<int, int>> ref;
       for (int i = 0; i < N / 2; ++i) ref.push_back({a[i], i});
       for (int i = 0; i < N / 2; ++i) ref.push_back({b[i], N / 2 + i});
       std::stable_sort(ref.begin(), ref.end(), [](auto x, auto y) { return x.first > y.first; });
       auto gk = H(ok); auto gv = H(ov);
       if (e.first - ok.begin() != N) return false;
       for (int i = 0; i < N; ++i) if (gk[i] != ref[i].first || gv[i] != ref[i].second) return false;
       return true; }},
    {"stable_sort struct comparator 256K", [] {
       const int n = 1 << 18;
       std::vector<Particle> h(n);
       for (int i = 0; i < n; ++i) h[i] = {float(rndu()), float(rndu()), float(rnd() % 1000) * 0.125f, int(rnd() % 64)};
       thrust::device_vector<Particle> d(h.begin(), h.end());
       thrust::stable_sort(d.begin(), d.end(), ByZThenId{});
       std::stable_sort(h.begin(), h.end(), ByZThenId{});
       auto g = H(d);
       for (int i = 0; i < n; ++i) if (g[i].x != h[i].x || g[i].y != h[i].y || g[i].id != h[i].id) return false;
       return true; }},
    {"tabulate + unique_count + count 1M", [] {
       thrust::device_vector<int> d(N);
       thrust::tabulate(d.begin(), d.end(), [] __host__ __device__(int i) { return (i / 3) ^ 5; });
       auto u = thrust::unique_count(d.begin(), d.end());
       auto c = thrust::count(d.begin(), d.end(), 12);
       std::vector<int> h(N);
       for (int i = 0; i < N; ++i) h[i] = (i / 3) ^ 5;
       long ru = 0, rc = 0;
       for (int i = 0; i < N; ++i) { ru += (i == 0 || h[i] != h[i - 1]); rc += h[i] == 12; }
       return H(d) == h && u == ru && c == rc; }},
    {"remove_copy_if + partition_copy + stable_partition_copy 1M", [] {
       auto v = rints(N, 1 << 20);
       thrust::device_vector<int> d(v.begin(), v.end()), o(N), t(N), f(N);
       auto e = thrust::remove_copy_if(d.begin(), d.end(), o.begin(), [] __host__ __device__(int x) { return x % 3 == 0; });
       auto p = thrust::partition_copy(d.begin(), d.end(), t.begin(), f.begin(), [] __host__ __device__(int x) { return x & 1; });
       std::vector<int> r, rt, rf;
       for (int x : v) { if (x % 3) r.push_back(x); (x & 1 ? rt : rf).push_back(x); }
       auto g = H(o); g.resize(e - o.begin());
       auto gt = H(t); gt.resize(p.first - t.begin());
       auto gf = H(f); gf.resize(p.second - f.begin());
       return g == r && gt == rt && gf == rf; }},
    {"device_vector<Particle> transform_reduce zip 1M", [] {
       std::vector<float> x(N), y(N);
       for (int i = 0; i < N; ++i) { x[i] = float(rnd() % 64); y[i] = float(rnd() % 64); }
       thrust::device_vector<float> dx(x.begin(), x.end()), dy(y.begin(), y.end());
       auto z = thrust::make_zip_iterator(dx.begin(), dy.begin());
       double s = thrust::transform_reduce(z, z + N, [] __host__ __device__(thrust::tuple<float, float> t) {
         return double(thrust::get<0>(t)) * thrust::get<1>(t); }, 0.0, thrust::plus<double>());
       double ref = 0;
       for (int i = 0; i < N; ++i) ref += double(x[i]) * y[i];
       return s == ref; }},
    {"lower_bound/upper_bound vectorised 1M needles", [] {
       auto hay = rints(N / 4, 1 << 22), nd = rints(N, 1 << 22);
       std::sort(hay.begin(), hay.end());
       thrust::device_vector<int> dh(hay.begin(), hay.end()), dn(nd.begin(), nd.end()), lo(N), hi(N);
       thrust::lower_bound(dh.begin(), dh.end(), dn.begin(), dn.end(), lo.begin());
       thrust::upper_bound(dh.begin(), dh.end(), dn.begin(), dn.end(), hi.begin());
       auto gl = H(lo), gh = H(hi);
       for (int i = 0; i < N; ++i)
         if (gl[i] != std::lower_bound(hay.begin(), hay.end(), nd[i]) - hay.begin() ||
             gh[i] != std::upper_bound(hay.begin(), hay.end(), nd[i]) - hay.begin()) return false;
       return true; }},
    {"find_if / mismatch / all_of / equal 1M", [] {
       thrust::device_vector<int> a(N), b(N);
       thrust::sequence(a.begin(), a.end()); thrust::sequence(b.begin(), b.end());
       b[700001] = -1;
       auto f = thrust::find_if(a.begin(), a.end(), [] __host__ __device__(int x) { return x > 123456 && x % 1000 == 7; });
       auto mm = thrust::mismatch(a.begin(), a.end(), b.begin());
       bool all = thrust::all_of(a.begin(), a.end(), [] __host__ __device__(int x) { return x >= 0; });
       bool eq = thrust::equal(a.begin(), a.end(), b.begin());
       return f - a.begin() == 124007 && mm.first - a.begin() == 700001 && all && !eq; }},
    {"sort_by_key float keys desc + min/max_element 1M", [] {
       std::vector<float> k(N); std::vector<int> v(N);
       for (int i = 0; i < N; ++i) { k[i] = float(rndu() * 2 - 1); v[i] = i; }
       thrust::device_vector<float> dk(k.begin(), k.end()); thrust::device_vector<int> dv(v.begin(), v.end());
       auto mx = thrust::max_element(dk.begin(), dk.end()) - dk.begin();
       thrust::sort_by_key(dk.begin(), dk.end(), dv.begin(), thrust::greater<float>());
       std::vector<int> idx(N); std::iota(idx.begin(), idx.end(), 0);
       std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return k[a] > k[b]; });
       auto gk = H(dk);
       for (int i = 0; i < N; ++i) if (gk[i] != k[idx[i]]) return false;
       return mx == std::max_element(k.begin(), k.end()) - k.begin(); }},
    {"exclusive_scan in place on counting-transform, discard 1M", [] {
       thrust::device_vector<long long> d(N);
       thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(N), d.begin(),
                         [] __host__ __device__(int i) { return (long long)(i % 13); });
       thrust::exclusive_scan(d.begin(), d.end(), d.begin(), 100LL);
       auto c = thrust::copy_if(d.begin(), d.end(), thrust::make_discard_iterator(), [] __host__ __device__(long long x) { return x % 2 == 0; });
       std::vector<long long> ref(N); long long a = 100; long rc = 0;
       for (int i = 0; i < N; ++i) { ref[i] = a; a += i % 13; rc += ref[i] % 2 == 0; }
       return H(d) == ref && (c - thrust::make_discard_iterator()) == rc; }},
  };
  return run_cases(argc, argv, cases);
}
