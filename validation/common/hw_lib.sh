# shellcheck shell=bash
# What validation/sm/measure_hw.sh and validation/mem/measure_hw.sh share (sourced, not run): the
# record of the measuring conditions in OUT/env.txt and the clock sampler running beside the
# benchmarks. A suite's script does, around its own run.sh calls:
#   hw_env_begin OUT QUERY...   env.txt: date, host, `nvidia-smi --query-gpu=QUERY` per QUERY, nvcc,
#                               `nvidia-smi -q -d CLOCK` before
#   hw_sampler_start OUT MS     OUT/clock_samples.csv: SM and memory clock every MS ms
#   hw_sampler_stop
#   hw_env_end OUT              appends `nvidia-smi -q -d CLOCK` after

hw_sampler=""

hw_env_begin() {
    local out=$1 q
    shift
    {
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "host: $(uname -srm)"
        for q in "$@"; do
            nvidia-smi --query-gpu="$q" --format=csv
        done
        nvcc --version | tail -2
        echo "== nvidia-smi -q -d CLOCK (before)"
        nvidia-smi -q -d CLOCK
    } > "$out/env.txt" 2>&1
}

hw_sampler_start() {
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms "$2" > "$1/clock_samples.csv" 2>&1 &
    hw_sampler=$!
}

hw_sampler_stop() {
    kill "$hw_sampler" 2>/dev/null
    wait "$hw_sampler" 2>/dev/null
}

hw_env_end() {
    {
        echo "== nvidia-smi -q -d CLOCK (after)"
        nvidia-smi -q -d CLOCK
    } >> "$1/env.txt" 2>&1
}
