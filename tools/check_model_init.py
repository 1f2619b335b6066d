#!/usr/bin/env python3
"""Checks that checkpoints written by `verlpp model init` load in transformers and give the same
log-probabilities as `verlpp model score` (run on the GPU machine by tools/gpu/model.sh).

    python3 tools/check_model_init.py build/verlpp WORK_DIR > result.json

For each architecture (Qwen3-MoE with 6 experts, top-3 and a dense layer 1 included): `verlpp model
init` writes a tiny random checkpoint; transformers loads it
(from_pretrained, fp32, CPU; no missing/unexpected keys allowed); three prompt/response pairs of
random token ids are scored by transformers (log_softmax of the logits at the response tokens) and by
`verlpp model score --dtype float32 --device cpu`; the largest absolute difference must be <= 1e-4.
Prints one JSON object and exits 1 if any check fails.
"""
import json
import os
import subprocess
import sys

import torch
from transformers import AutoModelForCausalLM

CASES = [
    ("qwen3", "true", "bfloat16"),
    ("qwen3", "false", "float32"),
    ("qwen2", "false", "float32"),
    ("llama", "false", "float32"),
    ("qwen3_moe", "false", "float32"),
]
MOE_ARGS = ["--num-experts", "6", "--num-experts-per-tok", "3", "--moe-intermediate-size", "32",
            "--mlp-only-layers", "1"]
TOL = 1e-4


def run_case(verlpp, work, arch, tied, dtype, index):
    out = os.path.join(work, f"{arch}_{index}")
    cmd = [verlpp, "model", "init", "--arch", arch, "--hidden-size", "64", "--intermediate-size",
           "128", "--num-hidden-layers", "2", "--num-attention-heads", "4",
           "--num-key-value-heads", "2", "--head-dim", "16", "--vocab-size", "300",
           "--tie-word-embeddings", tied, "--dtype", dtype, "--seed", str(7 + index),
           "--output", out] + (MOE_ARGS if arch == "qwen3_moe" else [])
    subprocess.run(cmd, check=True)
    model, info = AutoModelForCausalLM.from_pretrained(out, output_loading_info=True)
    model = model.float().eval()
    bad = {k: v for k, v in info.items() if v and k in ("missing_keys", "unexpected_keys",
                                                         "mismatched_keys")}
    gen = torch.Generator().manual_seed(index)
    rows = []
    for plen, rlen in ((3, 6), (1, 10), (5, 4)):
        ids = torch.randint(0, 300, (plen + rlen,), generator=gen).tolist()
        rows.append({"prompt_ids": ids[:plen], "response_ids": ids[plen:]})
    data = os.path.join(work, f"input_{index}.jsonl")
    with open(data, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    res = subprocess.run([verlpp, "model", "score", "--model", out, "--input", data, "--dtype",
                          "float32", "--device", "cpu"], check=True, capture_output=True,
                         text=True)
    scored = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    worst = 0.0
    for r, s in zip(rows, scored, strict=True):
        ids = torch.tensor(r["prompt_ids"] + r["response_ids"])[None]
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=ids).logits[0].float(), -1)
        p = len(r["prompt_ids"])
        ref = logp[p - 1:-1].gather(-1, torch.tensor(r["response_ids"])[:, None])[:, 0]
        worst = max(worst, (ref - torch.tensor(s["logprobs"])).abs().max().item(),
                    abs(ref.sum().item() - s["sum"]))
    return {"arch": arch, "tied": tied, "dtype": dtype,
            "architectures": model.config.architectures, "loading_problems": bad,
            "max_abs_logprob_diff": worst, "ok": not bad and worst <= TOL}


def main():
    verlpp, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    results = [run_case(verlpp, work, *case, i) for i, case in enumerate(CASES)]
    print(json.dumps({"tolerance": TOL, "results": results}, indent=1))
    sys.exit(0 if all(r["ok"] for r in results) else 1)


if __name__ == "__main__":
    main()
