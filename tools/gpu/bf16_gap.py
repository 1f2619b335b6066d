#!/usr/bin/env python3
"""The distribution of the bf16 logit gaps of the Qwen3.5 fixtures, transformers' and verlpp's, by
one statistics code (issue 18: "bf16 CUDA within transformers' own bf16 gap").

Run on the GPU machine through tools/gpu/bf16_gap.sh, after verlpp_model_tests' Qwen3_5Gpu bf16
case has written <verlpp-dir>/<name>.verlpp_bf16.safetensors (VERLPP_BF16_DUMP_DIR; logits [T, V]
fp32 as the test asserts them, logits_bf16_out, final_norm and layer.<i> in bf16):
    python3 tools/gpu/bf16_gap.py --verlpp-dir DIR --out DIR [--models qwen3_5 ...]

Models: those of INSTANTIATE_TEST_SUITE_P(..., Qwen3_5Gpu, ...) in
tests/unit/model/qwen3_5_gpu_test.cpp. For each, as tools/make_qwen3_5_fixtures.py measured
bf16_tolerance: the fp32 checkpoint loaded by AutoModelForCausalLM.from_pretrained (eager and
sdpa), .to(cuda, bfloat16), each sequence of the reference run alone (batch 1, positions 0..L-1,
use_cache False); fp32 on CUDA likewise (eager); the float64 forward on the CPU (eager attention,
eager experts) for the layer outputs (its logits are checked against the stored reference).

|diff| against the stored float64 reference logits (and against transformers' fp32 logits) per
logit (all T x V) and per token (max over the vocabulary): mean, median, p90, p99, max
(torch.quantile, linear interpolation). Also: where each maximum is (token, sequence, position,
vocabulary id); every decoder layer's output against float64 (relative Frobenius error, max abs)
for both implementations, and at the tokens of the largest gaps; transformers in bf16 with one
layer, one layer kind, or the final norm + lm_head in fp32 (which layers make transformers' gap;
the weights stay bf16-rounded); transformers with q and k l2-normalised in bf16 before the delta
rule's fp32 cast (the order verlpp's l2 norm keeps; transformers 5 normalises after the cast); the
paired per-token difference verlpp - transformers with bootstrap intervals over tokens.
BF16_GAP_DEVICE=cpu runs it without a GPU (only to try the script), BF16_GAP_BOOTSTRAP the
resamples (500).

Writes <out>/bf16_gap.json and <out>/bf16_gap.md (also printed).
"""
import argparse
import json
import math
import os
import re
import sys
import time

import torch
import torch.nn.functional as F
import transformers
from safetensors import safe_open
from transformers import AutoModelForCausalLM

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "model")
GPU_TEST = os.path.join(ROOT, "tests", "unit", "model", "qwen3_5_gpu_test.cpp")
QUANTILES = (0.5, 0.9, 0.99)
BOOTSTRAP = int(os.environ.get("BF16_GAP_BOOTSTRAP", 500))
DEVICE = os.environ.get("BF16_GAP_DEVICE", "cuda")  # cpu: only to try the script without a GPU
STATS = ("mean", "median", "p90", "p99", "max")


def gpu_test_models():
    src = open(GPU_TEST).read()
    m = re.search(r"INSTANTIATE_TEST_SUITE_P\(\s*\w+\s*,\s*Qwen3_5Gpu\s*,\s*::testing::Values\("
                  r"([^)]*)\)", src)
    if m is None:
        raise SystemExit(f"no INSTANTIATE_TEST_SUITE_P for Qwen3_5Gpu in {GPU_TEST}")
    return re.findall(r'"([^"]+)"', m.group(1))


def read_tensors(path):
    with safe_open(path, "pt") as f:
        return {k: f.get_tensor(k) for k in f.keys()}


def load(path, impl):
    model, info = AutoModelForCausalLM.from_pretrained(path, attn_implementation=impl,
                                                       output_loading_info=True)
    bad = {k: v for k, v in info.items() if v and k in ("missing_keys", "unexpected_keys",
                                                         "mismatched_keys")}
    if bad:
        raise SystemExit(f"{path}: loading info {bad}")
    return model.eval()


