#!/usr/bin/env bash
# Fuzzes the PTX parser with libFuzzer: scripts/fuzz.sh [SECONDS] (default 60).
# FUZZ_TARGET=config fuzzes the machine-description (TOML) loader instead, seeded with configs/*.toml
# (regressions in fuzz/regressions-config/); FUZZ_TARGET=elf fuzzes `warpsim run`'s ELF check of a
# program, seeded with executables (regressions in fuzz/regressions-elf/); FUZZ_TARGET=fatbin fuzzes
# the fatbin and cubin readers, seeded with the .nv_fatbin of a workload nvcc built (regressions in
# fuzz/regressions-fatbin/); FUZZ_TARGET=all runs all four, one after the other.
#   - builds build-fuzz/ with clang and -fsanitize=fuzzer,address,undefined
#   - replays fuzz/regressions/* (fixed bugs stay fixed)
#   - fuzzes from a seed corpus made of tests/corpus/**/*.ptx, workloads/*/*.ptx and the
#     regressions, with the PTX dictionary fuzz/ptx.dict
# Exits non-zero on any crash, leak, timeout, OOM or round-trip failure (libFuzzer's own status),
# and prints where the reproducer was written.
# Environment: FUZZ_JOBS=N runs N fuzzing jobs (default 1); FUZZ_KEEP_GOING=1 uses
# -fork=N -ignore_crashes=1 to collect several distinct crashes in one run (still exits non-zero).
set -uo pipefail

SECONDS_TO_RUN="${1:-60}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${FUZZ_TARGET:-ptx}"
if [[ "$TARGET" == all ]]; then
  FUZZ_TARGET=ptx "$0" "$SECONDS_TO_RUN" || exit $?
  FUZZ_TARGET=config "$0" "$SECONDS_TO_RUN" || exit $?
  FUZZ_TARGET=elf "$0" "$SECONDS_TO_RUN" || exit $?
  exec env FUZZ_TARGET=fatbin "$0" "$SECONDS_TO_RUN"
fi
[[ "$TARGET" == ptx || "$TARGET" == config || "$TARGET" == elf || "$TARGET" == fatbin ]] ||
  { echo "fuzz.sh: FUZZ_TARGET must be ptx, config, elf, fatbin or all" >&2; exit 2; }
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
ARTIFACTS="${FUZZ_ARTIFACTS:-$BUILD/artifacts}"
JOBS="${FUZZ_JOBS:-1}"

need_install=0
command -v clang >/dev/null 2>&1 || need_install=1
command -v clang++ >/dev/null 2>&1 || need_install=1
if [[ $need_install == 0 ]]; then
  # libFuzzer's runtime comes with libclang-rt-NN-dev
  echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
    clang++ -x c++ -fsanitize=fuzzer - -o /tmp/warpsim_fuzz_probe.$$ >/dev/null 2>&1 || need_install=1
  rm -f /tmp/warpsim_fuzz_probe.$$
fi
if [[ $need_install == 1 ]]; then
  echo "== installing clang and libFuzzer runtime"
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y clang-14 libclang-rt-14-dev lld-14 || {
    echo "fuzz.sh: cannot install clang/libclang-rt-14-dev" >&2; exit 2; }
  command -v clang >/dev/null 2>&1 || { ln -sf "$(command -v clang-14)" /usr/local/bin/clang; ln -sf "$(command -v clang++-14)" /usr/local/bin/clang++; }
fi
command -v ninja >/dev/null 2>&1 || { apt-get update && apt-get install -y ninja-build; }

echo "== building $BUILD"
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" -G Ninja -DWARPSIM_FUZZ=ON -DWARPSIM_TESTS=OFF \
  -DWARPSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 2
if [[ "$TARGET" == config ]]; then
  ninja -C "$BUILD" config_loader_fuzz || exit 2
  FUZZER="$BUILD/fuzz/config_loader_fuzz"
  REGDIR="$ROOT/fuzz/regressions-config"
  DICT=()
elif [[ "$TARGET" == fatbin ]]; then
  ninja -C "$BUILD" fatbin_fuzz || exit 2
  FUZZER="$BUILD/fuzz/fatbin_fuzz"
  REGDIR="$ROOT/fuzz/regressions-fatbin"
  DICT=()
elif [[ "$TARGET" == elf ]]; then
  ninja -C "$BUILD" program_check_fuzz || exit 2
  FUZZER="$BUILD/fuzz/program_check_fuzz"
  REGDIR="$ROOT/fuzz/regressions-elf"
  DICT=()
else
  ninja -C "$BUILD" ptx_parser_fuzz || exit 2
  FUZZER="$BUILD/fuzz/ptx_parser_fuzz"
  REGDIR="$ROOT/fuzz/regressions"
  DICT=(-dict="$ROOT/fuzz/ptx.dict")
