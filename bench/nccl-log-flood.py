#!/usr/bin/env python3
"""Write an NCCL log of 16,384 ranks on one host, each named by an Init line
and a channel line, repeated REPEAT times (default 4).

  nccl-log-flood.py ordinary [REPEAT]   ranks 0..16383
  nccl-log-flood.py colliding [REPEAT]  ranks whose hash under the rank table's
                                        former hash (FNV-1a of the int's 4 bytes,
                                        seed 1) agree in the low 16 bits

The colliding set is issue 25 item 6's reproducer; tests/unit/test-nccllog.c
(test_rank_flood) builds the same set and bounds the table's probes.
"""
import sys

N = 16384
OFFSET, PRIME = 1469598103934665603, 1099511628211
M = PRIME & 0xFFFF


def colliding(n, want=0x5A00):
    # The low 16 bits of FNV-1a depend only on the low 16 bits of the state,
    # and the last byte touches only the low 8: the state before it must be
    # 0x5aXX, and the last byte is then fixed.
    out = []
    h0 = (OFFSET ^ 1) & 0xFFFF
    for b0 in range(256):
        h1 = ((h0 ^ b0) * M) & 0xFFFF
        for b1 in range(256):
            h2 = ((h1 ^ b1) * M) & 0xFFFF
            for b2 in range(256):
                h3 = ((h2 ^ b2) * M) & 0xFFFF
                x = h3 ^ want
                if x >> 8 or x > 0x7F:
                    continue
                out.append(b0 | b1 << 8 | b2 << 16 | x << 24)
                if len(out) == n:
                    return out
    return out


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "ordinary"
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    ranks = colliding(N) if kind == "colliding" else list(range(N))
    w = sys.stdout.write
    w("NCCL version 2.21.5+cuda12.4\n")
    for _ in range(repeat):
        for r in ranks:
            w(f"node0:100:200 [0] NCCL INFO ncclCommInitRank comm 0x1 rank {r} nranks {N} "
              f"cudaDev 0 nvmlDev 0 busId 18000 commId 0x2 - Init START\n")
            w(f"node0:100:200 [0] NCCL INFO Channel 00/0 : {r}[0] -> {r}[0] [send] via NET/IB/0/GDRDMA\n")


if __name__ == "__main__":
    main()
