"""Baseline for bench/train_step_bench.cpp: the same actor update with transformers + PyTorch.

A Qwen3 (or Qwen3-MoE) model of the preset's shape (random weights, fp32 parameters, bf16
autocast: the usual mixed-precision recipe, like verlpp's fp32 masters with bf16 compute), batches
of micro_tokens tokens as micro_tokens/seq_len rows of seq_len tokens (no padding, so the work
equals verlpp's packed batch), loss = mean next-token NLL, AdamW (fused). The forward is called as
verl's actor calls it (use_cache=False). --logprob-only: one forward log-prob pass without a graph.
--param-dtype bfloat16: bf16 parameters, no autocast (a log-prob pass of a model whose fp32 copy
would not fit). --layers N: the preset cut to N layers. MoE presets run transformers' default
experts implementation (grouped_mm), reported as "experts".

Qwen3.5 presets (qwen3.5-2b, qwen3.5-35b-a3b; every field as src/verlpp/model/presets.cpp sets it:
layer_types with every 4th layer full attention, the linear_* Gated DeltaNet heads and dims,
head_dim 256, rope_parameters {default, theta 1e7, partial_rotary_factor 0.25, mrope_section
[11, 11, 10]}, vocab 248320, tied as the preset) run Qwen3_5ForCausalLM / Qwen3_5MoeForCausalLM
(AutoModelForCausalLM.from_config on Qwen3_5TextConfig / Qwen3_5MoeTextConfig). On the GPU
machine neither fla (flash-linear-attention) nor causal_conv1d is installed, so transformers runs
its torch fallback of the chunked delta rule and of the short convolution (it warns once per
function on stderr); "delta_rule" in the result names what each hub-with-fallback wrapper of the
modeling module dispatches to, and "delta_rule_torch_fallback" says whether the chunked delta rule
is transformers' own torch function (also printed on stderr). MFU uses verl's
_estimate_qwen3_5_flops for these (models.md section 6; src/verlpp/trainer/flops.cpp
qwen3_5_flops), so both sides report the same formula.

Prints one JSON line with tokens_per_s, mfu and peak_memory_gb.

  python3 bench/baselines/train_step_hf.py --preset qwen3-1.7b [--attn sdpa|flash_attention_2]
  python3 bench/baselines/train_step_hf.py --preset qwen3-30b-a3b --layers 6
  python3 bench/baselines/train_step_hf.py --preset qwen3.5-2b [--logprob-only 1 --param-dtype bfloat16]
  python3 bench/baselines/train_step_hf.py --preset qwen3.5-35b-a3b --logprob-only 1 --param-dtype bfloat16
"""
import argparse
import json
import sys
import time

import torch
import transformers

PRESETS = {
    "qwen3-0.6b": dict(hidden_size=1024, intermediate_size=3072),
    "qwen3-1.7b": dict(hidden_size=2048, intermediate_size=6144),
}
# Qwen/Qwen3-30B-A3B config.json (as src/verlpp/model/presets.cpp).
MOE_PRESETS = {
    "qwen3-30b-a3b": dict(hidden_size=2048, intermediate_size=6144, num_hidden_layers=48,
                          num_attention_heads=32, num_key_value_heads=4, moe_intermediate_size=768,
                          num_experts=128, num_experts_per_tok=8, norm_topk_prob=True,
                          decoder_sparse_step=1, mlp_only_layers=[]),
}


def qwen3_5_layer_types(n):
    """Every fourth layer full attention (layers 3, 7, 11, ...), as presets.cpp builds them."""
    return ["full_attention" if (i + 1) % 4 == 0 else "linear_attention" for i in range(n)]


