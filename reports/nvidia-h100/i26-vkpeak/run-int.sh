#!/bin/bash
# Issue 26: the integer peaks (int64 with vkpeak's form in per-thread registers, int32) and
# vkpeak's integer tests, on the same GPU in one call.
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i26-vkpeak/run-int.sh /tmp/i26i
O=${1:-/tmp/i26i}; mkdir -p $O
.gpu/p3lab peak --profile full --filter 'int64*' --filter 'empty-*' --out $O/peak --cache-dir $O/cache -v > $O/peak.out 2> $O/peak.log
.gpu/vkpeak 0 int64-scalar,int64-vec4 > $O/vkpeak.out 2> $O/vkpeak.log
rm -rf $O/cache
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/*.log 2>/dev/null
