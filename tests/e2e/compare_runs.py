"""Compares two verlpp runs for the data-parallel e2e test: the JSONL metrics of every step and the
weights of the final checkpoints. Usage:
  compare_runs.py METRICS_A METRICS_B CKPT_A CKPT_B KEYS TOL
KEYS: comma-separated metric names that must agree within TOL (relative to max(1, |a|)); '*' means
every metric except timing_s/*, timing_per_token_ms/*, perf/*,
training/rollout_probs_diff_* and train/mfu (timings). Weights (every tensor of
global_step_N/actor/huggingface/model.safetensors of the last step) must agree within TOL
absolute. Pure Python: reads safetensors F32 tensors with struct. steps_of is also imported by the
e2e scripts' own checks."""
import json
import struct
import sys


def steps_of(path):
    steps = {}
    for line in open(path):
        record = json.loads(line)
        steps.setdefault(record["step"], {}).update(record["data"])
    return steps


def tensors_of(path):
    with open(path, "rb") as f:
        header_len = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(header_len))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", (name, info["dtype"])
        begin, end = info["data_offsets"]
        out[name] = struct.unpack("<%df" % ((end - begin) // 4), data[begin:end])
    return out


def skipped(key):
    return key.startswith(("timing_s/", "timing_per_token_ms/", "perf/", "training/rollout_probs_diff",
                           "train/mfu"))


def main():
    metrics_a, metrics_b, ckpt_a, ckpt_b, keys, tol = sys.argv[1:7]
    tol = float(tol)
    a, b = steps_of(metrics_a), steps_of(metrics_b)
    assert sorted(a) == sorted(b), (sorted(a), sorted(b))
    worst = 0.0
    for step in sorted(a):
        names = [k for k in a[step] if not skipped(k)] if keys == "*" else keys.split(",")
        for key in names:
            assert key in a[step] and key in b[step], "step %d lacks %s" % (step, key)
            x, y = a[step][key], b[step][key]
            if x is None or y is None:
                assert x is None and y is None, (step, key, x, y)
                continue
            diff = abs(x - y) / max(1.0, abs(x))
            worst = max(worst, diff)
            assert diff <= tol, "step %d %s: %r vs %r" % (step, key, x, y)
    last = max(a)
    wa = tensors_of("%s/global_step_%d/actor/huggingface/model.safetensors" % (ckpt_a, last))
    wb = tensors_of("%s/global_step_%d/actor/huggingface/model.safetensors" % (ckpt_b, last))
    assert sorted(wa) == sorted(wb)
    worst_w = 0.0
    for name in wa:
        worst_w = max([worst_w] + [abs(x - y) for x, y in zip(wa[name], wb[name])])
    assert worst_w <= tol, "weights differ by %g" % worst_w
    print("metrics within %.3g (relative), weights within %.3g" % (worst, worst_w))


if __name__ == "__main__":
    main()