def qwen3_5_config(preset, layers):
    """Qwen3.5-2B / Qwen3.5-35B-A3B text configs (src/verlpp/model/presets.cpp, from
    tests/fixtures/models/*/config.json), every field explicit."""
    if preset not in ("qwen3.5-2b", "qwen3.5-35b-a3b"):
        raise SystemExit(f"--preset {preset}: unknown Qwen3.5 preset (qwen3.5-2b, qwen3.5-35b-a3b)")
    moe = preset == "qwen3.5-35b-a3b"
    n = layers or (40 if moe else 24)
    kw = dict(vocab_size=248320, hidden_size=2048, num_hidden_layers=n,
              num_attention_heads=16 if moe else 8, num_key_value_heads=2, head_dim=256,
              layer_types=qwen3_5_layer_types(n),
              linear_num_key_heads=16, linear_num_value_heads=32 if moe else 16,
              linear_key_head_dim=128, linear_value_head_dim=128, linear_conv_kernel_dim=4,
              hidden_act="silu", attention_bias=False, attention_dropout=0.0,
              rms_norm_eps=1e-6, max_position_embeddings=262144, initializer_range=0.02,
              tie_word_embeddings=not moe, use_cache=True,
              bos_token_id=None, eos_token_id=248044, pad_token_id=None,
              rope_parameters={"rope_type": "default", "rope_theta": 1e7,
                               "partial_rotary_factor": 0.25, "mrope_section": [11, 11, 10],
                               "mrope_interleaved": True})
    if moe:
        return transformers.Qwen3_5MoeTextConfig(
            num_experts=256, num_experts_per_tok=8, moe_intermediate_size=512,
            shared_expert_intermediate_size=512, output_router_logits=False,
            router_aux_loss_coef=0.001, **kw)
    return transformers.Qwen3_5TextConfig(intermediate_size=6144, **kw)


def config_for(preset, layers):
    if preset.startswith("qwen3.5"):
        return qwen3_5_config(preset, layers)
    if preset not in PRESETS and preset not in MOE_PRESETS:
        raise SystemExit(f"--preset {preset}: unknown preset (known: "
                         f"{', '.join([*PRESETS, *MOE_PRESETS, 'qwen3.5-2b', 'qwen3.5-35b-a3b'])})")
    common = dict(vocab_size=151936, head_dim=128, rms_norm_eps=1e-6, max_position_embeddings=40960)
    if preset in MOE_PRESETS:
        kw = dict(MOE_PRESETS[preset], tie_word_embeddings=False, **common)
        if layers:
            kw["num_hidden_layers"] = layers
        return transformers.Qwen3MoeConfig(rope_parameters={"rope_type": "default", "rope_theta": 1e6}, **kw)
    return transformers.Qwen3Config(
        num_hidden_layers=layers or 28, num_attention_heads=16, num_key_value_heads=8,
        rope_theta=1000000.0, tie_word_embeddings=True, **common, **PRESETS[preset])


def qwen3_5_flops(c, seqlens):
    """verl's _estimate_qwen3_5_flops (models.md §6; src/verlpp/trainer/flops.cpp qwen3_5_flops):
    6·N·T + 6·Σs²·d·Hq·nf + 15·dk·dv·Hv·T·nl, with N = nf·full + nl·linear + L·mlp + 2·V·h (full:
    h·(2·Hq·d + 2·Hkv·d + Hq·d); linear: h·(2Kd + 3Vd + 2Hv) + K·(2Kd + Vd); mlp: 3·h·I dense,
    h·E + 3·h·Im·k + 3·h·Is + h MoE). verl keys it on model_type qwen3_5 / qwen3_5_moe (a bare
    *_text config would get 0 there); here the text config's fields are read directly."""
    h, d, heads = c.hidden_size, c.head_dim, c.num_attention_heads
    full = h * (2 * heads * d + 2 * c.num_key_value_heads * d + heads * d)
    kd = c.linear_num_key_heads * c.linear_key_head_dim
    vd = c.linear_num_value_heads * c.linear_value_head_dim
    linear = h * (2 * kd + 3 * vd + 2 * c.linear_num_value_heads) + c.linear_conv_kernel_dim * (2 * kd + vd)
    if getattr(c, "num_experts", 0):
        mlp = (h * c.num_experts + 3 * h * c.moe_intermediate_size * c.num_experts_per_tok
               + 3 * h * c.shared_expert_intermediate_size + h)
    else:
        mlp = 3 * h * c.intermediate_size
    nf = sum(t == "full_attention" for t in c.layer_types)
    nl = c.num_hidden_layers - nf
    n = nf * full + nl * linear + c.num_hidden_layers * mlp + 2 * c.vocab_size * h
    tokens = sum(seqlens)
    return (6 * n * tokens + 6 * sum(s * s for s in seqlens) * d * heads * nf
            + 15 * c.linear_key_head_dim * c.linear_value_head_dim * c.linear_num_value_heads * tokens * nl)


# transformers' torch functions behind its hub-with-fallback wrappers (modeling_qwen3_5*.py), by
# the kernel name each wrapper is registered under.
_GDN_FUNCTIONS = {"chunk_gated_delta_rule": "torch_chunk_gated_delta_rule",
                  "fused_recurrent_gated_delta_rule": "torch_recurrent_gated_delta_rule",
                  "causal_conv1d_fn": "causal_conv1d_fn",
                  "causal_conv1d_update": "causal_conv1d_update"}


