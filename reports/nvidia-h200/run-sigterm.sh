#!/usr/bin/env bash
# Where the time goes between SIGTERM and exit while a long batch runs on the GPU:
#   bash reports/nvidia-h200/run-sigterm.sh /tmp/sig
# Three runs of reduce_sum at full size with batches of 100 000 repetitions (each batch runs
# for seconds): SIGTERM, then SIGKILL (no p3lab code runs: the kernel's teardown alone), then
# SIGTERM again. For each: ms from the signal to p3lab's "stopping now" line (polled every
# 5 ms) and to the process's exit.
set -u
P=${P3LAB:-.gpu/p3lab}
O=${1:-/tmp/sig}
mkdir -p "$O"
export P3LAB_CACHE_DIR=$O/cache
ms() { echo $(( $(date +%s%N) / 1000000 )); }
for k in TERM KILL TERM; do
  d="$O/$k-$(ms)"
  $P run scenarios/reduce_sum.toml --profile full --reps 100000 --warmup-ms 0 --out "$d" \
    > /dev/null 2> "$d.log" &
  pid=$!
  sleep 12
  t0=$(ms)
  kill -$k $pid
  said=""
  while kill -0 $pid 2>/dev/null; do
    if [ -z "$said" ] && grep -q "stopping now" "$d.log" 2>/dev/null; then said=$(( $(ms) - t0 )); fi
    sleep 0.005
  done
  wait $pid
  code=$?
  echo "SIG$k: exit $code, 'stopping now' after ${said:-none} ms, exit after $(( $(ms) - t0 )) ms" | tee -a "$O/sigterm.txt"
done
rm -rf "$O/cache"
