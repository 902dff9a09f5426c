#!/bin/bash
# Issue 26, int64: vkpeak's int64 kernel verbatim in p3lab (peaks/int64_vk.toml, its stores
# checked on the CPU; with and without p3lab's subgroup probe) beside int.comp's self-checking
# vkpeak form, then the verbatim kernel at vkpeak's own size (64 Mi invocations in workgroups of
# 32, 2048 iterations: a 430 ms dispatch), vkpeak's int64-scalar before and after, nvidia-smi
# sampling the SM clock every 20 ms. p3lab runs twice, vkpeak four times (before, between, after).
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i26-vkpeak/run-int64-vkx.sh /tmp/i26x; tar -C /tmp -czf $OUT/i26x.tgz i26x
O=${1:-/tmp/i26x}; mkdir -p $O
mark() { echo "$1 $(date '+%Y/%m/%d %H:%M:%S.%3N')" >> $O/marks.txt; }
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 20 > $O/smi.csv 2>&1 &
S=$!
sleep 1
mark vkpeak1-start; .gpu/vkpeak 0 int64-scalar > $O/vkpeak1.out 2> $O/vkpeak1.log; mark vkpeak1-end
for k in 1 2; do
  mark peak$k-start
  .gpu/p3lab peak --profile full --filter 'int64-vkx*' --filter 'int64-vk-wg128-c2' --filter 'int64-vk-long-wg256-c2' \
    --filter 'empty-*' --out $O/peak$k --cache-dir $O/cache -v > $O/peak$k.out 2> $O/peak$k.log
  mark peak$k-end
  mark vkpeak$((k+1))-start; .gpu/vkpeak 0 int64-scalar > $O/vkpeak$((k+1)).out 2> $O/vkpeak$((k+1)).log; mark vkpeak$((k+1))-end
done
mark big-start
.gpu/p3lab run peaks/int64_vk.toml --set threads=67108864 --set wg=32 --set loop=2048 \
  --rounds 3 --max-rounds 3 --placements 1 --out $O/big -v > $O/big.out 2> $O/big.log
mark big-end
mark vkpeak4-start; .gpu/vkpeak 0 int64-scalar > $O/vkpeak4.out 2> $O/vkpeak4.log; mark vkpeak4-end
sleep 0.5; kill $S
rm -rf $O/cache
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/*.log $O/smi.csv 2>/dev/null
