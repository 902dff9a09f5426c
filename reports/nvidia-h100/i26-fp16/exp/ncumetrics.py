# Picks the pipe / FMA-family metrics that this ncu knows (ncu --query-metrics output on stdin).
import re, sys
names = set()
for line in sys.stdin:
    t = line.split()
    if t: names.add(t[0])
out = ["gpu__time_duration.sum", "sm__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.max",
       "sm__inst_executed.sum"]
for n in sorted(names):
    if re.match(r"^sm__inst_executed_pipe_\w+$", n):
        out.append(n + ".sum")
    elif re.match(r"^smsp__sass_thread_inst_executed_op_(h|f)(fma|add|mul)\w*$", n):
        out.append(n + ".sum")
    elif re.match(r"^sm__pipe_\w*(fma|fp16|shared|tensor|fp64)\w*_cycles_active$", n):
        out.append(n + ".avg.pct_of_peak_sustained_active")
print(",".join(dict.fromkeys(out)))