fi
ARTIFACTS="$ARTIFACTS/$TARGET"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# 1. Regressions
shopt -s nullglob
regs=("$REGDIR"/*)
if (( ${#regs[@]} )); then
  echo "== replaying ${#regs[@]} regression input(s)"
  fail=0
  for r in "${regs[@]}"; do
    if ! "$FUZZER" -timeout=10 -rss_limit_mb=2048 "$r" >"$BUILD/regression.log" 2>&1; then
      echo "REGRESSION FAILED: $r"
      tail -40 "$BUILD/regression.log"
      fail=1
    fi
  done
  if (( fail )); then exit 1; fi
  echo "   all regressions pass"
fi

# Seeds for the fatbin target: the .nv_fatbin section of vecadd built by nvcc (fatbin and, inside it,
# the compressed PTX and an ELF cubin), extracted with objcopy; nothing if nvcc or objcopy is missing.
fatbin_seeds() {
  local d="$1/fatbin-seeds"
  mkdir -p "$d"
  if command -v nvcc >/dev/null && command -v objcopy >/dev/null; then
    [[ -s "$d/vecadd.fatbin" ]] || {
      nvcc -cudart shared -arch=sm_80 -o "$d/vecadd" "$ROOT/workloads/vecadd/vecadd.cu" 2>/dev/null &&
        objcopy -O binary --only-section=.nv_fatbin "$d/vecadd" "$d/vecadd.fatbin" 2>/dev/null
      nvcc -arch=sm_80 -cubin -o "$d/vecadd.cubin" "$ROOT/workloads/vecadd/vecadd.cu" 2>/dev/null
    }
    for f in "$d/vecadd.fatbin" "$d/vecadd.cubin"; do [[ -s $f ]] && printf '%s\0' "$f"; done
  fi
}

# 2. Seed corpus
SEEDS="$(mktemp -d /tmp/warpsim-fuzz-seeds.XXXXXX)"
WORK="$(mktemp -d /tmp/warpsim-fuzz-corpus.XXXXXX)"
trap 'rm -rf "$SEEDS"' EXIT
n=0
while IFS= read -r -d '' f; do
  cp "$f" "$SEEDS/$(echo "$f" | sed "s|^$ROOT/||; s|/|_|g")"; n=$((n+1))
done < <(if [[ "$TARGET" == config ]]; then find "$ROOT/configs" -name '*.toml' -type f -print0 2>/dev/null
         elif [[ "$TARGET" == elf ]]; then printf '%s\0' "$(command -v true)" "$BUILD/fuzz/program_check_fuzz"
         elif [[ "$TARGET" == fatbin ]]; then fatbin_seeds "$BUILD"
         else find "$ROOT/tests/corpus" "$ROOT/workloads" -name '*.ptx' -type f -print0 2>/dev/null; fi)
for r in "${regs[@]}"; do cp "$r" "$SEEDS/regression_$(basename "$r")"; n=$((n+1)); done
echo "== $n seed file(s); new inputs go to $WORK; artifacts to $ARTIFACTS"
mkdir -p "$ARTIFACTS"

# 3. Fuzz. Seeds bigger than -max_len are truncated by libFuzzer (still useful).
args=(-max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 -max_len=65536
      "${DICT[@]}" -artifact_prefix="$ARTIFACTS/" -print_final_stats=1)
if [[ "${FUZZ_KEEP_GOING:-0}" == 1 ]]; then
  args+=(-fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
elif (( JOBS > 1 )); then
  args+=(-jobs="$JOBS" -workers="$JOBS")  # output of job N goes to $BUILD/fuzz-N.log
fi
echo "== $FUZZER ${args[*]} $WORK $SEEDS"
LOG="$BUILD/fuzz-$TARGET.log"
before=$(ls "$ARTIFACTS" | wc -l)
(cd "$BUILD" && "$FUZZER" "${args[@]}" "$WORK" "$SEEDS") 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
# With -jobs the output of each job goes to fuzz-N.log in $BUILD
if (( JOBS > 1 )) && [[ "${FUZZ_KEEP_GOING:-0}" != 1 ]]; then
  for l in "$BUILD"/fuzz-*.log; do cat "$l" >>"$LOG"; done
fi
after=$(ls "$ARTIFACTS" | wc -l)
if (( rc != 0 || after > before )); then
  echo "== FUZZING FOUND A PROBLEM (libFuzzer exit $rc). Reproducer(s):"
  grep -hoE "(Test unit|artifact_prefix|crash|leak|timeout|oom|slow-unit)[^ ]* written to [^ ]+" "$LOG" | sort -u
  ls -1t "$ARTIFACTS" | head -20 | sed "s|^|  $ARTIFACTS/|"
  echo "Minimise with: $FUZZER -minimize_crash=1 -runs=20000 FILE; keep it in fuzz/regressions/."
  (( rc != 0 )) || rc=1
  exit $rc
fi
echo "== no crash in ${SECONDS_TO_RUN}s"
exit 0
