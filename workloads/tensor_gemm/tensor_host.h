// Host-side helpers of the tensor-core workloads (tensor_gemm.cu and ../tensor_wmma/tensor_wmma.cu):
// CPU encoders/decoders of the element types, random elements, packing along K, upload, and the
// exact comparison. The including program defines CHECK and lcg_next() first.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

// CPU decoders of the element encodings (independent of the CUDA headers' conversions).
static double f16_val(uint16_t h) {
    int ex = (h >> 10) & 31, man = h & 1023;
    double v = ex == 0 ? std::ldexp((double)man, -24) : std::ldexp(1024.0 + man, ex - 25);
    return (h & 0x8000) ? -v : v;
}
// Encoders for the exact inputs used here (normal numbers with few mantissa bits): truncation is exact.
static uint16_t f16_bits(double x) {
    if (x == 0) return 0;
    uint16_t s = x < 0 ? 0x8000 : 0;
    int e;
    double m = std::frexp(std::fabs(x), &e);  // x = m * 2^e, m in [0.5, 1)
    return s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((m * 2 - 1) * 1024);
}
static uint16_t bf16_bits(double x) {
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
static double bf16_val(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float f32_val(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static int g_fail = 0;

// Element kinds of the packed A/B matrices.
enum Elem { EL_F16, EL_BF16, EL_TF32, EL_S8, EL_U8, EL_S4, EL_U4, EL_B1 };
static int elem_bits(Elem e) {
    switch (e) {
        case EL_F16: case EL_BF16: return 16;
        case EL_TF32: return 32;
        case EL_S8: case EL_U8: return 8;
        case EL_S4: case EL_U4: return 4;
        default: return 1;
    }
}
// A random raw element of kind e (its bit pattern).
static uint32_t rand_elem(Elem e, bool small_ints) {
    int q = (int)(lcg_next() >> 28) - 8;  // -8..7
    switch (e) {
        case EL_F16: return f16_bits(small_ints ? q / 2 : q / 8.0);
        case EL_BF16: return bf16_bits(q / 8.0);
        case EL_TF32: return f32_bits((float)(q / 8.0));
        case EL_S8: case EL_U8: return lcg_next() >> 24;
        case EL_S4: case EL_U4: return lcg_next() >> 28;
        default: return lcg_next() >> 31;
    }
}
static double elem_val(Elem e, uint32_t raw) {
    switch (e) {
        case EL_F16: return f16_val((uint16_t)raw);
        case EL_BF16: return bf16_val((uint16_t)raw);
        case EL_TF32: return f32_val(raw);
        case EL_S8: return (int8_t)raw;
        case EL_U8: return raw;
        case EL_S4: return raw >= 8 ? (int)raw - 16 : (int)raw;
        case EL_U4: return raw;
        default: return raw;
    }
}
// Packs rows x cols raw elements (row-major, cols along K) into 32-bit words, element 0 lowest.
static std::vector<uint32_t> pack(const std::vector<uint32_t>& raw, Elem e) {
    int bits = elem_bits(e), per = 32 / bits;
    std::vector<uint32_t> w(raw.size() / per, 0);
    for (size_t i = 0; i < raw.size(); ++i) w[i / per] |= raw[i] << ((i % per) * bits);
    return w;
}

template <class T> static T* to_dev(const std::vector<T>& v) {
    T* p;
    CHECK(cudaMalloc(&p, v.size() * sizeof(T)));
    CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

// Compares a case's results with its reference exactly, prints its line and counts failures.
static void check_results(const char* name, int M, int N, int K, const std::vector<double>& got,
                          const std::vector<double>& ref) {
    long bad = 0;
    double sum = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        sum += got[i];
        if (!(got[i] == ref[i])) {
            if (bad < 4) printf("  %s: D[%zu][%zu] = %.6f, expected %.6f\n", name, i / N, i % N, got[i], ref[i]);
            ++bad;
        }
    }
    printf("%-44s %3dx%3dx%4d  %ld wrong  checksum %.6f\n", name, M, N, K, bad, sum);
    if (bad) ++g_fail;
}
