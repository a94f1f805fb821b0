"""One W4A16 launch per given tile, for Nsight Compute (issue 28):
   ncu -k regex:tilec_w4a16 --section SpeedOfLight --section WarpStateStats \
       --section Occupancy python3 bench/w4a16_profile.py M N K TILE...
TILE is BMxBNxBKxSTAGES[xSPLIT_K] (the sm_80 program), with an h in front
the sm_90a one (h128x16x64x16x2); u4 with zero points, group 128, bf16."""
import sys

import torch

import tilec
from tilec import _gemm

m, n, k = (int(x) for x in sys.argv[1:4])
gen = torch.Generator().manual_seed(1)
w = torch.randn((n, k), generator=gen).to(torch.bfloat16)
q, scales, zeros = tilec.quantize_weights(w, group=128, fmt="u4")
p = tilec.pack_weights(q, scales, zeros, fmt="u4", group=128).to("cuda")
a = torch.randn((m, k), dtype=torch.bfloat16, device="cuda")
c = torch.empty((m, n), dtype=torch.bfloat16, device="cuda")
for text in sys.argv[4:]:
    arch = "sm_90a" if text.startswith("h") else "sm_80"
    tile = tuple(int(x) for x in text.lstrip("h").split("x"))
    kernel = _gemm.w4a16_kernel("bf16", "u4", 128, True, tile, arch)
    kernel(a, p.weight, c, sb=p.scales, zb=p.zeros)
torch.cuda.synchronize()
print("launched", len(sys.argv) - 4, "kernels")
