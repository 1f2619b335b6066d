import json,sys
# met.py RUN [keys-substr...]: print selected metrics per step from the run's metrics.jsonl
p='/tmp/bt13/runs/%s/metrics.jsonl'%sys.argv[1]; subs=sys.argv[2:]
for l in open(p):
    d=json.loads(l); s=d['step']
    ks=[k for k in sorted(d['data']) if any(x in k for x in subs)] if subs else sorted(d['data'])
    print(s, {k:d['data'][k] for k in ks})
