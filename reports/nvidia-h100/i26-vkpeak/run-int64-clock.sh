#!/bin/bash
# Issue 26, int64: p3lab's int64 unit (the vkpeak-form variants) and vkpeak's int64-scalar test
# in one call, vkpeak before and after p3lab, with nvidia-smi sampling the SM clock, power and
# temperature every 20 ms, for whether the two ran at the same clock.
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i26-vkpeak/run-int64-clock.sh /tmp/i26c
O=${1:-/tmp/i26c}; mkdir -p $O
mark() { echo "$1 $(date '+%Y/%m/%d %H:%M:%S.%3N')" >> $O/marks.txt; }
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 20 > $O/smi.csv 2>&1 &
S=$!
sleep 1
mark vkpeak1-start; .gpu/vkpeak 0 int64-scalar > $O/vkpeak1.out 2> $O/vkpeak1.log; mark vkpeak1-end
mark p3lab-start
.gpu/p3lab peak --profile full --filter 'int64-vk*' --filter 'int64-o0*' --filter 'int64-mul32-wg128-c8' --filter 'empty-*' \
  --out $O/peak --cache-dir $O/cache -v > $O/peak.out 2> $O/peak.log
mark p3lab-end
mark vkpeak2-start; .gpu/vkpeak 0 int64-scalar > $O/vkpeak2.out 2> $O/vkpeak2.log; mark vkpeak2-end
sleep 0.5; kill $S
rm -rf $O/cache
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/*.log $O/smi.csv 2>/dev/null
