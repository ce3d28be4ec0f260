
static uint32_t g_lcg = 0x5eed1234u;
static uint32_t rnd() { g_lcg = g_lcg * 1664525u + 1013904223u; return g_lcg >> 8; }
static int rint_in(int lo, int hi) { return lo + int(rnd() % uint32_t(hi - lo + 1)); }
static int rnz(int m) { int v = rint_in(1, m); return (rnd() & 1) ? -v : v; }

static uint16_t h_bits(double v) { __half h = __float2half_rn(float(v)); uint16_t b; memcpy(&b, &h, 2); return b; }
static uint16_t bf_bits(double v) { __nv_bfloat16 h = __float2bfloat16_rn(float(v)); uint16_t b; memcpy(&b, &h, 2); return b; }
static uint32_t f_bits(double v) { float f = float(v); uint32_t b; memcpy(&b, &f, 4); return b; }
static int kind_bits(int k) { return k == K_TF32 ? 32 : (k == K_F16 || k == K_BF16) ? 16 : (k == K_S8 || k == K_U8) ? 8 : 4; }
static bool is_int(int k) { return k >= K_S8; }
static uint32_t enc(int kind, double v) {
  switch (kind) {
    case K_F16: return h_bits(v);
    case K_BF16: return bf_bits(v);
    case K_TF32: return f_bits(v);
    case K_S8: case K_U8: return uint32_t(int(v)) & 0xffu;
    default: return uint32_t(int(v)) & 0xfu;
  }
}
static double rand_elem(int kind) {
  switch (kind) {
    case K_S8: return rint_in(-128, 127);
    case K_U8: return rint_in(0, 255);
    case K_S4: return rint_in(-8, 7);
    case K_U4: return rint_in(0, 15);
    default: return rnz(3);
  }
}
// A valid random metadata nibble for the kind (two distinct ascending 2-bit indices; tf32: 0x4 or 0xe).
static uint32_t rand_nib(int kind) {
  if (kind == K_TF32) return (rnd() & 1) ? 0xeu : 0x4u;
  int i0 = rint_in(0, 2), i1 = rint_in(i0 + 1, 3);
  return uint32_t(i0 | i1 << 2);
}

static FILE* g_dump = nullptr;
static void dump(const char* instr, int sel, const std::vector<uint32_t>& in, const std::vector<uint32_t>& out) {
  if (!g_dump) return;
  char name[128] = {0};
  strncpy(name, instr, 127);
  fwrite(name, 1, 128, g_dump);
  fwrite(&sel, 4, 1, g_dump);
  fwrite(in.data(), 4, in.size(), g_dump);
  fwrite(out.data(), 4, out.size(), g_dump);
}

static uint32_t *d_in, *d_out;
static std::vector<uint32_t> run(Launch f, int sel, const std::vector<uint32_t>& in) {
  std::vector<uint32_t> out(32 * 8, 0xdeadbeefu);
  CHECK(cudaMemcpy(d_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_out, out.data(), out.size() * 4, cudaMemcpyHostToDevice));
  f(sel, d_in, d_out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost));
  return out;
}

static uint32_t enc_acc(bool f16, bool isint, bool sat, double v) {
  if (isint) {
    if (sat) v = v > 2147483647.0 ? 2147483647.0 : v < -2147483648.0 ? -2147483648.0 : v;
    return uint32_t(int64_t(v));
  }
  return f16 ? h_bits(v) : f_bits(v);
}

