#!/usr/bin/env bash
# Session 47's fourth device call (issue 43): the record's timeline on a real GPU: smoke
# at full size with the CUPTI counters and a timeline trace drawn from each
# variant's record (`--trace`), with call 2's peaks; the trace checked for one slice per
# samples.csv repetition and counter tracks (reports/gpu-s47/check_trace.py).
#   with the device tool, carry [".gpu"]:
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; OUT=$OUT bash reports/gpu-s47/call4.sh
set -x
O=${OUT:-/tmp/out}
W=/tmp/s47
mkdir -p $W $O
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,uuid,driver_version --format=csv
  .gpu/p3lab --version
} > $O/machine.txt 2>&1
s=$(date +%s)
timeout -s INT 240 .gpu/p3lab run scenarios/smoke.toml --profile auto \
  --peaks reports/nvidia-h200/s47/peak/peaks.csv --trace $W/trace.json --out $W/run -q > $W/run.txt 2> $W/run.log
mv $W/trace.json $W/run/ 2>/dev/null
echo "run: exit $? in $(( $(date +%s) - s )) s" >> $O/machine.txt
python3 reports/gpu-s47/check_trace.py $W/run > $O/check_trace.txt 2>&1
echo "check_trace: exit $?" >> $O/machine.txt
mv $W/run.txt $W/run.log $W/run/ 2>/dev/null
(cd $W && gzip -9 run/*.csv run/trace.json; tar czf $O/run.tgz run)
ls -la $O
