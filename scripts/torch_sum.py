#!/usr/bin/env python3
"""torch.sum over n fp32 elements on the GPU: the CUDA reference for scenarios/reduce_sum.toml.

Prints CSV lines `n,bytes,median_ns,gbytes_per_s` (bytes = 4 * n read once; GB/s = bytes / ns,
i.e. 1e9 bytes per second), the same declared work as reduce_sum's `bytes_read = "4 * n"`.
Default sizes are the scenario's full profile: 268435456 floats (1 GiB) and 1073741823 floats
(4 GiB - 4 bytes, the largest Vulkan storage buffer on the H200). Each size: 10 warm-up calls,
then 50 timed calls, each bracketed by its own CUDA events; the median is printed.
The GUIDE's figures on the H200: 260 µs (4.12 TB/s) at 1 GiB, 999 µs (4.30 TB/s) at 4 GiB.

Usage: python3 scripts/torch_sum.py [n ...]
"""
import statistics
import sys

import torch


def median_ns(x, reps=50, warmup=10):
    for _ in range(warmup):
        torch.sum(x)
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        torch.sum(x)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e6)  # ms -> ns
    return statistics.median(times)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [268435456, 1073741823]
    gen = torch.Generator(device="cuda").manual_seed(11)
    print("n,bytes,median_ns,gbytes_per_s")
    for n in sizes:
        # Uniform in [0, 1) like the scenario's input; the values do not change the time.
        x = torch.rand(n, dtype=torch.float32, device="cuda", generator=gen)
        # Check the sum once (f64 on the GPU) so a broken setup cannot print a fast time.
        got, want = torch.sum(x).item(), torch.sum(x, dtype=torch.float64).item()
        assert abs(got - want) <= 1e-4 * want, (got, want)
        ns = median_ns(x)
        nbytes = 4 * n
        print(f"{n},{nbytes},{ns},{nbytes / ns}")
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
