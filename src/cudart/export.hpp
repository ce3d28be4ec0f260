#pragma once
// Symbols of the C ABI; everything else in the library is hidden (-fvisibility=hidden plus the
// version scripts libcudart13.map / libcudart12.map, whose node names match what nvcc-built
// programs require: cudaMalloc@libcudart.so.13).
#define WARPSIM_EXPORT __attribute__((visibility("default")))
#define CUDART_API extern "C" WARPSIM_EXPORT