def _dispatch_target(f):
    """The function a `use_kernel_func_from_hub_with_fallback` wrapper calls (its closure's
    `implementation`: fla's / causal_conv1d's kernel when importable, else the torch function);
    None when `f` is no such wrapper."""
    for _ in range(4):
        code, closure = getattr(f, "__code__", None), getattr(f, "__closure__", None)
        if code is not None and closure and "implementation" in code.co_freevars:
            return closure[code.co_freevars.index("implementation")].cell_contents
        f = getattr(f, "__wrapped__", None)
        if f is None:
            return None
    return None


def delta_rule_implementation(model):
    """{kernel name: "module.function" it runs} for the model's Gated DeltaNet, or None (no GDN).
    Older transformers bound the kernels on the module (`self.chunk_gated_delta_rule`, the torch
    function when fla is absent); 5.17 calls module-level wrappers that pick an implementation
    once, at import."""
    gdn = next((m for m in model.modules() if type(m).__name__.endswith("GatedDeltaNet")), None)
    if gdn is None:
        return None
    modeling = sys.modules.get(type(gdn).__module__)
    found = {}
    for kernel, torch_name in _GDN_FUNCTIONS.items():
        f = getattr(gdn, kernel, None)
        if f is None:
            f = getattr(modeling, torch_name, None)
        if f is None:
            continue
        impl = _dispatch_target(f) or f
        found[kernel] = (getattr(impl, "__module__", None) or "?") + "." + \
            (getattr(impl, "__qualname__", None) or getattr(impl, "__name__", "?"))
    return found


def is_torch_fallback(implementations, kernel="chunk_gated_delta_rule"):
    """Whether `kernel` runs transformers' own torch code (not fla / causal_conv1d); None if unknown."""
    where = (implementations or {}).get(kernel)
    return None if where is None else where.startswith("transformers.")


def training_flops(c, seqlens):
    """verl's flops_counter (same as src/verlpp/trainer/flops.cpp): dense decoders, qwen3_moe
    through _estimate_qwen2_moe_flops (top-k experts of every layer, plus the router), and Qwen3.5 /
    Qwen3.5-MoE through _estimate_qwen3_5_flops (qwen3_5_flops above)."""
    if hasattr(c, "layer_types") and hasattr(c, "linear_num_key_heads"):
        return qwen3_5_flops(c, seqlens)
    h, d = c.hidden_size, c.head_dim
    q = o = c.num_attention_heads * d
    kv = c.num_key_value_heads * d
    if getattr(c, "num_experts", 0):
        mlp = h * c.num_experts_per_tok * c.moe_intermediate_size * 3 + h * c.num_experts
    else:
        mlp = 3 * h * c.intermediate_size
    n = (mlp + h * (q + 2 * kv + o)) * c.num_hidden_layers + 2 * c.vocab_size * h
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
    p.add_argument("--layers", type=int, default=0)
    p.add_argument("--param-dtype", default="float32")
    a = p.parse_args()
    torch.manual_seed(1)
    c = config_for(a.preset, a.layers)
    c._attn_implementation = a.attn
    param_dtype = getattr(torch, a.param_dtype)
    with torch.device("cuda"):
        model = transformers.AutoModelForCausalLM.from_config(c, dtype=param_dtype)
    autocast = param_dtype == torch.float32
    rows = a.micro_tokens // a.seq_len
    batches = [torch.randint(c.vocab_size, (rows, a.seq_len), device="cuda") for _ in range(a.micro_batches)]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-6, fused=True)

    def step():
        for ids in batches:
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                logits = model(input_ids=ids, use_cache=False).logits
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
    implementations = delta_rule_implementation(model)
    if implementations is not None:
        print(f"train_step_hf: delta rule implementations {implementations}", file=sys.stderr)
    print(json.dumps({"preset": a.preset, "layers": c.num_hidden_layers, "attn": a.attn,
                      "param_dtype": a.param_dtype,
                      "experts": (getattr(model.config, "_experts_implementation", None)
                                  if getattr(c, "num_experts", 0) else None),
                      "delta_rule": implementations,
                      "delta_rule_torch_fallback": is_torch_fallback(implementations),
                      "mode": "logprob" if a.logprob_only else "train",
                      "tokens_per_s": tokens / seconds, "seconds_per_step": seconds,
                      "mfu": flops / seconds / 989e12,
                      "peak_memory_gb": torch.cuda.max_memory_allocated() / 1e9}))


if __name__ == "__main__":
    main()
