#!/usr/bin/env bash
# Regenerates the committed PTX of the bundled workloads:
#   workloads/<name>/<name>.ptx                       nvcc -arch=sm_80 -ptx            (CUDA 13)
#   tests/corpus/nvcc/<name>.sm90.ptx                 nvcc -arch=sm_90 -ptx            (CUDA 13)
#   tests/corpus/nvcc/<name>.lineinfo.sm80.ptx        nvcc -arch=sm_80 -lineinfo -ptx  (CUDA 13, some)
#   tests/corpus/nvcc/<name>.G.sm80.ptx               nvcc -arch=sm_80 -G -ptx         (CUDA 13, some)
#   tests/corpus/nvcc/<name>.sm70.ptx                 nvcc -arch=sm_70 -ptx            (CUDA 11.8/12.x:
#                                                     CUDA 13 dropped sm_70; set NVCC_SM70)
# Usage: workloads/regen_ptx.sh [name...]   (default: every workload)
# Env:   NVCC (default nvcc), NVCC_SM70 (a pre-13 nvcc; the sm70 variants are skipped when unset).
#        The committed sm70 files were made with Debian bookworm's nvidia-cuda-toolkit 11.8 (non-free):
#          NVCC_SM70='/usr/lib/nvidia-cuda-toolkit/bin/nvcc -ccbin clang-14 -I/tmp/inc118'
#        where /tmp/inc118 holds symlinks to the 11.8 headers in /usr/include for every CUDA header
#        name also present in /usr/local/include (that directory holds the CUDA 13 headers, and the
#        host compiler searches it before /usr/include; mixing 13 headers into an 11.8 compile breaks
#        it):  mkdir -p /tmp/inc118; cd /usr/local/include;
#              for e in *; do [ -e /usr/include/$e ] && ln -sfn /usr/include/$e /tmp/inc118/$e; done
#        Each program is also built with `nvcc -cudart shared -arch=sm_80` unless NO_BUILD=1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
corpus="$root/tests/corpus/nvcc"
NVCC="${NVCC:-nvcc}"
NVCC_SM70="${NVCC_SM70:-}"
mkdir -p "$corpus"

# variants that are not generated, and why (kept in sync with workloads/README.md)
no_sm70="warp_intrinsics mma_ptx sparse_gemm gemm_pipelined tensor_gemm tensor_wmma"   # redux.sync (__reduce_*_sync), ldmatrix/mma.m16n8k16, mma.sp, cp.async, bf16/tf32/int mma need sm_80
lineinfo="vecadd reduce histogram device_calls"
debug_G="vecadd device_calls"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for d in "$here"/*/; do n="$(basename "$d")"; [ -f "$d/$n.cu" ] && names+=("$n"); done
fi
for n in "${names[@]}"; do
    d="$here/$n"
    echo "== $n"
    (cd "$d" && $NVCC -arch=sm_80 -ptx "$n.cu" -o "$n.ptx")
    (cd "$d" && $NVCC -arch=sm_90 -ptx "$n.cu" -o "$corpus/$n.sm90.ptx")
    case " $lineinfo " in *" $n "*) (cd "$d" && $NVCC -arch=sm_80 -lineinfo -ptx "$n.cu" -o "$corpus/$n.lineinfo.sm80.ptx");; esac
    case " $debug_G " in *" $n "*) (cd "$d" && $NVCC -arch=sm_80 -G -ptx "$n.cu" -o "$corpus/$n.G.sm80.ptx");; esac
    case " $no_sm70 " in
        *" $n "*) echo "   sm70 variant skipped (needs sm_80 features)";;
        *) if [ -n "$NVCC_SM70" ]; then
               (cd "$d" && $NVCC_SM70 -std=c++17 -arch=sm_70 -ptx "$n.cu" -o "$corpus/$n.sm70.ptx")
           else
               echo "   sm70 variant skipped (NVCC_SM70 not set)"
           fi;;
    esac
    if [ "${NO_BUILD:-0}" != 1 ]; then
        (cd "$d" && $NVCC -cudart shared -arch=sm_80 -o "${TMPDIR:-/tmp}/$n" "$n.cu")
    fi
done
