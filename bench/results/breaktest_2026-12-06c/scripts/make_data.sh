# Keyed data variants (field tk) from the demo's train.jsonl.
mkdir -p /tmp/bt15/data && cd /tmp/bt15/data && python3 - <<'PY'
import json
rows=[json.loads(l) for l in open('/tmp/bt15/demo/verlpp_demo/data/train.jsonl')][:64]
def w(name, f):
    with open(name,'w') as o:
        for i,r in enumerate(rows):
            r=dict(r); f(i,r); o.write(json.dumps(r)+"\n")
w('keyed.jsonl', lambda i,r: r.__setitem__('tk', 'A' if i%2==0 else 'B'))
def miss(i,r):
    if i%4!=3: r['tk']='A'
w('keyed_missing.jsonl', miss)
w('keyed_num.jsonl', lambda i,r: r.__setitem__('tk', 1 if i%2==0 else 2))
w('keyed_null.jsonl', lambda i,r: r.__setitem__('tk', None))
w('keyed_list.jsonl', lambda i,r: r.__setitem__('tk', ['A']))
w('keyed_C.jsonl', lambda i,r: r.__setitem__('tk', 'C'))
w('keyed_mixAC.jsonl', lambda i,r: r.__setitem__('tk', 'A' if i%2 else 'C'))
PY
