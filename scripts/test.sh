#!/usr/bin/env bash
# Builds warpsim and runs every test: unit and integration tests (CTest), then the parser fuzzer
# for a bounded time (FUZZ_SECONDS, default 60; 0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
if [[ "${FUZZ_SECONDS:-60}" != "0" ]]; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
fi
