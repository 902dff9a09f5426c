#!/bin/bash
# callP: what is left between p3lab's verbatim int kernels and vkpeak's on a card where p3lab read
# under (callO): the SPIR-V optimizer (shaderc's performance level against none, as vkpeak hands
# glslang's output to the driver), p3lab's subgroup probe, and int64 at 64 Mi invocations
# (exp/*.toml), between vkpeak's int32 and int64 runs.
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i26-vkpeak/run-exp.sh /tmp/i26e; tar -C /tmp -czf $OUT/i26e.tgz i26e
O=${1:-/tmp/i26e}; mkdir -p $O
mark() { echo "$1 $(date '+%Y/%m/%d %H:%M:%S.%3N')" >> $O/marks.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,serial --format=csv > $O/nvidia-smi.csv
mark vkpeak1-start; .gpu/vkpeak 0 int32-scalar,int64-scalar > $O/vkpeak1.out 2> $O/vkpeak1.log; mark vkpeak1-end
mark run-start
.gpu/p3lab run reports/nvidia-h100/i26-vkpeak/exp/*.toml --placements 1 --out $O/exp -v > $O/exp.out 2> $O/exp.log
mark run-end
mark vkpeak2-start; .gpu/vkpeak 0 int32-scalar,int64-scalar > $O/vkpeak2.out 2> $O/vkpeak2.log; mark vkpeak2-end
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/*/results.csv $O/*/run.json $O/*.log $O/*.out 2>/dev/null