def set_experts(model, impl):
    if hasattr(model, "set_experts_implementation"):
        model.set_experts_implementation(impl)
    else:
        model.config._experts_implementation = impl


def first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


def run(model, ids, cu, device, capture=True):
    """Each sequence alone: logits [T, V] and (capture) layer.<i>, final_norm [T, h]; f64 CPU."""
    caps, handles = {}, []
    if capture:
        for i, layer in enumerate(model.model.layers):
            handles.append(layer.register_forward_hook(
                lambda mod, args, out, i=i: caps.setdefault(f"layer.{i}", []).append(
                    first(out).detach()[0].double().cpu())))
        handles.append(model.model.norm.register_forward_hook(
            lambda mod, args, out: caps.setdefault("final_norm", []).append(
                first(out).detach()[0].double().cpu())))
    logits = []
    try:
        with torch.no_grad():
            for s in range(len(cu) - 1):
                a, b = int(cu[s]), int(cu[s + 1])
                x = ids[a:b][None].to(device)
                pos = torch.arange(b - a, device=device)[None]
                out = model(input_ids=x, position_ids=pos, use_cache=False)
                logits.append(out.logits[0].detach().double().cpu())
    finally:
        for h in handles:
            h.remove()
    res = {k: torch.cat(v) for k, v in caps.items()}
    res["logits"] = torch.cat(logits)
    return res


def dist(x):
    x = x.flatten().double()
    q = torch.quantile(x, torch.tensor(QUANTILES, dtype=torch.float64))
    return {"mean": x.mean().item(), "median": q[0].item(), "p90": q[1].item(),
            "p99": q[2].item(), "max": x.max().item(), "n": x.numel()}


def where(t, cu):
    s = max(i for i in range(len(cu) - 1) if int(cu[i]) <= t)
    return {"token": int(t), "sequence": s, "position": int(t - int(cu[s])),
            "sequence_length": int(cu[s + 1] - cu[s])}


def gap(a, b, cu, top=5):
    """|a - b| per logit and per token (max over the vocabulary), and where the largest are."""
    d = (a.double() - b.double()).abs()
    tok = d.max(-1).values
    t, v = divmod(int(d.argmax()), d.shape[1])
    order = tok.argsort(descending=True)[:top].tolist()
    return {"per_logit": dist(d), "per_token": dist(tok),
            "argmax": dict(where(t, cu), vocab=v, a=a[t, v].item(), b=b[t, v].item()),
            "top_tokens": [dict(where(i, cu), gap=tok[i].item()) for i in order],
            "_per_token": tok, "_per_logit": d}


def layer_gaps(cand, ref64, layer_types):
    """Each captured layer output against float64: relative Frobenius error and max abs."""
    rows = []
    names = [f"layer.{i}" for i in range(len(layer_types))] + ["final_norm"]
    for n in names:
        if n not in cand:
            continue
        a, b = cand[n].double(), ref64[n]
        d = a - b
        kind = layer_types[int(n.split(".")[1])] if n.startswith("layer.") else "final_norm"
        rows.append({"name": n, "kind": kind, "rel": (d.norm() / b.norm()).item(),
                     "max_abs": d.abs().max().item(), "mean_abs": d.abs().mean().item()})
    return rows


def token_layer_trace(cand, ref64, layer_types, t):
    """||a_t - b_t|| / ||b_t|| of token t after every layer."""
    out = []
    for i in range(len(layer_types)):
        n = f"layer.{i}"
        if n in cand:
            a, b = cand[n][t].double(), ref64[n][t]
            out.append(((a - b).norm() / b.norm()).item())
    if "final_norm" in cand:
        a, b = cand["final_norm"][t].double(), ref64["final_norm"][t]
        out.append(((a - b).norm() / b.norm()).item())
    return out


