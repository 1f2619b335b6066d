# cmp.py A.jsonl B.jsonl [CKPT_A CKPT_B]: largest relative metric diff (|a-b|/max(|a|,1e-12)) and weight diff
import sys, json, struct, os, glob
sys.path.insert(0, "/work/main/tests/e2e")
from compare_runs import steps_of, skipped
a, b = steps_of(sys.argv[1]), steps_of(sys.argv[2])
if sorted(a) != sorted(b): print("STEPS DIFFER", sorted(a), sorted(b))
worst = (0, None); worst_abs1 = (0, None); missing = []
for s in sorted(set(a) & set(b)):
    for k in a[s]:
        if skipped(k) or k.startswith("rollout_corr/"): continue
        if k not in b[s]: missing.append(k); continue
        x, y = a[s][k], b[s][k]
        if x is None or y is None:
            if (x is None) != (y is None): print("NONE mismatch", s, k, x, y)
            continue
        d = abs(x - y) / max(abs(x), 1e-12) if x != y else 0.0
        d1 = abs(x - y) / max(1.0, abs(x))
        if d > worst[0]: worst = (d, (s, k, x, y))
        if d1 > worst_abs1[0]: worst_abs1 = (d1, (s, k, x, y))
    for k in b[s]:
        if not skipped(k) and k not in a[s]: missing.append("B-only:" + k)
print("metrics: max rel diff %.3g at %s; max diff/max(1,|a|) %.3g at %s" % (worst[0], worst[1], worst_abs1[0], worst_abs1[1]))
for k in ["actor/pg_loss","actor/grad_norm","actor/kl_loss","critic/vf_loss","critic/grad_norm","response_length/mean","critic/score/mean","actor/entropy"]:
    s = min(a)
    if k in a[s]: print("  step%d %s: %r vs %r" % (s, k, a[s][k], b[s].get(k)))
if missing: print("missing keys:", missing[:10])
if len(sys.argv) > 4:
    from compare_runs import tensors_of
    def last(d):
        steps = sorted(glob.glob(d + "/global_step_*"), key=lambda p: int(p.rsplit("_",1)[1]))
        return steps[-1] + "/actor/huggingface/model.safetensors"
    ta, tb = tensors_of(last(sys.argv[3])), tensors_of(last(sys.argv[4]))
    if sorted(ta) != sorted(tb): print("TENSOR NAMES DIFFER")
    w = max(max(abs(p - q) for p, q in zip(ta[n], tb[n])) for n in ta if n in tb)
    print("weights: max abs diff %.3g over %d tensors" % (w, len(ta)))
