#!/usr/bin/env bash
# The runs behind reports/nvidia-h200/core/ (issue: p3lab core). Run from the repo root on the
# GPU machine with the release binary at .gpu/p3lab; results land in $1 (default /tmp/core).
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/core}
mkdir -p "$O"
BIG="--set n=16777216 --set width=4096 --set height=4096"
$P devices --format json > "$O/devices.json"
$P devices > "$O/devices.txt"
$P -q run scenarios/smoke.toml --out "$O/smoke"
$P -q run scenarios/smoke.toml $BIG --out "$O/smoke-16M"
# The clock-ramp effect: the same sweep with only 2 warm-up repetitions and no time-based warm-up.
$P -q run scenarios/smoke.toml $BIG --warmup 2 --warmup-ms 0 --out "$O/smoke-16M-nowarm"
$P -q run docs/example/saxpy.toml --out "$O/saxpy"
$P -q run docs/example/saxpy.toml --set n=67108864 --out "$O/saxpy-64M"
$P -q run tests/data/scenarios --out "$O/tests"
echo "exit codes are in the logs; tests/ is expected to exit 3 (one compile_error, one check_failed)"