def paired(v_tok, t_tok, v_logit, t_logit, gen):
    """verlpp - transformers for mean and p99 (per token and per logit), bootstrap over tokens."""
    T = v_tok.numel()
    ranks = [x.argsort().argsort().double() for x in (v_tok, t_tok)]
    res = {"pearson_per_token": torch.corrcoef(torch.stack([v_tok, t_tok]))[0, 1].item(),
           "spearman_per_token": torch.corrcoef(torch.stack(ranks))[0, 1].item(),
           "tokens_verlpp_le_transformers": int((v_tok <= t_tok).sum()), "tokens": T}
    boots = {k: [] for k in ("tok_mean", "tok_p99", "logit_mean", "logit_p99", "tok_max")}
    for _ in range(BOOTSTRAP):
        idx = torch.randint(0, T, (T,), generator=gen)
        vt, tt = v_tok[idx], t_tok[idx]
        vl, tl = v_logit[idx].flatten(), t_logit[idx].flatten()
        boots["tok_mean"].append((vt.mean() - tt.mean()).item())
        boots["tok_p99"].append((torch.quantile(vt, 0.99) - torch.quantile(tt, 0.99)).item())
        boots["tok_max"].append((vt.max() - tt.max()).item())
        boots["logit_mean"].append((vl.mean() - tl.mean()).item())
        boots["logit_p99"].append((torch.quantile(vl, 0.99) - torch.quantile(tl, 0.99)).item())
    point = {"tok_mean": (v_tok.mean() - t_tok.mean()).item(),
             "tok_p99": (torch.quantile(v_tok, 0.99) - torch.quantile(t_tok, 0.99)).item(),
             "tok_max": (v_tok.max() - t_tok.max()).item(),
             "logit_mean": (v_logit.mean() - t_logit.mean()).item(),
             "logit_p99": (torch.quantile(v_logit.flatten(), 0.99)
                           - torch.quantile(t_logit.flatten(), 0.99)).item()}
    for k, xs in boots.items():
        xs = torch.tensor(xs, dtype=torch.float64)
        lo, hi = torch.quantile(xs, torch.tensor([0.025, 0.975], dtype=torch.float64)).tolist()
        res[k] = {"diff": point[k], "ci95": [lo, hi], "p_boot_gt0": (xs > 0).double().mean().item()}
    return res


def to32(x):
    if torch.is_tensor(x):
        return x.float() if x.dtype == torch.bfloat16 else x
    if isinstance(x, tuple):
        return tuple(to32(y) for y in x)
    if isinstance(x, list):
        return [to32(y) for y in x]
    return x


def to16(x):
    if torch.is_tensor(x):
        return x.to(torch.bfloat16) if x.dtype == torch.float32 else x
    if isinstance(x, tuple):
        return tuple(to16(y) for y in x)
    if isinstance(x, list):
        return [to16(y) for y in x]
    return x


def promote(modules, cast_back):
    """Runs `modules` in fp32 inside a bf16 model: their inputs cast up, their outputs (cast_back)
    cast down to bf16 again."""
    for mod in modules:
        mod.float()

        def forward(*args, _forward=mod.forward, **kwargs):
            out = _forward(*to32(args), **{k: to32(v) for k, v in kwargs.items()})
            return to16(out) if cast_back else out
        mod.forward = forward


