# adv_check.py RUN ESTIMATOR [STEP]: recompute verl's advantages (core_algos.py formulas) from the
# rollout dump {rollout_data_dir}/{step}.jsonl and compare critic/advantages/{max,min,mean} with the run's metrics.
# Valid when every response has the full length (all tokens masked in), which the tiny random model gives.
import json, sys, statistics as st
from collections import defaultdict
run, est = sys.argv[1], sys.argv[2]; steps = [int(sys.argv[3])] if len(sys.argv) > 3 else [1, 2]
met = {}
for l in open('/tmp/bt13/runs/%s/metrics.jsonl' % run):
    d = json.loads(l); met.setdefault(d['step'], {}).update(d['data'])
ok = True
for step in steps:
    rows = [json.loads(l) for l in open('/tmp/bt13/runs/%s/gen/%d.jsonl' % (run, step))]
    g = defaultdict(list)
    for r in rows: g[r['input']].append(r['score'])
    L = met[step]['response_length/mean']
    assert met[step]['response_length/min'] == met[step]['response_length/max'], 'unequal lengths'
    adv = []
    if est in ('grpo', 'grpo_nostd', 'gpg', 'rloo', 'rfpp_base', 'opo'):
        m = sum(1 for r in rows if r['score'] != 0); alpha = len(rows) / max(m, 1)
        for r in rows:
            s = g[r['input']]; n = len(s); mu = sum(s) / n
            if est == 'grpo': a = (r['score'] - mu) / (st.stdev(s) + 1e-6) if n > 1 else 0.0
            elif est == 'grpo_nostd': a = r['score'] - mu if n > 1 else 0.0
            elif est == 'gpg': a = alpha * (r['score'] - mu)
            elif est == 'rloo': a = (r['score'] - mu) * n / (n - 1)
            elif est == 'rfpp_base': a = r['score'] - mu
            elif est == 'opo': a = r['score'] - mu  # equal lengths: length-weighted mean == mean
            adv.append(a)
        if est == 'rfpp_base':  # masked_whiten over all tokens (equal lengths): unbiased var over tokens
            toks = [a for a in adv for _ in range(int(L))]; mu = sum(toks) / len(toks)
            var = sum((t - mu) ** 2 for t in toks) / (len(toks) - 1)
            adv = [(a - mu) / (var + 1e-8) ** 0.5 for a in adv]
    elif est == 'rfpp':  # returns == score at every token (gamma 1, kl ~0), whitened over tokens
        toks = [r['score'] for r in rows for _ in range(int(L))]; mu = sum(toks) / len(toks)
        var = sum((t - mu) ** 2 for t in toks) / (len(toks) - 1)
        adv = [(r['score'] - mu) / (var + 1e-8) ** 0.5 for r in rows]
    exp = {'max': max(adv), 'min': min(adv), 'mean': sum(adv) / len(adv)}
    for k in exp:
        got = met[step]['critic/advantages/' + k]
        good = abs(got - exp[k]) < 1e-4 * max(1, abs(exp[k]))
        ok &= good
        print('step %d %-5s expected %.6f got %.6f %s' % (step, k, exp[k], got, '' if good else 'MISMATCH'))
print('RESULT', 'match' if ok else 'MISMATCH')
