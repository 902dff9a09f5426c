#!/usr/bin/env python3
"""A device-to-device copy through PyTorch: the reference `p3lab peak`'s DRAM copy peak must reach.

Prints CSV lines `bytes,median_ns,gbytes_per_s` where bytes counts what is read plus what is
written (2 x the buffer), as p3lab's dram_copy declares it. Default: a 1 GiB buffer. 10 warm-up
copies, then 50 timed ones, each bracketed by its own CUDA events; the median is printed.
The GUIDE's figure on the H200: 510 µs for 1 GiB (4.21 TB/s read + write).

Usage: python3 scripts/torch_copy.py [bytes ...]
"""
import statistics
import sys

import torch


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [1 << 30]
    print("bytes,median_ns,gbytes_per_s")
    for nbytes in sizes:
        src = torch.rand(nbytes // 4, dtype=torch.float32, device="cuda")
        dst = torch.empty_like(src)
        for _ in range(10):
            dst.copy_(src)
        torch.cuda.synchronize()
        assert torch.equal(dst, src)
        times = []
        for _ in range(50):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            dst.copy_(src)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e6)  # ms -> ns
        ns = statistics.median(times)
        moved = 2 * nbytes
        print(f"{moved},{ns},{moved / ns}")
        del src, dst
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