static int check_sparse(const SparseForm& F, int sel) {
  const int M = 16, N = 8, K = F.K, kind = F.kind, eb = kind_bits(kind), epr = 32 / eb;
  const int cs = kind == K_TF32 ? 2 : (kind == K_S4 || kind == K_U4) ? 8 : 4;
  const int nchunk = K / cs, T = nchunk / 4;
  std::vector<double> A(M * K, 0.0), B(K * N), C(M * N);
  std::vector<uint32_t> Ac(M * K / 2), nib(M * nchunk);
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < nchunk; ++c) {
      uint32_t nb = rand_nib(kind);
      nib[r * nchunk + c] = nb;
      int kept[4], nk = 0;
      if (kind == K_TF32) kept[nk++] = c * 2 + (nb == 0xe ? 1 : 0);
      else if (cs == 8) for (int i = 0; i < 2; ++i) { int p = (nb >> (2 * i)) & 3; kept[nk++] = c * 8 + 2 * p; kept[nk++] = c * 8 + 2 * p + 1; }
      else for (int i = 0; i < 2; ++i) kept[nk++] = c * 4 + ((nb >> (2 * i)) & 3);
      for (int i = 0; i < nk; ++i) {
        double v = rand_elem(kind);
        A[r * K + kept[i]] = v;
        Ac[r * (K / 2) + c * nk + i] = enc(kind, v);
      }
    }
  for (auto& v : B) v = rand_elem(kind);
  for (auto& v : C) v = is_int(kind) ? double(rint_in(-100000, 100000)) : double(rint_in(-8, 8));
  if (F.sat) { C[0] = 2147483000.0; C[9] = -2147483000.0; }  // .satfinite shows
  std::vector<uint32_t> in(32 * 20, 0);
  for (int l = 0; l < 32; ++l) in[l * 20 + 16] = 0;
  for (int l = 0; l < 32; ++l)  // metadata words of the lanes the selector does not name: valid but wrong
    for (int j = 0; j < 8; ++j) in[l * 20 + 16] |= rand_nib(kind) << (4 * j);
  // Floating-point A: lane h of the selected ones holds chunks 4h..4h+3 of row g (bits 0-15) and
  // of row g+8 (bits 16-31). Integer A: lane 2p holds chunks 8p..8p+7 of row g, lane 2p+1 those of
  // row g+8 (measured on an H100, see README).
  for (int g = 0; g < 8; ++g)
    for (int h = 0; h < T; ++h) {
      uint32_t w = 0;
      for (int j = 0; j < 8; ++j) {
        int row, chunk;
        if (is_int(kind)) { row = g + 8 * (h & 1); chunk = 8 * (h >> 1) + j; }
        else { row = g + 8 * (j >> 2); chunk = 4 * h + (j & 3); }
        w |= nib[row * nchunk + chunk] << (4 * j);
      }
      in[(4 * g + sel * T + h) * 20 + 16] = w;
    }
  const int Kc = K / 2;
  for (int l = 0; l < 32; ++l) {
    int g = l >> 2, q = l & 3;
    for (int r = 0; r < F.na; ++r)
      for (int j = 0; j < epr; ++j) {
        int row = g + 8 * (r & 1), col = q * epr + j + (r >> 1) * 4 * epr;
        in[l * 20 + r] |= (eb == 32 ? Ac[row * Kc + col] : (Ac[row * Kc + col] & ((1u << eb) - 1))) << (j * eb % 32);
      }
    for (int r = 0; r < F.nb; ++r)
      for (int j = 0; j < epr; ++j) {
        int row = q * epr + j + r * 4 * epr, col = g;
        in[l * 20 + 4 + r] |= enc(kind, B[row * N + col]) << (j * eb % 32);
      }
    for (int i = 0; i < 4; ++i) {
      int row = g + 8 * (i >> 1), col = 2 * q + (i & 1);
      uint32_t v = enc_acc(F.c16, is_int(kind), false, C[row * N + col]);
      if (F.c16) in[l * 20 + 8 + i / 2] |= v << (16 * (i & 1));
      else in[l * 20 + 8 + i] = v;
    }
  }
  std::vector<uint32_t> out = run(F.launch, sel, in);
  dump(F.instr, sel, in, out);
  int bad = 0;
  for (int l = 0; l < 32; ++l) {
    int g = l >> 2, q = l & 3;
    uint32_t want[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) {
      int row = g + 8 * (i >> 1), col = 2 * q + (i & 1);
      double s = C[row * N + col];
      for (int k = 0; k < K; ++k) s += A[row * K + k] * B[k * N + col];
      uint32_t v = enc_acc(F.d16, is_int(kind), F.sat, s);
      if (!F.sat && is_int(kind)) v = uint32_t(int64_t(s));
      if (F.d16) want[i / 2] |= v << (16 * (i & 1));
      else want[i] = v;
    }
    for (int i = 0; i < (F.d16 ? 2 : 4); ++i)
      if (out[l * 8 + i] != want[i]) {
        if (bad < 3) printf("#   lane %d d%d = 0x%08x, want 0x%08x\n", l, i, out[l * 8 + i], want[i]);
        ++bad;
      }
  }
  printf("sparse,%s,%d,%d\n", F.instr, sel, bad);
  return bad;
}

