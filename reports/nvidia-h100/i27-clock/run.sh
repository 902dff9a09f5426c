#!/bin/bash
# Issue 27: the clock gauge, before (79b5985, `p3lab-old`) and after (`p3lab`), in one device
# call on one GPU, runs interleaved old/new so that neither always comes first. nvidia-smi
# samples the SM clock and its clock-event reasons every 20 ms beside them.
#   for f in .gpu/*.deb; do dpkg -x $f /; done; ldconfig; bash reports/nvidia-h100/i27-clock/run.sh /tmp/i27c
O=${1:-/tmp/i27c}; mkdir -p $O
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv -lms 20 > $O/smi.csv &
SMI=$!
n=0
for b in old new old new; do
    n=$((n + 1))
    bin=.gpu/p3lab; [ $b = old ] && bin=.gpu/p3lab-old
    echo "$(date +%T.%N) start $b-$n suite" >> $O/steps.txt
    $bin run scenarios/coalescing.toml scenarios/write_pattern.toml --out $O/suite-$b-$n -v > $O/suite-$b-$n.out 2> $O/suite-$b-$n.log
    echo "$(date +%T.%N) start $b-$n fma" >> $O/steps.txt
    $bin run peaks/fma.toml --out $O/fma-$b-$n -v > $O/fma-$b-$n.out 2> $O/fma-$b-$n.log
    echo "$(date +%T.%N) end $b-$n" >> $O/steps.txt
done
kill $SMI
gzip -9 $O/*/samples.csv $O/*/metrics.csv $O/smi.csv $O/*.log 2>/dev/null
