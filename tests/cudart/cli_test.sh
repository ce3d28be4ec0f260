#!/usr/bin/env bash
# `warpsim gpus`, `warpsim info --gpu`, unknown GPU names and --mode timing give clear answers.
set -uo pipefail
w=$1
fail() { echo "FAIL: $*"; exit 1; }
out=$("$w" gpus) || fail "warpsim gpus exited with $?"
grep -q '^a100 ' <<<"$out" || fail "warpsim gpus does not list a100: $out"
out=$("$w" info --gpu a100) || fail "warpsim info --gpu a100 exited with $?"
for f in "compute capability        8.0" "SMs                       108" "registers per SM          65536" \
         "shared memory per SM      164 KB" "SM clock                  1410 MHz"; do
  grep -qF "$f" <<<"$out" || fail "info lacks '$f': $out"
done
err=$("$w" info --gpu z80 2>&1) && fail "info --gpu z80 succeeded"
grep -q "unknown GPU 'z80' (known: a100" <<<"$err" || fail "info --gpu z80: $err"
err=$("$w" run --gpu z80 -- true 2>&1) && fail "run --gpu z80 succeeded"
grep -q "unknown GPU 'z80' (known: a100" <<<"$err" || fail "run --gpu z80: $err"
err=$("$w" run --mode timing -- true 2>&1) && fail "run --mode timing succeeded"
grep -q "timing mode is not available yet; use --mode functional" <<<"$err" || fail "run --mode timing: $err"
echo "PASS: cli"