def promoted_variants(path, ids, cu, ref_logits, layer_types, moe):
    """transformers (eager) in bf16 with parts of it in fp32: the gap each part makes."""
    n = len(layer_types)
    variants = [(f"layer {i} ({layer_types[i]}) fp32", [i], False) for i in range(n)]
    for kind in sorted(set(layer_types)):
        variants.append((f"all {kind} layers fp32", [i for i in range(n) if layer_types[i] == kind],
                         False))
    variants.append(("final norm + lm_head fp32 (fp32 logits)", [], True))
    variants.append(("every layer fp32 inside (outputs rounded to bf16)", list(range(n)), False))
    if moe:
        variants.append(("bf16, experts eager", None, False))
    rows = []
    for label, layers, head in variants:
        try:
            m = load(path, "eager").to(device=DEVICE, dtype=torch.bfloat16)
            if layers is None:
                set_experts(m, "eager")
                layers = []
            if moe and layers:
                set_experts(m, "eager")  # fp32 experts inside a bf16 model: the eager loop
            promote([m.model.layers[i] for i in layers], cast_back=True)
            if head:  # a new fp32 lm_head weight: the MoE model ties it to the embedding
                m.lm_head.weight = torch.nn.Parameter(m.lm_head.weight.detach().float().clone())
                promote([m.model.norm, m.lm_head], cast_back=False)
            r = run(m, ids, cu, DEVICE, capture=False)
            g = gap(r["logits"], ref_logits, cu)
            rows.append({"variant": label, "per_token": g["per_token"], "per_logit": g["per_logit"],
                         "argmax": g["argmax"]})
            del m
        except Exception as err:  # noqa: BLE001 - a variant that does not run is recorded
            rows.append({"variant": label, "error": f"{type(err).__name__}: {err}"})
            print(f"variant {label}: {type(err).__name__}: {err}", flush=True)
    return rows


L2_VARIANT = "transformers bf16 eager, q/k l2norm in bf16"


