# Counts FMA-family SASS opcodes per function in cuobjdump -sass output files.
import re, sys, collections
ops = ["FFMA", "HFMA2.MMA", "HFMA2", "HFMA", "HMUL2", "HADD2", "FMUL", "FADD", "IMAD", "BRA"]
print("file,function," + ",".join(ops))
for path in sys.argv[1:]:
    fn = "?"; cnt = collections.OrderedDict()
    for line in open(path, errors="replace"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            fn = m.group(1); cnt[fn] = collections.Counter(); continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
        if m and fn in cnt:
            op = m.group(1)
            base = op.split(".")[0]
            if op.startswith("HFMA2.MMA"): cnt[fn]["HFMA2.MMA"] += 1
            elif base in ops: cnt[fn][base] += 1
    for f, c in cnt.items():
        print(f"{path.split('/')[-1]},{f}," + ",".join(str(c[o]) for o in ops))
