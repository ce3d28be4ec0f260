#!/usr/bin/env bash
# Builds NVIDIA cuda-samples programs as their Makefiles/CMakeLists do (nvcc 13, -arch=sm_80; nvcc's
# default static runtime and -cudart shared) and runs each under `warpsim run`, printing a markdown
# table: sample, build, mode, result, time. Fetches nothing: point it at your own checkout of
# https://github.com/NVIDIA/cuda-samples (its Samples/ and Common/ folders are used in place).
#
# Usage: validation/samples/run_samples.sh CUDA_SAMPLES_DIR [WARPSIM] [WORKDIR]
#   WARPSIM  the warpsim binary (default: build/warpsim beside this script's repository)
#   WORKDIR  where programs and logs go (default: /tmp/warpsim-samples)
# Environment: MODES="functional timing" (default functional), ONLY="name1 name2" to run a subset,
#   TIMEOUT seconds per run (default 900), RUNTIMES="static shared" (default both).
#
# Result: PASS when the program exits 0 and prints its own success line (or, for samples without a
# self-check, exits 0: reported as "ran"); FAIL otherwise, with the last line of its output.
set -uo pipefail
samples=${1:?usage: run_samples.sh CUDA_SAMPLES_DIR [WARPSIM] [WORKDIR]}
here=$(cd "$(dirname "$0")" && pwd)
warpsim=${2:-$here/../../build/warpsim}
work=${3:-/tmp/warpsim-samples}
modes=${MODES:-functional}
runtimes=${RUNTIMES:-static shared}
timeout_s=${TIMEOUT:-900}
S="$samples/Samples"
# Lines some samples print on a failed check while still exiting 0.
fail_re='Validation FAILURE|Result = FAIL|Test failed|MISMATCH|do not match|does not match expected'

common=(-I"$samples/Common")
mkdir -p "$work"
# Absolute: each program runs in its own folder (samples look for their data files beside them).
warpsim=$(readlink -f "$warpsim") work=$(readlink -f "$work")
[[ -x $warpsim ]] || { echo "no warpsim binary at $warpsim" >&2; exit 2; }

