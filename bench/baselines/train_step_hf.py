"""Baseline for bench/train_step_bench.cpp: the same actor update with transformers + PyTorch.

A Qwen3 model of the preset's shape (random weights, fp32 parameters, bf16 autocast: the usual
mixed-precision recipe, like verlpp's fp32 masters with bf16 compute), batches of micro_tokens
tokens as micro_tokens/seq_len rows of seq_len tokens (no padding, so the work equals verlpp's
packed batch), loss = mean next-token NLL, AdamW (fused). --logprob-only: one forward log-prob
pass without a graph. Prints one JSON line with tokens_per_s, mfu and peak_memory_gb.

  python3 bench/baselines/train_step_hf.py --preset qwen3-1.7b [--attn sdpa|flash_attention_2]
"""
import argparse
import json
import time

import torch
import transformers

PRESETS = {
    "qwen3-0.6b": dict(hidden_size=1024, intermediate_size=3072),
    "qwen3-1.7b": dict(hidden_size=2048, intermediate_size=6144),
}


def config_for(preset):
    return transformers.Qwen3Config(
        vocab_size=151936, num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8,
        head_dim=128, rms_norm_eps=1e-6, rope_theta=1000000.0, max_position_embeddings=40960,
        tie_word_embeddings=True, **PRESETS[preset])


def training_flops(c, seqlens):
    """verl's flops_counter for dense decoders (same as src/verlpp/trainer/flops.cpp)."""
    h, d = c.hidden_size, c.head_dim
    q = o = c.num_attention_heads * d
    kv = c.num_key_value_heads * d
    n = (3 * h * c.intermediate_size + h * (q + 2 * kv + o)) * c.num_hidden_layers + 2 * c.vocab_size * h
    attn = sum(s * s for s in seqlens) * d * c.num_attention_heads * c.num_hidden_layers
    return 6 * n * sum(seqlens) + 6 * attn


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default="qwen3-0.6b")
    p.add_argument("--micro-tokens", type=int, default=8192)
    p.add_argument("--seq-len", type=int, default=1024)
    p.add_argument("--micro-batches", type=int, default=1)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--attn", default="sdpa")
    p.add_argument("--logprob-only", type=int, default=0)
    a = p.parse_args()
    torch.manual_seed(1)
    c = config_for(a.preset)
    c._attn_implementation = a.attn
    model = transformers.Qwen3ForCausalLM(c).cuda()
    rows = a.micro_tokens // a.seq_len
    batches = [torch.randint(c.vocab_size, (rows, a.seq_len), device="cuda") for _ in range(a.micro_batches)]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-6, fused=True)

    def step():
        for ids in batches:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(input_ids=ids).logits
            lp = torch.log_softmax(logits.float(), -1)
            nll = -lp[:, :-1].gather(-1, ids[:, 1:, None]).mean()
            if a.logprob_only:
                continue
            (nll / len(batches)).backward()
        if not a.logprob_only:
            opt.step()
            opt.zero_grad(set_to_none=True)

    ctx = torch.no_grad() if a.logprob_only else torch.enable_grad()
    with ctx:
        for _ in range(a.warmup):
            step()
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        for _ in range(a.steps):
            step()
        torch.cuda.synchronize()
    seconds = (time.perf_counter() - t0) / a.steps
    tokens = a.micro_tokens * a.micro_batches
    flops = training_flops(c, [a.seq_len] * (rows * a.micro_batches))
    if a.logprob_only:
        flops /= 3
    print(json.dumps({"preset": a.preset, "attn": a.attn, "mode": "logprob" if a.logprob_only else "train",
                      "tokens_per_s": tokens / seconds, "seconds_per_step": seconds,
                      "mfu": flops / seconds / 989e12,
                      "peak_memory_gb": torch.cuda.max_memory_allocated() / 1e9}))


if __name__ == "__main__":
    main()
