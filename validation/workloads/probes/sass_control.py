#!/usr/bin/env python3
"""cuobjdump -sass output of one kernel with each instruction's control bits decoded (sm_70+:
the high word's bits 41-44 stall cycles, 46-48 the scoreboard the instruction sets on its result
(- none: fixed latency), 49-51 the one it sets on reading its sources, 52-57 the scoreboards it
waits for).  usage: sass_control.py SASS_FILE KERNEL_SUBSTRING"""
import re
import sys

lines = open(sys.argv[1]).read().split('\n')
on = False
for i, l in enumerate(lines):
    if 'Function :' in l:
        on = sys.argv[2] in l
    m = re.match(r'\s+/\*([0-9a-f]{4})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/', l)
    if on and m and i + 1 < len(lines):
        hi = int(re.search(r'/\* (0x[0-9a-f]+) \*/', lines[i + 1]).group(1), 16)
        stall, wb, rb, wm = (hi >> 41) & 0xf, (hi >> 46) & 7, (hi >> 49) & 7, (hi >> 52) & 0x3f
        ins = re.sub(r'\s+', ' ', m.group(2))
        waits = ''.join(str(b) for b in range(6) if wm >> b & 1)
        print(f"{m.group(1)} {ins:50s} stall={stall:2d} sets={'-' if wb == 7 else wb} "
              f"reads={'-' if rb == 7 else rb} waits={waits}")
