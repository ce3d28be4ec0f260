#!/bin/bash
# Builds and runs one program per txq/suq query (h100_texture_queries.out: ./texture_queries.sh on
# our H100). A query the driver refuses fails the launch: cudaErrorSymbolNotFound / NotSupported.
cd "$(dirname "$0")"
for q in width height depth channel_data_type channel_order normalized_coords array_size num_mipmap_levels num_samples filter_mode addr_mode_0 addr_mode_1 addr_mode_2 force_unnormalized_coords; do
  nvcc -arch=sm_90 -DQ="\"$q\"" -DLV=1 -o qq texture_queries.cu 2>/dev/null && ./qq
done
for q in width height depth; do nvcc -arch=sm_90 -DQ="\"$q\"" -DLEVEL -DLV=8 -o qq texture_queries.cu 2>/dev/null && echo -n "level." && ./qq; done
for q in width height depth channel_data_type channel_order array_size memory_layout; do echo -n "suq."; nvcc -arch=sm_90 -DSURF -DQ="\"$q\"" -DLV=1 -o qq texture_queries.cu 2>/dev/null && ./qq || echo "(no build)"; done
