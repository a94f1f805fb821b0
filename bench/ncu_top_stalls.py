import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
# find header row
hi = next(i for i, r in enumerate(rows) if any("Source" == c or c.startswith("Source") for c in r))
head = rows[hi]
print(head[:12])
data = rows[hi+1:]
def col(name):
    for i, c in enumerate(head):
        if c == name: return i
    return None
src = col("Source")
samp = next((i for i, c in enumerate(head) if "Warp Stall Sampling (All" in c), None)
samp2 = next((i for i, c in enumerate(head) if "Warp Stall Sampling (Not" in c), None)
print("cols", src, samp, samp2, [c for c in head if "Stall" in c][:6])
tot = 0; byop = collections.Counter(); top = []
for r in data:
    try: v = float(r[samp].replace(",", ""))
    except: continue
    tot += v
    op = r[src].split()[0] if r[src].split() else ""
    if op.startswith("@"): op = r[src].split()[1]
    byop[op.split(".")[0]] += v
    top.append((v, r[0] if r[0] else "", r[src][:80]))
print("total samples", tot)
for op, v in byop.most_common(15): print(f"{op:12s} {v/tot*100:5.1f}%")
top.sort(reverse=True)
for v, a, s in top[:25]: print(f"{v/tot*100:5.1f}% {a} {s}")