# name | folder under Samples/ | sources | extra nvcc flags | success regex ("" = exit status only)
# ("exit": the sample's check is its exit status) | preparation (run in the program's folder before it runs; $SRC is the sample's folder)
# | the program's arguments (where a sample's default problem takes too long to simulate functionally)
recipes=(
  "vectorAdd|0_Introduction/vectorAdd|vectorAdd.cu||Test PASSED|"
  "simpleAssert|0_Introduction/simpleAssert|simpleAssert.cu||returned OK|"
  "simpleAWBarrier|0_Introduction/simpleAWBarrier|simpleAWBarrier.cu||Result = PASSED|"
  "simpleCubemapTexture|0_Introduction/simpleCubemapTexture|simpleCubemapTexture.cu||exit|"
  "systemWideAtomics|0_Introduction/systemWideAtomics|systemWideAtomics.cu||returned OK|"
  "simpleOccupancy|0_Introduction/simpleOccupancy|simpleOccupancy.cu||Test PASSED|"
  "clock|0_Introduction/clock|clock.cu|||"
  "simpleZeroCopy|0_Introduction/simpleZeroCopy|simpleZeroCopy.cu||exit|"
  "fp16ScalarProduct|0_Introduction/fp16ScalarProduct|fp16ScalarProduct.cu||fp16ScalarProduct PASSED|"
  "UnifiedMemoryStreams|0_Introduction/UnifiedMemoryStreams|UnifiedMemoryStreams.cu|-Xcompiler -fopenmp -lcublas -lgomp|All Done!|"
  "asyncAPI|0_Introduction/asyncAPI|asyncAPI.cu||exit|"
  "simpleVoteIntrinsics|0_Introduction/simpleVoteIntrinsics|simpleVoteIntrinsics.cu||exit|"
  "inlinePTX|2_Concepts_and_Techniques/inlinePTX|inlinePTX.cu||Test Successful|"
  "vectorAddMMAP|0_Introduction/vectorAddMMAP|vectorAddMMAP.cpp multidevicealloc_memmap.cpp|-lcuda|Result = PASS|nvcc -arch=sm_80 -fatbin -o vectorAdd_kernel64.fatbin \$SRC/vectorAdd_kernel.cu"
  "warpAggregatedAtomicsCG|3_CUDA_Features/warpAggregatedAtomicsCG|warpAggregatedAtomicsCG.cu||Atomics PASSED|"
  "binaryPartitionCG|3_CUDA_Features/binaryPartitionCG|binaryPartitionCG.cu|||"
  "StreamPriorities|3_CUDA_Features/StreamPriorities|StreamPriorities.cu||exit|"
  "newdelete|3_CUDA_Features/newdelete|newdelete.cu||Test Summary: 3/3|"
  "cdpSimpleQuicksort|3_CUDA_Features/cdpSimpleQuicksort|cdpSimpleQuicksort.cu|-rdc=true -lcudadevrt|Validating results: OK|"
  "ptxjit|3_CUDA_Features/ptxjit|ptxjit.cpp|-lcuda|exit|nvcc -arch=sm_80 -ptx -o ptxjit_kernel64.ptx \$SRC/ptxjit_kernel.cu"
  "graphMemoryFootprint|3_CUDA_Features/graphMemoryFootprint|graphMemoryFootprint.cu||Sample complete|"
  "simplePrintf|0_Introduction/simplePrintf|simplePrintf.cu|||"
  "simpleCooperativeGroups|0_Introduction/simpleCooperativeGroups|simpleCooperativeGroups.cu|||"
  "vectorAddDrv|0_Introduction/vectorAddDrv|vectorAddDrv.cpp|-lcuda|Result = PASS|nvcc -arch=sm_80 -fatbin -o vectorAdd_kernel64.fatbin \$SRC/vectorAdd_kernel.cu"
  "simpleTemplates|0_Introduction/simpleTemplates|simpleTemplates.cu||Test Results: 0 Failures|"
  "simpleAtomicIntrinsics|0_Introduction/simpleAtomicIntrinsics|simpleAtomicIntrinsics.cu simpleAtomicIntrinsics_cpu.cpp||returned OK|"
  "matrixMul|0_Introduction/matrixMul|matrixMul.cu||Result = PASS||-wA=128 -hA=128 -wB=128 -hB=128"
  "simpleCudaGraphs|3_CUDA_Features/simpleCudaGraphs|simpleCudaGraphs.cu|||"
  "shfl_scan|2_Concepts_and_Techniques/shfl_scan|shfl_scan.cu||exit|"
  "threadFenceReduction|2_Concepts_and_Techniques/threadFenceReduction|threadFenceReduction.cu||exit|"
  "simpleHyperQ|0_Introduction/simpleHyperQ|simpleHyperQ.cu||exit|"
  "cudaOpenMP|0_Introduction/cudaOpenMP|cudaOpenMP.cu|-Xcompiler -fopenmp -lgomp|exit|"
  "simpleCUBLAS|4_CUDA_Libraries/simpleCUBLAS|simpleCUBLAS.cpp|-lcublas|simpleCUBLAS test passed|"
  "graphMemoryNodes|3_CUDA_Features/graphMemoryNodes|graphMemoryNodes.cu||Cleanup complete|"
  "jacobiCudaGraphs|3_CUDA_Features/jacobiCudaGraphs|main.cpp jacobi.cu||jacobiCudaGraphs PASSED|"
  "jacobiCudaGraphs-update|3_CUDA_Features/jacobiCudaGraphs|main.cpp jacobi.cu||jacobiCudaGraphs PASSED||-gpumethod=1"
  "graphConditionalNodes|3_CUDA_Features/graphConditionalNodes|graphConditionalNodes.cu||simpleSwitchGraph: Complete|"
  "matrixMulDrv|0_Introduction/matrixMulDrv|matrixMulDrv.cpp|-lcuda|Result = PASS|nvcc -arch=sm_80 -fatbin -o matrixMul_kernel64.fatbin \$SRC/matrixMul_kernel.cu"
  "simpleCallback|0_Introduction/simpleCallback|simpleCallback.cu multithreading.cpp||Success|"
  "simpleMultiCopy|0_Introduction/simpleMultiCopy|simpleMultiCopy.cu||exit|"
  "conjugateGradientMultiBlockCG|4_CUDA_Libraries/conjugateGradientMultiBlockCG|conjugateGradientMultiBlockCG.cu||conjugateGradientMultiBlockCG PASSED|"
  "LargeKernelParameter|6_Performance/LargeKernelParameter|LargeKernelParameter.cu||Test passed!|"
  "simpleCUFFT|4_CUDA_Libraries/simpleCUFFT|simpleCUFFT.cu|-lcufft|exit|"
  "MC_EstimatePiP|2_Concepts_and_Techniques/MC_EstimatePiP|src/main.cpp src/test.cpp src/piestimator.cu|-lcurand|Relative error|"
)

