#!/bin/bash
# Issue 26, int64: whether creating the timed pipelines with CAPTURE_STATISTICS /
# CAPTURE_INTERNAL_REPRESENTATIONS (for the compiler statistics) changes their speed: p3lab's
# best int64 variants with the flags (as always) and without (P3LAB_NO_CAPTURE=1), twice each,
# interleaved, between two vkpeak int64-scalar runs.
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i26-vkpeak/run-int64-capture.sh /tmp/i26i
O=${1:-/tmp/i26i}; mkdir -p $O
F="--filter int64-vk-wg128-c2 --filter int64-vk-long-wg256-c2 --filter int64-mul32-wg128-c8 --filter empty-*"
.gpu/vkpeak 0 int64-scalar > $O/vkpeak1.out 2> $O/vkpeak1.log
for k in 1 2; do
  .gpu/p3lab peak --profile full $F --out $O/capture$k --cache-dir $O/cache > $O/capture$k.out 2> $O/capture$k.log
  P3LAB_NO_CAPTURE=1 .gpu/p3lab peak --profile full $F --out $O/nocapture$k --cache-dir $O/cache > $O/nocapture$k.out 2> $O/nocapture$k.log
done
.gpu/vkpeak 0 int64-scalar > $O/vkpeak2.out 2> $O/vkpeak2.log
rm -rf $O/cache
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/*/results.csv $O/*/run.json $O/*.log $O/*.out 2>/dev/null
