#!/bin/bash
# Issue 26: every peak unit at full size (`p3lab peak`, int64 now with peaks/int64_vk.toml),
# between vkpeak's int64-scalar runs, with nvidia-smi sampling the SM clock every 20 ms.
# Arguments after the folder go to `p3lab peak` (e.g. --filter 'int64*').
# VK=tests,... picks vkpeak's tests (default int64-scalar).
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i26-vkpeak/run-peak-int64.sh /tmp/i26p; tar -C /tmp -czf $OUT/i26p.tgz i26p
O=${1:-/tmp/i26p}; mkdir -p $O; shift
mark() { echo "$1 $(date '+%Y/%m/%d %H:%M:%S.%3N')" >> $O/marks.txt; }
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 20 > $O/smi.csv 2>&1 &
S=$!
sleep 1
mark vkpeak1-start; .gpu/vkpeak 0 ${VK:-int64-scalar} > $O/vkpeak1.out 2> $O/vkpeak1.log; mark vkpeak1-end
mark peak-start
.gpu/p3lab peak "$@" --out $O/peak --cache-dir $O/cache -v > $O/peak.out 2> $O/peak.log
mark peak-end
mark vkpeak2-start; .gpu/vkpeak 0 ${VK:-int64-scalar} > $O/vkpeak2.out 2> $O/vkpeak2.log; mark vkpeak2-end
mark vkpeak3-start; .gpu/vkpeak 0 ${VK:-int64-scalar} > $O/vkpeak3.out 2> $O/vkpeak3.log; mark vkpeak3-end
sleep 0.5; kill $S
rm -rf $O/cache
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/*/results.csv $O/*/run.json $O/*.log $O/*.out $O/smi.csv 2>/dev/null
