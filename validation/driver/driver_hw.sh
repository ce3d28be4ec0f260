#!/usr/bin/env bash
# Runs the driver-API test programs on a real GPU with the real driver, for their expected outputs
# (tests/cudart/driver_api.expected, curand_host.expected, cufft_host.expected,
# cublas_host.expected, cublas_gemm.expected, texture_layered.expected, texture_mipmap.expected, cusolver_host.expected,
# cusparse_host.expected, graph_nodes.expected, capture_to_graph.expected, runtime_apis.expected, hopper_tma.expected = h100_hopper_tma.out,
# managed_api.expected = h100_managed_api.out, cublas_more.expected = h100_cublas_more.out, cusolver_big.expected = h100_cusolver_big.out,
# cub_device.expected, cub_device.small.expected, thrust_more.expected, libcu_more.expected,
# curand_gens.expected, cusparse_more.expected, cublas_ex.expected, cufft_big.expected, cg_big_tiles.expected = h100_NAME.out; mufu_results.expected = h100_mufu_results.out, compared column by column by mufu_results_check.py; cub_device and libcu_more also built for sm_80, same output) and to check that programs built with
# nvcc's default static runtime print what their shared-runtime builds print.
# Usage: validation/driver/driver_hw.sh OUTDIR
set -uo pipefail
out=${1:?usage: driver_hw.sh OUTDIR}
mkdir -p "$out"
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
b=$(mktemp -d)
nvcc -arch=sm_90 -o "$b/driver_api" tests/cudart/driver_api.cu -lcuda 2> "$out/nvcc.txt"
nvcc -arch=sm_90 -cudart shared -o "$b/curand_host" tests/cudart/curand_host.cu -lcurand 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/curand_host_static" tests/cudart/curand_host.cu -lcurand 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/api_basics_static" tests/cudart/api_basics.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -cudart shared -o "$b/api_basics" tests/cudart/api_basics.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/runtime_misc_static" tests/cudart/runtime_misc.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cufft_host" tests/cudart/cufft_host.cu -lcufft 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cublas_host" tests/cudart/cublas_host.cu -lcublas 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cublas_gemm" tests/cudart/cublas_gemm.cu -lcublas 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/texture_layered" tests/cudart/texture_layered.cu -lcuda 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/texture_mipmap" tests/cudart/texture_mipmap.cu -lcuda 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/mufu_results" tests/cudart/mufu_results.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/nvrtc_jit" tests/cudart/nvrtc_jit.cu -lnvrtc -lcuda 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cusolver_host" tests/cudart/cusolver_host.cu -lcusolver -lcublas 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cusparse_host" tests/cudart/cusparse_host.cu -lcusparse 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/graph_nodes" tests/cudart/graph_nodes.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/runtime_apis" tests/cudart/runtime_apis.cu -lcuda 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/capture_to_graph" tests/cudart/capture_to_graph.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90a -o "$b/hopper_tma" tests/cudart/hopper_tma.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/managed_api" tests/cudart/managed_api.cu -lcuda 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cublas_more" tests/cudart/cublas_more.cu -lcublas -lcublasLt 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cusolver_big" tests/cudart/cusolver_big.cu -lcusolver -lcublas 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -cudart shared -o "$b/cub_device" tests/cudart/cub_device.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_80 -cudart shared -o "$b/cub_device_sm80" tests/cudart/cub_device.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -cudart shared --extended-lambda -o "$b/thrust_more" tests/cudart/thrust_more.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -cudart shared -o "$b/libcu_more" tests/cudart/libcu_more.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_80 -cudart shared -o "$b/libcu_more_sm80" tests/cudart/libcu_more.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -cudart shared -o "$b/curand_gens" tests/cudart/curand_gens.cu -lcurand 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cusparse_more" tests/cudart/cusparse_more.cu -lcusparse 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -o "$b/cublas_ex" tests/cudart/cublas_ex.cu -lcublas -lcublasLt 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -O2 -o "$b/cufft_big" tests/cudart/cufft_big.cu -lcufft 2>> "$out/nvcc.txt"
nvcc -arch=sm_80 -O2 -cudart shared -o "$b/cufft_big_sm80" tests/cudart/cufft_big.cu -lcufft 2>> "$out/nvcc.txt"
nvcc -arch=sm_80 -cudart shared -o "$b/cg_big_tiles" tests/cudart/cg_big_tiles.cu 2>> "$out/nvcc.txt"
nvcc -arch=sm_90 -cudart shared -o "$b/cg_big_tiles_sm90" tests/cudart/cg_big_tiles.cu 2>> "$out/nvcc.txt"
CUB_DEVICE_SCALE=64 "$b/cub_device" > "$out/cub_device.small.stdout" 2> "$out/cub_device.small.stderr"
for p in driver_api curand_host curand_host_static api_basics_static api_basics runtime_misc_static cufft_host cublas_host \
         cublas_gemm cusolver_host cusparse_host nvrtc_jit texture_layered texture_mipmap graph_nodes runtime_apis hopper_tma \
         capture_to_graph managed_api cublas_more cusolver_big cub_device cub_device_sm80 thrust_more libcu_more libcu_more_sm80 \
         curand_gens cusparse_more cublas_ex cufft_big cufft_big_sm80 mufu_results cg_big_tiles cg_big_tiles_sm90; do
  "$b/$p" > "$out/$p.stdout" 2> "$out/$p.stderr"
  echo "$p exit $?" >> "$out/exit.txt"
done