def l2norm_modules():
    """The installed Qwen3.5 modeling modules whose delta rule calls a module-level l2norm."""
    import importlib
    mods = []
    for name in ("transformers.models.qwen3_5.modeling_qwen3_5",
                 "transformers.models.qwen3_5_moe.modeling_qwen3_5_moe"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(mod, "l2norm"):
            mods.append(mod)
    return mods


class bf16_l2norm:
    """Within: the modules' l2norm rounds as on bf16 inputs (x * rsqrt(sum(x^2) + eps) in bf16,
    then back to the input's dtype): the norm before the fp32 cast instead of after it."""

    def __init__(self, modules):
        self.modules = modules
        self.saved = [m.l2norm for m in modules]

    def __enter__(self):
        for mod, orig in zip(self.modules, self.saved):
            def l2norm(x, dim=-1, eps=1e-6, _orig=orig):
                if x.dtype != torch.float32:
                    return _orig(x, dim=dim, eps=eps)
                return _orig(x.to(torch.bfloat16), dim=dim, eps=eps).to(x.dtype)
            mod.l2norm = l2norm

    def __exit__(self, *exc):
        for mod, orig in zip(self.modules, self.saved):
            mod.l2norm = orig


def delta_rule_source():
    """The installed torch_chunk_gated_delta_rule's lines around its l2 norm, per module."""
    import inspect
    out = {}
    for mod in l2norm_modules():
        fn = getattr(mod, "torch_chunk_gated_delta_rule", None)
        if fn is None:
            continue
        try:
            src = inspect.getsource(inspect.unwrap(fn)).splitlines()
        except (OSError, TypeError) as err:
            out[mod.__name__] = f"{type(err).__name__}: {err}"
            continue
        keep = [i for i, line in enumerate(src) if "l2norm" in line or "float32" in line]
        out[mod.__name__] = "\n".join(src[max(0, min(keep) - 2):max(keep) + 2]) if keep else ""
    return out


def public(g):
    return {k: v for k, v in g.items() if not k.startswith("_")}


def model_report(name, verlpp_dir, gen):
    path = os.path.join(FIXTURES, name)
    ref = read_tensors(os.path.join(FIXTURES, f"{name}.reference.safetensors"))
    meta = json.load(open(os.path.join(FIXTURES, "reference_qwen3_5.json")))["models"][name]
    cfg = json.load(open(os.path.join(path, "config.json")))
    layer_types = cfg.get("layer_types") or cfg.get("text_config", {}).get("layer_types")
    moe = "num_experts" in cfg or "num_experts" in cfg.get("text_config", {})
    ids, cu, ref_logits = ref["input_ids"], ref["cu_seqlens"], ref["logits"].double()
    rep = {"layer_types": layer_types, "tokens": ids.numel(), "vocab": ref_logits.shape[1],
           "seq_lens": (cu[1:] - cu[:-1]).tolist(),
           "fixture_bf16_vs_fp32_logits_max_abs": meta.get("bf16_vs_fp32_logits_max_abs"),
           "fixture_bf16_tolerance": meta.get("bf16_tolerance")}
    t0 = time.time()

    m64 = load(path, "eager").double()
    if moe:
        set_experts(m64, "eager")
    r64 = run(m64, ids, cu, "cpu")
    rep["float64_recomputed_vs_stored_logits_max_abs"] = (
        r64["logits"] - ref_logits).abs().max().item()
    del m64

    runs = {}
    for impl in ("eager", "sdpa"):
        m = load(path, impl).to(device=DEVICE, dtype=torch.bfloat16)
        rep[f"transformers_bf16_{impl}_experts_implementation"] = getattr(
            m.config, "_experts_implementation", None)
        runs[f"transformers bf16 {impl}"] = run(m, ids, cu, DEVICE)
        W = m.lm_head.weight.detach().double().cpu()  # bf16 values, exact in float64
        del m
    m = load(path, "eager").to(device=DEVICE, dtype=torch.float32)
    rep["transformers_fp32_experts_implementation"] = getattr(m.config, "_experts_implementation",
                                                              None)
    try:
        runs["transformers fp32 eager"] = run(m, ids, cu, DEVICE, capture=False)
    except Exception as err:  # noqa: BLE001 - fp32 grouped_mm may be missing: the eager loop
        rep["transformers_fp32_error"] = f"{type(err).__name__}: {err}"
        set_experts(m, "eager")
        runs["transformers fp32 eager"] = run(m, ids, cu, DEVICE, capture=False)
    del m
    fp32 = runs["transformers fp32 eager"]["logits"]
    # transformers' bf16 final hidden through lm_head without the bf16 rounding of the logits
    # (verlpp's compat::mm_fp32: bf16 inputs, fp32 accumulation and output)
    for impl in ("eager", "sdpa"):
        key = f"transformers bf16 {impl}"
        runs[key + ", fp32 logits from its bf16 final norm"] = {
            "logits": runs[key]["final_norm"] @ W.t()}

    # transformers with q and k l2-normalised in bf16 before the delta rule's fp32 cast (the order
    # of older transformers, which verlpp's l2 norm reproduces)
    modules = l2norm_modules()
    if modules:
        with bf16_l2norm(modules):
            m = load(path, "eager").to(device=DEVICE, dtype=torch.bfloat16)
            runs[L2_VARIANT] = run(m, ids, cu, DEVICE)
            del m

    vpath = os.path.join(verlpp_dir, f"{name}.verlpp_bf16.safetensors") if verlpp_dir else None
    if vpath and os.path.exists(vpath):
        v = read_tensors(vpath)
        runs["verlpp bf16"] = {k: t.double() for k, t in v.items() if k != "logits_bf16_out"}
        runs["verlpp bf16, bf16 logits (m.logits)"] = {"logits": v["logits_bf16_out"].double()}
        rep["verlpp_dump"] = vpath
    else:
        rep["verlpp_dump_missing"] = vpath
        print(f"{name}: no verlpp dump at {vpath}", flush=True)

    gaps = {}
    for label, r in runs.items():
        gaps[f"{label} vs float64"] = gap(r["logits"], ref_logits, cu)
        if label != "transformers fp32 eager":
            gaps[f"{label} vs transformers fp32"] = gap(r["logits"], fp32, cu)
    if L2_VARIANT in runs:
        gaps[f"{L2_VARIANT} vs transformers bf16 eager"] = gap(
            runs[L2_VARIANT]["logits"], runs["transformers bf16 eager"]["logits"], cu)
    if "verlpp bf16" in runs:
        for other in ("transformers bf16 eager", "transformers bf16 sdpa", L2_VARIANT):
            if other in runs:
                gaps[f"verlpp bf16 vs {other}"] = gap(
                    runs["verlpp bf16"]["logits"], runs[other]["logits"], cu)
    rep["gaps"] = {k: public(g) for k, g in gaps.items()}

    rep["layers"] = {label: layer_gaps(r, r64, layer_types) for label, r in runs.items()
                     if "final_norm" in r}
    # the tokens of the largest gaps (each implementation's top 3): how far every layer's output at
    # that token is from float64, in every implementation
    worst = {}
    for label in ("verlpp bf16", "transformers bf16 eager", "transformers bf16 sdpa"):
        g = gaps.get(f"{label} vs float64")
        for x in (g["top_tokens"][:3] if g else []):
            worst.setdefault(x["token"], []).append(label)
    traces = {}
    for t in sorted(worst):
        traces[f"token {t}"] = {
            "where": where(t, cu), "top3_of": worst[t],
            "rel_error_after_layer": {lb: token_layer_trace(r, r64, layer_types, t)
                                      for lb, r in runs.items() if "final_norm" in r},
            "gap_per_token": {lb: gaps[f"{lb} vs float64"]["_per_token"][t].item() for lb in runs}}
    rep["worst_token_traces"] = traces

    if "verlpp bf16" in runs:
        rep["paired"] = {}
        for other in ("transformers bf16 eager", "transformers bf16 sdpa", L2_VARIANT):
            if other not in runs:
                continue
            a = gaps["verlpp bf16 vs float64"]
            b = gaps[f"{other} vs float64"]
            rep["paired"][f"verlpp - {other}"] = paired(
                a["_per_token"], b["_per_token"], a["_per_logit"], b["_per_logit"], gen)
    rep["promoted"] = promoted_variants(path, ids, cu, ref_logits, layer_types, moe)
    rep["seconds"] = time.time() - t0
    return rep


def fmt(x):
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def markdown(report):
    out = [f"# Qwen3.5 fixtures: bf16 logit gaps (transformers {report['transformers']}, torch "
           f"{report['torch']}, {report['device']})", ""]
    for mod, src in report.get("delta_rule_source", {}).items():
        out += [f"{mod}.torch_chunk_gated_delta_rule, its casts and l2 norm:", "", "```", src,
                "```", ""]
    for name, rep in report["models"].items():
        out += [f"## {name}", "",
                f"layers {rep['layer_types']}, {rep['tokens']} tokens (sequences "
                f"{rep['seq_lens']}), vocab {rep['vocab']}; fixture bf16_tolerance "
                f"{fmt(rep['fixture_bf16_tolerance'])}"
                "; float64 recomputed vs stored logits "
                f"{fmt(rep['float64_recomputed_vs_stored_logits_max_abs'])}; transformers experts "
                f"(bf16) {rep.get('transformers_bf16_eager_experts_implementation')}",
                "", "| gap | per logit mean | median | p90 | p99 | max | per token mean | median | "
                "p90 | p99 | max | max at (seq, pos, vocab) |", "|" + "---|" * 12]
        for k, g in rep["gaps"].items():
            a = g["argmax"]
            out.append(f"| {k} | " + " | ".join(fmt(g["per_logit"][s]) for s in STATS) + " | "
                       + " | ".join(fmt(g["per_token"][s]) for s in STATS)
                       + f" | ({a['sequence']}, {a['position']}, {a['vocab']}) |")
        out += ["", "Top-5 tokens by per-token gap vs float64 (token: seq/pos = gap):", ""]
        for k, g in rep["gaps"].items():
            if k in ("verlpp bf16 vs float64", "transformers bf16 eager vs float64",
                     "transformers bf16 sdpa vs float64"):
                out.append(f"- {k}: " + ", ".join(
                    f"{x['token']}: {x['sequence']}/{x['position']} = {x['gap']:.3f}"
                    for x in g["top_tokens"]))
        out += ["", "Decoder layer outputs vs float64 (relative Frobenius error / max abs):", "",
                "| output | kind | " + " | ".join(rep["layers"]) + " |",
                "|---|---|" + "---|" * len(rep["layers"])]
        labels = list(rep["layers"])
        for j, row in enumerate(rep["layers"][labels[0]]):
            cells = []
            for lb in labels:
                r = rep["layers"][lb][j]
                cells.append(f"{r['rel']:.3e} / {r['max_abs']:.3g}")
            out.append(f"| {row['name']} | {row['kind']} | " + " | ".join(cells) + " |")
        out += ["", "Worst tokens: relative error of that token after each layer (last: final "
                "norm):", ""]
        for k, tr in rep["worst_token_traces"].items():
            w = tr["where"]
            out.append(f"- {k} (seq {w['sequence']} pos {w['position']} of {w['sequence_length']};"
                       f" top 3 of {', '.join(tr['top3_of'])}):"
                       + "; ".join(f" {lb}: [" + ", ".join(f"{x:.2e}" for x in xs) + f"] gap "
                                   f"{tr['gap_per_token'][lb]:.3f}"
                                   for lb, xs in tr["rel_error_after_layer"].items()))
        if "paired" in rep:
            out += ["", "Paired over tokens, verlpp - transformers (95% bootstrap interval over "
                    f"tokens, {BOOTSTRAP} resamples; P(diff > 0)):", "",
                    "| pair | per-token mean | per-token p99 | per-token max | per-logit mean | "
                    "per-logit p99 | pearson | spearman | tokens verlpp <= tf |",
                    "|" + "---|" * 9]
            for k, p in rep["paired"].items():
                cells = [f"{p[s]['diff']:+.4f} [{p[s]['ci95'][0]:+.4f}, {p[s]['ci95'][1]:+.4f}] "
                         f"P={p[s]['p_boot_gt0']:.2f}"
                         for s in ("tok_mean", "tok_p99", "tok_max", "logit_mean", "logit_p99")]
                out.append(f"| {k} | " + " | ".join(cells) + f" | {p['pearson_per_token']:.3f} | "
                           f"{p['spearman_per_token']:.3f} | {p['tokens_verlpp_le_transformers']}/"
                           f"{p['tokens']} |")
        out += ["", "transformers (eager) in bf16 with parts in fp32, gap vs float64:", "",
                "| variant | per-token mean | median | p90 | p99 | max | per-logit mean | p99 |",
                "|" + "---|" * 8]
        for r in rep["promoted"]:
            if "error" in r:
                out.append(f"| {r['variant']} | error: {r['error'][:150]} |")
                continue
            out.append(f"| {r['variant']} | " + " | ".join(fmt(r["per_token"][s]) for s in STATS)
                       + f" | {fmt(r['per_logit']['mean'])} | {fmt(r['per_logit']['p99'])} |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--verlpp-dir", default=os.environ.get("VERLPP_BF16_DUMP_DIR"))
    ap.add_argument("--out", default=".")
    ap.add_argument("--models", nargs="*", default=None)
    args = ap.parse_args()
    if DEVICE == "cuda" and not torch.cuda.is_available():
        raise SystemExit("needs CUDA")
    torch.set_num_threads(min(16, os.cpu_count() or 1))
    models = args.models or gpu_test_models()
    gen = torch.Generator().manual_seed(18)
    report = {"script": "tools/gpu/bf16_gap.py", "transformers": transformers.__version__,
              "torch": torch.__version__,
              "device": torch.cuda.get_device_name(0) if DEVICE == "cuda" else DEVICE,
              "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
              "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
              "quantiles": "torch.quantile, linear interpolation", "bootstrap": BOOTSTRAP,
              "delta_rule_source": delta_rule_source(),
              "models": {}}
    failed = []
    for name in models:
        try:
            report["models"][name] = model_report(name, args.verlpp_dir, gen)
        except Exception as err:  # noqa: BLE001 - the other model still runs
            import traceback
            traceback.print_exc()
            failed.append(f"{name}: {type(err).__name__}: {err}")
    report["failed"] = failed
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bf16_gap.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    md = markdown(report)
    with open(os.path.join(args.out, "bf16_gap.md"), "w") as f:
        f.write(md + "\n")
    print(md, flush=True)
    if failed:
        raise SystemExit(f"failed: {failed}")


if __name__ == "__main__":
    main()
