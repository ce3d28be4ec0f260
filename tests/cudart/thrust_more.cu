// thrust as real programs use it, beyond thrust_algos.cu, each against a CPU reference: sort of a
// large user struct with a comparator (merge sort over many tiles), sort_by_key carrying a zip
// iterator, transform_reduce/inner_product in double, gather/scatter(_if), unique_by_key,
// set_union/set_difference (by key), adjacent_difference, tabulate, sequence, replace_if,
// device_vector<double> and thrust::complex<double>, thrust::cuda::par_nosync and par.on(stream)
// with user streams, and thrust algorithms with thrust::seq inside a kernel.
// Every line printed depends only on the CPU reference's verdict. Built with --extended-lambda.
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/complex.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/replace.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

static int failures = 0;
static void report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "ok" : "FAIL");
  if (!ok) ++failures;
}
static uint64_t rng_state = 12345;
static uint64_t rnd() {  // splitmix64
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct Particle {
  int cell;
  float energy;
  uint32_t id;
  short flags;
};
struct ByCellThenEnergy {
  __host__ __device__ bool operator()(const Particle& a, const Particle& b) const {
    return a.cell != b.cell ? a.cell < b.cell : a.energy > b.energy;
  }
};
struct Norm2 {
  __host__ __device__ double operator()(const thrust::complex<double>& z) const { return thrust::norm(z); }
};

// Each thread sorts its own 16 values and searches them with thrust::seq.
__global__ void per_thread_seq(int* data, int* found, int nthreads) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nthreads) return;
  int* v = data + 16 * t;
  thrust::sort(thrust::seq, v, v + 16, thrust::greater<int>());
  const int* pos = thrust::lower_bound(thrust::seq, v, v + 16, 50, thrust::greater<int>());
  found[t] = int(pos - v) + 100 * int(thrust::reduce(thrust::seq, v, v + 16, 0) % 1000);
}

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines reach the log as they are printed
  // Large struct sort with a comparator (merge sort over many tiles) and the stable version.
  {
    const int n = 150000;
    std::vector<Particle> h(n);
    for (int i = 0; i < n; ++i)
      h[i] = Particle{int(rnd() % 500), float(rnd() % 64) * 0.5f, uint32_t(i), short(rnd() % 3)};
    thrust::device_vector<Particle> d(h.begin(), h.end());
    thrust::stable_sort(d.begin(), d.end(), ByCellThenEnergy());
    std::vector<Particle> w = h;
    std::stable_sort(w.begin(), w.end(), ByCellThenEnergy());
    thrust::host_vector<Particle> g = d;
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) ok = g[i].id == w[i].id && g[i].cell == w[i].cell && g[i].flags == w[i].flags;
    report("thrust::stable_sort struct (16 B) comparator n=150000", ok);
    d = thrust::device_vector<Particle>(h.begin(), h.end());
    thrust::sort(d.begin(), d.end(), ByCellThenEnergy());
    g = d;
    ok = true;
    for (int i = 0; i < n && ok; ++i)
      ok = g[i].cell == w[i].cell && g[i].energy == w[i].energy;  // unstable: same keys in order
    std::vector<uint32_t> ids(n);
    for (int i = 0; i < n; ++i) ids[i] = g[i].id;
    std::sort(ids.begin(), ids.end());
    for (int i = 0; i < n && ok; ++i) ok = ids[i] == uint32_t(i);
    report("thrust::sort struct comparator (a permutation, keys in order)", ok);
  }
  // sort_by_key with a zip iterator of values, and zip keys sorted lexicographically.
  {
    const int n = 100000;
    std::vector<float> k(n);
    std::vector<int> a(n);
    std::vector<double> b(n);
    for (int i = 0; i < n; ++i) k[i] = float(rnd() % 1000) - 500.0f, a[i] = i, b[i] = i * 0.5;
    thrust::device_vector<float> dk(k.begin(), k.end());
    thrust::device_vector<int> da(a.begin(), a.end());
    thrust::device_vector<double> db(b.begin(), b.end());
    thrust::stable_sort_by_key(dk.begin(), dk.end(), thrust::make_zip_iterator(da.begin(), db.begin()),
                        thrust::greater<float>());
    std::vector<int> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int x, int y) { return k[x] > k[y]; });
    thrust::host_vector<float> gk = dk;
    thrust::host_vector<int> ga = da;
    thrust::host_vector<double> gb = db;
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) ok = gk[i] == k[idx[i]] && ga[i] == idx[i] && gb[i] == idx[i] * 0.5;
    report("thrust::stable_sort_by_key float keys (greater), zip(int, double) values", ok);

    std::vector<int> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = int(rnd() % 50), y[i] = int(rnd() % 1000);
    thrust::device_vector<int> dx(x.begin(), x.end()), dy(y.begin(), y.end());
    thrust::sort(thrust::make_zip_iterator(dx.begin(), dy.begin()), thrust::make_zip_iterator(dx.end(), dy.end()));
    std::vector<std::pair<int, int>> p(n);
    for (int i = 0; i < n; ++i) p[i] = {x[i], y[i]};
    std::sort(p.begin(), p.end());
    thrust::host_vector<int> gx = dx, gy = dy;
    ok = true;
    for (int i = 0; i < n && ok; ++i) ok = gx[i] == p[i].first && gy[i] == p[i].second;
    report("thrust::sort zip(int, int) lexicographic", ok);
  }
  // Reductions in double and complex<double>.
  {
    const int n = 200000;
    std::vector<double> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = double(rnd() % 2001) / 1000.0 - 1.0, y[i] = double(rnd() % 1000) / 7.0;
    thrust::device_vector<double> dx(x.begin(), x.end()), dy(y.begin(), y.end());
    double dot = thrust::inner_product(dx.begin(), dx.end(), dy.begin(), 0.0);
    double want = 0;
    for (int i = 0; i < n; ++i) want += x[i] * y[i];
    report("thrust::inner_product double (rel 1e-12)", std::fabs(dot - want) <= 1e-12 * std::fabs(want) + 1e-9);
    double ss = thrust::transform_reduce(
        dx.begin(), dx.end(), [] __device__(double v) -> double { return v * v * v; }, 0.0, thrust::plus<double>());
    double wss = 0;
    for (double v : x) wss += v * v * v;
    report("thrust::transform_reduce cube, device lambda (rel 1e-12)", std::fabs(ss - wss) <= 1e-12 * std::fabs(wss) + 1e-9);
    std::vector<thrust::complex<double>> z(n / 4);
    std::vector<std::complex<double>> zc(n / 4);
    for (size_t i = 0; i < z.size(); ++i) z[i] = thrust::complex<double>(x[i], y[i] / 100.0), zc[i] = std::complex<double>(x[i], y[i] / 100.0);
    thrust::device_vector<thrust::complex<double>> dz(z.begin(), z.end());
    thrust::transform(dz.begin(), dz.end(), dz.begin(),
                      [] __device__(thrust::complex<double> v) -> thrust::complex<double> { return v * v + thrust::complex<double>(1, -2); });
    auto total = thrust::reduce(dz.begin(), dz.end(), thrust::complex<double>(0, 0));
    double n2 = thrust::transform_reduce(dz.begin(), dz.end(), Norm2(), 0.0, thrust::plus<double>());
    std::complex<double> wt = 0;
    double wn2 = 0;
    for (auto v : zc) wt += v * v + std::complex<double>(1, -2), wn2 += std::norm(v * v + std::complex<double>(1, -2));
    report("device_vector<complex<double>> transform + reduce + norm",
           std::abs(std::complex<double>(total.real(), total.imag()) - wt) <= 1e-9 * std::abs(wt) &&
               std::fabs(n2 - wn2) <= 1e-9 * wn2);
  }
  // gather / scatter / scatter_if / tabulate / sequence / replace_if / adjacent_difference.
  {
    const int n = 100000;
    thrust::device_vector<int> src(n);
    thrust::tabulate(src.begin(), src.end(), [] __device__(int i) -> int { return (i * 7919) % 10007; });
    std::vector<int> hs(n);
    for (int i = 0; i < n; ++i) hs[i] = (i * 7919) % 10007;
    report("thrust::tabulate", thrust::host_vector<int>(src) == thrust::host_vector<int>(hs.begin(), hs.end()));
    std::vector<int> map(n);
    std::iota(map.begin(), map.end(), 0);
    for (int i = n - 1; i > 0; --i) std::swap(map[i], map[rnd() % (i + 1)]);
    thrust::device_vector<int> dmap(map.begin(), map.end()), out(n), out2(n, -1);
    thrust::gather(dmap.begin(), dmap.end(), src.begin(), out.begin());
    thrust::host_vector<int> g = out;
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) ok = g[i] == hs[map[i]];
    report("thrust::gather", ok);
    thrust::scatter(src.begin(), src.end(), dmap.begin(), out.begin());
    g = out;
    ok = true;
    for (int i = 0; i < n && ok; ++i) ok = g[map[i]] == hs[i];
    report("thrust::scatter", ok);
    thrust::device_vector<int> stencil(n);
    thrust::sequence(stencil.begin(), stencil.end(), 5, 3);
    thrust::scatter_if(src.begin(), src.end(), dmap.begin(), stencil.begin(), out2.begin(),
                       [] __device__(int s) -> bool { return s % 4 == 1; });
    g = out2;
    std::vector<int> w(n, -1);
    for (int i = 0; i < n; ++i)
      if ((5 + 3 * i) % 4 == 1) w[map[i]] = hs[i];
    report("thrust::sequence + scatter_if", std::equal(w.begin(), w.end(), g.begin()));
    thrust::replace_if(src.begin(), src.end(), [] __device__(int v) -> bool { return v > 9000; }, -7);
    thrust::adjacent_difference(src.begin(), src.end(), out.begin());
    g = out;
    for (auto& v : hs) v = v > 9000 ? -7 : v;
    ok = g[0] == hs[0];
    for (int i = 1; i < n && ok; ++i) ok = g[i] == hs[i] - hs[i - 1];
    report("thrust::replace_if + adjacent_difference", ok);
    thrust::adjacent_difference(src.begin(), src.end(), out.begin(), thrust::maximum<int>());
    g = out;
    ok = g[0] == hs[0];
    for (int i = 1; i < n && ok; ++i) ok = g[i] == std::max(hs[i], hs[i - 1]);
    report("thrust::adjacent_difference (maximum)", ok);
  }
  // unique_by_key, set_union / set_difference (and by key), on user streams.
  {
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreate(&s2);
    const int n = 120000;
    std::vector<int> k(n), v(n);
    for (int i = 0, key = 0; i < n; ++i) key += int(rnd() % 3 == 0), k[i] = key, v[i] = i;
    thrust::device_vector<int> dk(k.begin(), k.end()), dv(v.begin(), v.end());
    auto ends = thrust::unique_by_key(thrust::cuda::par_nosync.on(s1), dk.begin(), dk.end(), dv.begin());
    cudaStreamSynchronize(s1);
    std::vector<int> wk, wv;
    for (int i = 0; i < n; ++i)
      if (!i || k[i] != k[i - 1]) wk.push_back(k[i]), wv.push_back(v[i]);
    const int m = int(ends.first - dk.begin());
    thrust::host_vector<int> gk(dk.begin(), dk.begin() + m), gv(dv.begin(), dv.begin() + m);
    report("thrust::unique_by_key par_nosync.on(stream)",
           m == int(wk.size()) && std::equal(wk.begin(), wk.end(), gk.begin()) && std::equal(wv.begin(), wv.end(), gv.begin()));

    std::vector<int> a(60000), b(45000);
    for (auto& x : a) x = int(rnd() % 100000);
    for (auto& x : b) x = int(rnd() % 100000);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), dout(a.size() + b.size());
    auto e = thrust::set_union(thrust::cuda::par.on(s2), da.begin(), da.end(), db.begin(), db.end(), dout.begin());
    std::vector<int> wu;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(wu));
    thrust::host_vector<int> gu(dout.begin(), e);
    report("thrust::set_union par.on(stream)", std::vector<int>(gu.begin(), gu.end()) == wu);
    e = thrust::set_difference(da.begin(), da.end(), db.begin(), db.end(), dout.begin());
    std::vector<int> wd;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(wd));
    thrust::host_vector<int> gd(dout.begin(), e);
    report("thrust::set_difference", std::vector<int>(gd.begin(), gd.end()) == wd);
    thrust::device_vector<int> va(a.size()), vb(b.size()), ko(a.size() + b.size()), vo(a.size() + b.size());
    thrust::sequence(va.begin(), va.end(), 0);
    thrust::sequence(vb.begin(), vb.end(), 1000000);
    auto kv = thrust::set_union_by_key(thrust::cuda::par_nosync.on(s2), da.begin(), da.end(), db.begin(), db.end(),
                                       va.begin(), vb.begin(), ko.begin(), vo.begin());
    cudaStreamSynchronize(s2);
    // CPU: std::set_union on (key, value) pairs compared by key keeps the first range's element.
    std::vector<std::pair<int, int>> pa(a.size()), pb(b.size()), pu;
    for (size_t i = 0; i < a.size(); ++i) pa[i] = {a[i], int(i)};
    for (size_t i = 0; i < b.size(); ++i) pb[i] = {b[i], 1000000 + int(i)};
    std::set_union(pa.begin(), pa.end(), pb.begin(), pb.end(), std::back_inserter(pu),
                   [](auto& x, auto& y) { return x.first < y.first; });
    const int mu = int(kv.first - ko.begin());
    thrust::host_vector<int> gko(ko.begin(), ko.begin() + mu), gvo(vo.begin(), vo.begin() + mu);
    bool ok = mu == int(pu.size());
    for (int i = 0; i < mu && ok; ++i) ok = gko[i] == pu[i].first && gvo[i] == pu[i].second;
    report("thrust::set_union_by_key par_nosync.on(stream)", ok);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
  }
  // thrust::seq inside a kernel.
  {
    const int nt = 1000;
    std::vector<int> h(16 * nt);
    for (auto& x : h) x = int(rnd() % 100);
    thrust::device_vector<int> d(h.begin(), h.end()), found(nt);
    per_thread_seq<<<(nt + 127) / 128, 128>>>(thrust::raw_pointer_cast(d.data()), thrust::raw_pointer_cast(found.data()), nt);
    thrust::host_vector<int> g = d, gf = found;
    bool ok = true;
    for (int t = 0; t < nt && ok; ++t) {
      std::vector<int> v(h.begin() + 16 * t, h.begin() + 16 * t + 16);
      std::sort(v.begin(), v.end(), std::greater<int>());
      int pos = int(std::lower_bound(v.begin(), v.end(), 50, std::greater<int>()) - v.begin());
      int sum = std::accumulate(v.begin(), v.end(), 0);
      ok = std::equal(v.begin(), v.end(), g.begin() + 16 * t) && gf[t] == pos + 100 * (sum % 1000);
    }
    report("thrust::sort/lower_bound/reduce with thrust::seq in a kernel", ok);
  }
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(err)), ++failures;
  std::printf("thrust_more: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
