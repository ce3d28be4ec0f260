#!/usr/bin/env bash
# Configures and builds warpsim (Release) in build/, installing missing packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSIM_TESTS=ON -DWARPSIM_BENCH=ON >/dev/null
ninja -C build