static int check_qp(const QpForm& F) {
  double A[4][8][4], B[4][4][8], C[4][8][8];
  for (int p = 0; p < 4; ++p)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        if (j < 4) A[p][i][j] = rnz(4);
        if (i < 4) B[p][i][j] = rnz(4);
        C[p][i][j] = rint_in(-16, 16);
      }
  std::vector<uint32_t> in(32 * 20, 0);
  auto c_rc = [](bool f16, int l, int i, int& row, int& col) {
    int hi = l >= 16 ? 4 : 0;
    if (f16) { row = (l & 3) + hi; col = i; }
    else { row = (l & 1) + (i & 2) + hi; col = (i & 4) + (l & 2) + (i & 1); }
  };
  for (int l = 0; l < 32; ++l) {
    int p = (l % 16) / 4, t = l & 3, hi = l >= 16 ? 4 : 0;
    for (int i = 0; i < 4; ++i) {
      int ar = F.acol ? i + hi : t + hi, ac = F.acol ? t : i;
      int br = F.bcol ? i : t, bc = F.bcol ? t + hi : i + hi;
      in[l * 20 + i / 2] |= uint32_t(h_bits(A[p][ar][ac])) << (16 * (i & 1));
      in[l * 20 + 4 + i / 2] |= uint32_t(h_bits(B[p][br][bc])) << (16 * (i & 1));
    }
    for (int i = 0; i < 8; ++i) {
      int row, col;
      c_rc(F.c16, l, i, row, col);
      if (F.c16) in[l * 20 + 8 + i / 2] |= uint32_t(h_bits(C[p][row][col])) << (16 * (i & 1));
      else in[l * 20 + 8 + i] = f_bits(C[p][row][col]);
    }
  }
  std::vector<uint32_t> out = run(F.launch, 0, in);
  dump(F.instr, 0, in, out);
  int bad = 0;
  for (int l = 0; l < 32; ++l) {
    int p = (l % 16) / 4;
    uint32_t want[8] = {0};
    for (int i = 0; i < 8; ++i) {
      int row, col;
      c_rc(F.d16, l, i, row, col);
      double s = C[p][row][col];
      for (int k = 0; k < 4; ++k) s += A[p][row][k] * B[p][k][col];
      if (F.d16) want[i / 2] |= uint32_t(h_bits(s)) << (16 * (i & 1));
      else want[i] = f_bits(s);
    }
    for (int i = 0; i < (F.d16 ? 4 : 8); ++i)
      if (out[l * 8 + i] != want[i]) {
        if (bad < 3) printf("#   lane %d d%d = 0x%08x, want 0x%08x\n", l, i, out[l * 8 + i], want[i]);
        ++bad;
      }
  }
  printf("quadpair,%s,0,%d\n", F.instr, bad);
  return bad;
}

int main(int argc, char** argv) {
  if (argc > 1) g_dump = fopen(argv[1], "wb");
  CHECK(cudaMalloc(&d_in, 32 * 20 * 4));
  CHECK(cudaMalloc(&d_out, 32 * 8 * 4));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s sm_%d%d\nfamily,instruction,selector,mismatched_words\n", prop.name, prop.major, prop.minor);
  int bad = 0;
  for (const SparseForm& F : kSparse)
    for (int sel = 0; sel < F.nsel; ++sel) bad += check_sparse(F, sel) != 0;
  for (const QpForm& F : kQp) bad += check_qp(F) != 0;
  if (g_dump) fclose(g_dump);
  if (bad) { printf("mma_layout: FAIL (%d forms)\n", bad); return 1; }
  printf("mma_layout: PASS\n");
  return 0;
}
