#!/usr/bin/env bash
# One device call (2026-11-27, session 45): issue 43's trace and roofline on a GPU, issue 41's
# process-level SD measured there and the A/A of two suite processes judged with it.
#   run with the device tool: for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig;
#   bash reports/gpu-s45/run.sh
set -x
P=.gpu/p3lab
O=${OUT:-/tmp/out}
peaks=reports/nvidia-h100/i39/call3/peak/peaks.csv
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
# 1. A timeline trace and a roofline: the reduction ladder with counters, the H100 peaks of
#    issue 39 (another card of the same model: accepted with a note where the driver matches).
$P run scenarios/reduction.toml --out $O/trace-run --peaks $peaks --trace $O/trace-reduction.json -q \
  || $P run scenarios/reduction.toml --out $O/trace-run --peaks $peaks --force-peaks --replace \
       --trace $O/trace-reduction.json -q
$P report $O/trace-run -o $O/trace-run-report -q
# 2. The process-level SD of this GPU: 6 fresh processes of the built-in reference set.
{ time $P calibrate-process --out $O/calib -n 6 ; } > $O/calib.txt 2>&1
# 3. A/A: two processes of the whole suite, compared with the measured SD from the cache.
for i in 1 2; do
  $P run scenarios/ --out $O/aa$i --peaks $peaks -q > $O/aa$i.summary 2> $O/aa$i.log \
    || $P run scenarios/ --out $O/aa$i --peaks $peaks --force-peaks --replace -q > $O/aa$i.summary 2> $O/aa$i.log
done
$P compare $O/aa1 $O/aa2 -o $O/aa-compare > $O/aa-compare.txt 2>&1
$P report $O/aa1 -o $O/aa1-report -q
# Keep what travels back small: the run folders' tables gzipped.
for d in $O/aa1 $O/aa2 $O/trace-run; do gzip -9 $d/samples.csv $d/metrics.csv 2>/dev/null; done
gzip -9 -k $O/trace-reduction.json
du -sh $O/*
