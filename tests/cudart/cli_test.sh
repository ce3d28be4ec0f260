#!/usr/bin/env bash
# `warpsim gpus`, `warpsim info --gpu`, unknown GPU names and modes give clear answers.
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
err=$("$w" run --mode cyclic -- true 2>&1) && fail "run --mode cyclic succeeded"
grep -q "unknown mode 'cyclic' (timing or functional)" <<<"$err" || fail "run --mode cyclic: $err"
"$w" run --mode timing -- true || fail "run --mode timing -- true failed"
# The program's malloc gets transparent huge pages (main.cpp, set_malloc_tunables) unless the user
# set hugetlb or WARPSIM_MALLOC_THP=0; other tunables the user set are kept.
out=$(env -u GLIBC_TUNABLES "$w" run -- printenv GLIBC_TUNABLES) || fail "run -- printenv failed"
[[ $out == glibc.malloc.hugetlb=1 ]] || fail "GLIBC_TUNABLES is '$out', expected glibc.malloc.hugetlb=1"
out=$(GLIBC_TUNABLES=glibc.malloc.arena_max=2 "$w" run -- printenv GLIBC_TUNABLES) || fail "run -- printenv failed"
[[ $out == glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1 ]] || fail "user tunables not kept: '$out'"
out=$(GLIBC_TUNABLES=glibc.malloc.hugetlb=0 "$w" run -- printenv GLIBC_TUNABLES) || fail "run -- printenv failed"
[[ $out == glibc.malloc.hugetlb=0 ]] || fail "user's hugetlb overridden: '$out'"
out=$(env -u GLIBC_TUNABLES WARPSIM_MALLOC_THP=0 "$w" run -- printenv GLIBC_TUNABLES) && fail "WARPSIM_MALLOC_THP=0 still set GLIBC_TUNABLES='$out'"
# Machines as data: the built-ins, a .toml file, --set overrides, and clear errors.
out=$("$w" gpus) || fail "warpsim gpus exited with $?"
for n in a100 a100-80gb ga100-full v100 g80 h100; do
  grep -q "^$n " <<<"$out" || fail "warpsim gpus does not list $n: $out"
done
out=$("$w" info --gpu g80) || fail "warpsim info --gpu g80 exited with $?"
for f in "GeForce 8800 Ultra" "compute capability        1.0" "SMs                       16 = 1 GPCs x [8] TPCs x 2" \
         "g80: 1 sub-core(s)"; do
  grep -qF "$f" <<<"$out" || fail "info --gpu g80 lacks '$f': $out"
done
err=$("$w" info --gpu nosuch 2>&1) && fail "info --gpu nosuch succeeded"
grep -q "unknown GPU 'nosuch' (known: a100" <<<"$err" || fail "info --gpu nosuch: $err"
err=$("$w" info --gpu a100 --set sm.max_warps=abc 2>&1) && fail "info --set sm.max_warps=abc succeeded"
grep -q "a100.toml: sm.max_warps: expected an integer" <<<"$err" || fail "info --set sm.max_warps=abc: $err"
err=$("$w" run --gpu a100 --set sm.max_warps=abc -- true 2>&1) && fail "run --set sm.max_warps=abc succeeded"
grep -q "sm.max_warps" <<<"$err" || fail "run --set sm.max_warps=abc: $err"
err=$("$w" info --gpu a100 --set sm.max_wraps=64 2>&1) && fail "info --set sm.max_wraps succeeded"
grep -q "unknown key 'sm.max_wraps'" <<<"$err" || fail "info --set sm.max_wraps=64: $err"
out=$("$w" info --gpu a100 --set ops.ld_global.latency=300 --set sm.scheduler=lrr) || fail "info --set exited with $?"
grep -q "lrr scheduler" <<<"$out" || fail "info --set sm.scheduler=lrr not applied: $out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'inherits = "a100"\n[gpu]\nname = "Slow A100"\nsm_clock_mhz = 705\n' >"$tmp/slow.toml"
out=$("$w" info --gpu "$tmp/slow.toml") || fail "info --gpu FILE.toml exited with $?"
grep -q "SM clock                  705 MHz" <<<"$out" || fail "info --gpu slow.toml: $out"
echo "PASS: cli"
