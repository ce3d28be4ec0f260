#!/usr/bin/env bash
# Builds the PTX parse benchmark in Release and runs it: scripts/bench.sh [benchmark args...]
#   e.g. scripts/bench.sh --size 64 --runs 5 --write /tmp/large.ptx
# Figures: input MB, best/median parse time, parse and print MB/s, instructions/s (one core).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BENCH_BUILD_DIR:-$ROOT/build-bench}"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSIM_TESTS=OFF \
  -DWARPSIM_BENCH=ON -DWARPSIM_FUZZ=OFF >/dev/null
ninja -C "$BUILD" warpsim_bench_parse
echo "== $(uname -m), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Single-threaded by construction; pin to one core when taskset is there to cut noise.
if command -v taskset >/dev/null 2>&1; then
  exec taskset -c "${BENCH_CPU:-0}" "$BUILD/bench/warpsim_bench_parse" "$@"
fi
exec "$BUILD/bench/warpsim_bench_parse" "$@"
