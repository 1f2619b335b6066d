# gdpo_check.py RUN: recompute verl's GDPO advantages (core_algos.py compute_gdpo_outcome_advantage) from the dump
import json, sys, statistics as st
from collections import defaultdict
run = sys.argv[1]; keys = ['accuracy_reward', 'format_reward']
met = {}
for l in open('/tmp/bt13/runs/%s/metrics.jsonl' % run):
    d = json.loads(l); met.setdefault(d['step'], {}).update(d['data'])
for step in (1, 2):
    rows = [json.loads(l) for l in open('/tmp/bt13/runs/%s/gen/%d.jsonl' % (run, step))]
    L = int(met[step]['response_length/mean'])
    tot = [0.0] * len(rows)
    for k in keys:
        g = defaultdict(list)
        for r in rows: g[r['input']].append(r[k])
        for i, r in enumerate(rows):
            s = g[r['input']]; mu = sum(s) / len(s)
            tot[i] += (r[k] - mu) / (st.stdev(s) + 1e-6)
    toks = [a for a in tot for _ in range(L)]; mu = sum(toks) / len(toks)
    var = sum((t - mu) ** 2 for t in toks) / (len(toks) - 1)
    adv = [(a - mu) / (var + 1e-8) ** 0.5 for a in tot]
    for k, v in (('max', max(adv)), ('min', min(adv)), ('mean', sum(adv) / len(adv))):
        print(step, k, 'expected %.6f got %.6f' % (v, met[step]['critic/advantages/' + k]))
