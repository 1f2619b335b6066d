#!/usr/bin/env python3
"""Issue 21's equality check (tools/gpu/multi_gpu.sh PART=equal): three runs of one GRPO step,
A (1 GPU), A2 (1 GPU, the same sums grouped otherwise) and B (several GPUs), each given as its
ppo.sh output folder (ppo_metrics.jsonl) and checkpoint folder. Prints, for the last step, every
metric (timings, perf/* and throughput left out) of the three runs with |A2 - A| and |B - A|
relative to max(1, |A|), and for the updated weights (global_step_N/actor/huggingface/
model.safetensors) max |A2 - A|, max |B - A| and max |A - initial weights| (the update's size;
the initial model is the run folder's model/ next to ckpt/). The tolerance for B is the spread of
A2: a multi-GPU step that differs from one GPU by about as much as one GPU differs from itself
under a regrouping of the same sums is equal "within bf16 tolerance".

    compare_ranks.py OUT_A CKPT_A OUT_A2 CKPT_A2 OUT_B CKPT_B

Reads safetensors with torch when it is installed (the GPU machine), else with
tests/e2e/compare_runs.py's pure-Python reader (F32 only: small CPU rehearsals)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "e2e"))
from compare_runs import tensors_of  # noqa: E402  (F32 safetensors in pure Python)

SKIPPED = ("timing_s/", "timing_per_token_ms/", "perf/", "training/rollout_probs_diff")


def last_step(folder):
    steps = {}
    for line in open(os.path.join(folder, "ppo_metrics.jsonl")):
        record = json.loads(line)
        steps.setdefault(record["step"], {}).update(record["data"])
    last = max(steps)
    return last, steps[last]


def tensors(path):
    try:
        from safetensors.torch import load_file
        return {k: v.float() for k, v in load_file(path).items()}
    except ImportError:
        return tensors_of(path)


def max_diff(a, b):
    worst = 0.0
    for name in a:
        x, y = a[name], b[name]
        if hasattr(x, "sub"):
            worst = max(worst, float((x - y).abs().max()))
        else:
            worst = max([worst] + [abs(p - q) for p, q in zip(x, y)])
    return worst


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    out_a, ckpt_a, out_a2, ckpt_a2, out_b, ckpt_b = sys.argv[1:7]
    step, a = last_step(out_a)
    _, a2 = last_step(out_a2)
    _, b = last_step(out_b)
    print("step %d metrics: A (1 GPU) | A2 (1 GPU regrouped) | B (several GPUs) | |A2-A| | |B-A|"
          % step)
    worst_a2 = worst_b = 0.0
    for key in sorted(k for k in a if not k.startswith(SKIPPED)):
        x, y, z = a[key], a2.get(key), b.get(key)
        if not all(isinstance(v, (int, float)) for v in (x, y, z)):
            print("  %-40s %s | %s | %s" % (key, x, y, z))
            continue
        d2 = abs(y - x) / max(1.0, abs(x))
        db = abs(z - x) / max(1.0, abs(x))
        worst_a2, worst_b = max(worst_a2, d2), max(worst_b, db)
        print("  %-40s %.7g | %.7g | %.7g | %.3g | %.3g" % (key, x, y, z, d2, db))
    name = "global_step_%d/actor/huggingface/model.safetensors" % step
    wa = tensors(os.path.join(ckpt_a, name))
    wa2 = tensors(os.path.join(ckpt_a2, name))
    wb = tensors(os.path.join(ckpt_b, name))
    w0 = tensors(os.path.join(os.path.dirname(os.path.normpath(ckpt_a)), "model",
                              "model.safetensors"))
    assert sorted(wa) == sorted(wa2) == sorted(wb), "the checkpoints hold different tensors"
    update, spread, diff = max_diff(wa, w0), max_diff(wa, wa2), max_diff(wa, wb)
    print("weights: max |A - initial| %.4g (the update), max |A2 - A| %.4g, max |B - A| %.4g"
          % (update, spread, diff))
    print("metrics: worst relative |A2 - A| %.4g, |B - A| %.4g" % (worst_a2, worst_b))
    print("B vs A within the A2 spread: metrics %s, weights %s"
          % (worst_b <= max(worst_a2, 1e-7), diff <= max(spread, 0.0)))


if __name__ == "__main__":
    main()
