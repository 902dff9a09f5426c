#!/bin/bash
# Issue 26, last: every p3lab peak unit at full size (int32 and int64 now with vkpeak's kernels
# verbatim, peaks/int32_vk.toml and int64_vk.toml) between two vkpeak runs on the same GPU in one
# call (all of vkpeak's compute tests before; those nearest p3lab's after), nvidia-smi sampling
# the SM clock every 20 ms. `python3 table.py DIR` takes the higher of vkpeak's two runs.
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i26-vkpeak/run-final.sh /tmp/i26f; tar -C /tmp -czf $OUT/i26f.tgz i26f
O=${1:-/tmp/i26f}; mkdir -p $O
mark() { echo "$1 $(date '+%Y/%m/%d %H:%M:%S.%3N')" >> $O/marks.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,serial --format=csv > $O/nvidia-smi.csv
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 20 > $O/smi.csv 2>&1 &
S=$!
sleep 1
mark vkpeak1-start
.gpu/vkpeak 0 fp32-scalar,fp32-vec4,fp16-scalar,fp16-vec4,fp16-matrix,fp64-scalar,fp64-vec4,int32-scalar,int32-vec4,int16-scalar,int16-vec4,int64-scalar,int64-vec4,int8-dotprod,int8-matrix,bf16-matrix \
  > $O/vkpeak1.out 2> $O/vkpeak1.log
mark vkpeak1-end
mark peak-start
.gpu/p3lab peak --out $O/peak --cache-dir $O/cache -v > $O/peak.out 2> $O/peak.log
mark peak-end
mark vkpeak2-start
.gpu/vkpeak 0 int32-scalar,int32-vec4,int64-scalar,fp16-matrix,bf16-matrix,int8-matrix > $O/vkpeak2.out 2> $O/vkpeak2.log
mark vkpeak2-end
sleep 0.5; kill $S
rm -rf $O/cache
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/*/results.csv $O/*/run.json $O/*.log $O/smi.csv 2>/dev/null
