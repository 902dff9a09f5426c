#!/usr/bin/env bash
# Device-loss recovery on the GPU: tests/data/hang/hang.toml has a variant that keeps the GPU
# busy for about 3.6 s against a 1 s fence timeout. Expected: `before` ok, `hangs` error (the
# fence timed out), `after` ok and checked on a recreated device, run.json device_recreated = 1.
# The work is bounded, so the GPU frees itself afterwards without a reset.
#   bash reports/nvidia-h200/run-hang.sh /tmp/hang
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/hang}
timeout -s KILL 120 $P run tests/data/hang/hang.toml --out "$O"
echo "exit $?"
# Is the GPU free again?
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv
# History: on 2026-11-21 a first attempt (65535 iterations) finished in 1.2 s, before the
# 1.5 s timeout; during a second one (2^21 iterations, about 40 s) the device machine stopped
# answering and was taken back, cause not established. This bounded version replaced both.
