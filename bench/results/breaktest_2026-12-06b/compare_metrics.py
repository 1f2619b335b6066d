import json,sys
def load(p):
    s={}
    for l in open(p):
        r=json.loads(l); s.setdefault(r["step"],{}).update(r["data"])
    return s
a,b=load(sys.argv[1]),load(sys.argv[2])
skip=("timing","perf/")
diff=[];n=0
for st in sorted(set(a)|set(b)):
    for k in sorted(set(a.get(st,{}))|set(b.get(st,{}))):
        if k.startswith(skip) or k.startswith("timing_per_token"): continue
        n+=1
        va,vb=a.get(st,{}).get(k),b.get(st,{}).get(k)
        if va!=vb: diff.append((st,k,va,vb))
print(f"compared {n} values; {len(diff)} differ")
for d in diff[:8]: print("  ",d)