echo "| sample | runtime | mode | result | seconds | last line |"
echo "| --- | --- | --- | --- | --- | --- |"
for r in "${recipes[@]}"; do
  IFS='|' read -r name dir srcs flags ok prep args <<<"$r"
  [[ -n ${ONLY:-} && " $ONLY " != *" $name "* ]] && continue
  SRC="$S/$dir"
  if [[ ! -d $SRC ]]; then
    echo "| $name | - | - | not in this checkout | - | $dir |"
    continue
  fi
  out="$work/$name"
  mkdir -p "$out"
  for rt in $runtimes; do
    bin="$out/$name.$rt"
    rtflag=()
    [[ $rt == shared ]] && rtflag=(-cudart shared)
    files=()
    for f in $srcs; do files+=("$SRC/$f"); done
    # shellcheck disable=SC2086
    if ! nvcc -O2 -arch=sm_80 "${rtflag[@]}" "${common[@]}" -I"$SRC" -o "$bin" "${files[@]}" $flags >"$bin.build.log" 2>&1; then
      echo "| $name | $rt | - | BUILD FAILED | - | $(grep -m1 -i error "$bin.build.log" | cut -c1-120) |"
      continue
    fi
    for mode in $modes; do
      log="$bin.$mode"
      start=$(date +%s.%N)
      (cd "$out" && { [[ -z $prep ]] || SRC=$SRC bash -c "$prep" >/dev/null 2>&1; } &&
        timeout "$timeout_s" "$warpsim" run --mode "$mode" -- "$bin" $args >"$log.out" 2>"$log.err")
      rc=$?
      secs=$(echo "$(date +%s.%N) - $start" | bc)
      last=$(grep -v '^\s*$' "$log.out" | tail -1 | cut -c1-100 | tr '|' '/')
      if [[ $rc -eq 124 ]]; then
        result="TIMEOUT (${timeout_s}s)"
      elif [[ $rc -ne 0 ]]; then
        result="FAIL (exit $rc)"
        last=$(grep -v '^\s*$' "$log.err" | grep -v '^warpsim: kernel' | tail -1 | cut -c1-100 | tr '|' '/')
      elif grep -qE "$fail_re" "$log.out"; then
        result="FAIL (printed a failure)"
        last=$(grep -m1 -E "$fail_re" "$log.out" | cut -c1-100 | tr '|' '/')
      elif [[ $ok == exit ]]; then
        result=PASS
      elif [[ -n $ok ]]; then
        grep -q "$ok" "$log.out" && result=PASS || result="FAIL (no \"$ok\")"
      else
        result="ran (exit 0; no self-check)"
      fi
      printf "| %s | %s | %s | %s | %.1f | %s |\n" "$name" "$rt" "$mode" "$result" "$secs" "$last"
    done
  done
done
