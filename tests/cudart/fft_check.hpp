// What the cuFFT test programs (cufft_host.cu, cufft_big.cu) share: a status check that ends the
// current case with the failing call's name, a reproducible input generator, and the cuFFT complex
// type of each precision.
#pragma once
#include <cufft.h>

#include <cstdint>
#include <cstdio>

#define CHECK_FFT(x)                                                               \
  do {                                                                             \
    cufftResult r_ = (x);                                                          \
    if (r_ != CUFFT_SUCCESS) {                                                     \
      std::printf("%s failed: cufftResult %d (line %d)\n", #x, int(r_), __LINE__); \
      return false;                                                                \
    }                                                                              \
  } while (0)

inline uint32_t rng = 1;  // each program seeds it first thing in main()
inline double next_value() {
  rng = rng * 1664525u + 1013904223u;
  return double(rng >> 8) / double(1u << 24) - 0.5;
}

template <class T> struct Cx;
template <> struct Cx<float> { using type = cufftComplex; };
template <> struct Cx<double> { using type = cufftDoubleComplex; };
