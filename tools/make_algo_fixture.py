#!/usr/bin/env python3
"""Reference fixture for verlpp's algorithms layer (src/verlpp/algo).

Implements verl's advantage estimators, KL penalties, loss aggregation, policy losses, value loss,
KL controllers, in-reward KL and distillation losses in plain PyTorch (float64), written from the
formulas in shared/reference/verl.md sections 3 and 4 (not from verl's code), deliberately in a
loop-per-group / loop-per-token style that differs from verlpp's vectorised C++.

It draws seeded random inputs (batch 10, response length 6, groups of sizes 4, 3, 1, 2 in shuffled
order, one empty response, one full response, one response with a masked interior token, one group
whose rewards are all equal), evaluates every function and writes inputs and expected outputs
(floats printed with repr, i.e. exactly) to <out>/algo_fixture.json. Gradients of the losses with
respect to the current log-probs (or logits / value predictions) are included so that the
stop-gradient structure is checked too.

Usage: python3 tools/make_algo_fixture.py --out tests/fixtures/algo
"""
import argparse
import json
import math
import os
import sys
import traceback

import torch

torch.set_default_dtype(torch.float64)

SEED = 20261130
B, R = 10, 6
GROUP_SIZES = [4, 3, 1, 2]
V, K = 8, 3  # distillation: vocabulary and teacher top-k


# ----------------------------------------------------------------------------------- primitives


def masked_sum(v, m, dim=None):
    vm = torch.where(m > 0, v, torch.zeros_like(v)) * m
    return vm.sum() if dim is None else vm.sum(dim)


def masked_mean(v, m, dim=None):
    cnt = m.sum() if dim is None else m.sum(dim)
    return masked_sum(v, m, dim) / (cnt + 1e-8)


def masked_var(v, m):
    mean = masked_mean(v, m)
    var = masked_mean((v - mean) ** 2, m)
    n = m.sum()
    assert n.item() > 1
    return var * n / (n - 1)


def masked_whiten(v, m):
    return (v - masked_mean(v, m)) * torch.rsqrt(masked_var(v, m) + 1e-8)


def groups_of(index):
    out = {}
    for i, u in enumerate(index):
        out.setdefault(u, []).append(i)
    return out


# ------------------------------------------------------------------------------- estimators (3.1)


def adv_gae(r, values, m, gamma, lam):
    b, n = r.shape
    next_v = torch.zeros(b)
    next_a = torch.zeros(b)
    adv = torch.zeros(b, n)
    for t in reversed(range(n)):
        delta = r[:, t] + gamma * next_v - values[:, t]
        a = delta + gamma * lam * next_a
        adv[:, t] = a
        next_v = values[:, t] * m[:, t] + (1 - m[:, t]) * next_v
        next_a = a * m[:, t] + (1 - m[:, t]) * next_a
    returns = adv + values
    return masked_whiten(adv, m), returns


def group_mean_std(s, ids):
    if len(ids) == 1:
        return 0.0, 1.0
    x = s[ids]
    return x.mean().item(), x.std().item()  # torch.std: unbiased (n-1)


def adv_grpo(r, m, index, norm):
    s = r.sum(-1)
    a = torch.zeros(r.shape[0])
    for ids in groups_of(index).values():
        mu, sd = group_mean_std(s, ids)
        for i in ids:
            a[i] = (s[i] - mu) / (sd + 1e-6) if norm else s[i] - mu
    adv = a[:, None] * m
    return adv, adv


def adv_grpo_vectorized(r, m, index, norm):
    # verl/utils/groupwise.py style statistics: std = sqrt(max((sum x^2 - (sum x)^2/n)/max(n-1,1), 0)).
    s = r.sum(-1)
    a = torch.zeros(r.shape[0])
    for ids in groups_of(index).values():
        x = s[ids]
        n = len(ids)
        if n == 1:
            mu, sd = 0.0, 1.0
        else:
            mu = (x.sum() / n).item()
            var = ((x * x).sum() - x.sum() ** 2 / n) / max(n - 1, 1)
            sd = torch.sqrt(torch.clamp(var, min=0.0)).item()
        for i in ids:
            a[i] = (s[i] - mu) / (sd + 1e-6) if norm else s[i] - mu
    adv = a[:, None] * m
    return adv, adv


def adv_grpo_passk(r, m, index, norm):
    s = r.sum(-1)
    a = torch.zeros(r.shape[0])
    for ids in groups_of(index).values():
        assert len(ids) >= 2
        order = sorted(ids, key=lambda i: (-s[i].item(), i))
        best, second = order[0], order[1]
        adv = s[best] - s[second]
        if norm:
            adv = adv / (s[ids].std() + 1e-6)
        a[best] = adv
    adv = a[:, None] * m
    return adv, adv


def adv_rloo(r, m, index):
    s = r.sum(-1)
    a = s.clone()
    for ids in groups_of(index).values():
        n = len(ids)
        if n > 1:
            mu = s[ids].mean()
            for i in ids:
                a[i] = s[i] * n / (n - 1) - mu * n / (n - 1)
    adv = a[:, None] * m
    return adv, adv


def adv_rloo_vectorized(r, m, index):
    s = r.sum(-1)
    a = torch.zeros(r.shape[0])
    for ids in groups_of(index).values():
        c = len(ids)
        total = s[ids].sum()
        for i in ids:
            a[i] = (c * s[i] - total) / max(c - 1, 1) if c > 1 else 0.0
    adv = a[:, None] * m
    return adv, adv


def adv_opo(r, m, index):
    s = r.sum(-1)
    lens = m.sum(-1)
    a = torch.zeros(r.shape[0])
    for ids in groups_of(index).values():
        if len(ids) == 1:
            b = 0.0
        else:
            b = (lens[ids] * s[ids]).sum() / lens[ids].sum()
        for i in ids:
            a[i] = s[i] - b
    adv = a[:, None] * m
    return adv, adv


def adv_reinforce_pp(r, m, gamma):
    b, n = r.shape
    ret = torch.zeros(b, n)
    for i in range(b):
        running = 0.0
        for t in reversed(range(n)):
            if m[i, t] > 0:
                running = r[i, t].item() + gamma * running
            ret[i, t] = running
    ret = ret * m
    adv = masked_whiten(ret, m) * m
    return adv, ret


def adv_reinforce_pp_baseline(r, m, index):
    s = r.sum(-1)
    a = torch.zeros(r.shape[0])
    for ids in groups_of(index).values():
        mu = 0.0 if len(ids) == 1 else s[ids].mean().item()
        for i in ids:
            a[i] = s[i] - mu
    tiled = a[:, None].repeat(1, r.shape[1]) * m
    adv = masked_whiten(tiled, m) * m
    return adv, adv


def adv_remax(r, m, baselines):
    b, n = r.shape
    ret = torch.zeros(b, n)
    for i in range(b):
        acc = 0.0
        for t in reversed(range(n)):
            acc += (r[i, t] * m[i, t]).item()
            ret[i, t] = acc
    adv = ret - baselines[:, None] * m
    return adv, ret


def adv_gpg(r, m, index):
    s = r.sum(-1)
    nonzero = int((s != 0).sum().item())
    alpha = r.shape[0] / max(nonzero, 1)
    a = torch.zeros(r.shape[0])
    for ids in groups_of(index).values():
        mu = 0.0 if len(ids) == 1 else s[ids].mean().item()
        for i in ids:
            a[i] = alpha * (s[i] - mu) / 1.0
    adv = a[:, None] * m
    return adv, adv


# ------------------------------------------------------------------------------------ KL (3.2)


def kl_forward(lp, lr, name):
    base = name[:-1] if name.endswith("+") else name
    if base in ("kl", "k1"):
        return lp - lr
    if base == "abs":
        return (lp - lr).abs()
    if base in ("mse", "k2"):
        return 0.5 * (lp - lr) ** 2
    if base in ("low_var_kl", "k3"):
        x = torch.clamp(lr - lp, -20.0, 20.0)
        return torch.clamp(torch.exp(x) - x - 1, -10.0, 10.0)
    raise ValueError(name)


def kl_penalty(lp, lr, name):
    f = kl_forward(lp, lr, name)
    if name.endswith("+") and name[:-1] not in ("mse", "k2"):
        b = 0.5 * (lp - lr) ** 2
        return b - b.detach() + f.detach()
    return f


# ---------------------------------------------------------------------------------- agg (3.4)


def agg_loss(L, m, mode, info):
    dp = info.get("dp_size", 1)
    if mode == "token-mean":
        n = info.get("batch_num_tokens")
        if n is None:
            n = m.sum()
        return masked_sum(L, m) / n * dp
    if mode == "token-sum":
        return masked_sum(L, m) * dp
    seq_mask = (m.sum(-1) > 0).to(L.dtype)
    if mode in ("seq-mean-token-sum", "seq-mean-token-sum-norm"):
        seq = masked_sum(L, m, -1)
    elif mode == "seq-mean-token-mean":
        seq = masked_sum(L, m, -1) / (m.sum(-1) + 1e-8)
    else:
        raise ValueError(mode)
    gbs = info.get("global_batch_size")
    if gbs is None:
        gbs = seq_mask.sum()
    loss = masked_sum(seq, seq_mask) / gbs * dp
    if mode == "seq-mean-token-sum-norm":
        lsf = info.get("loss_scale_factor")
        loss = loss / (lsf if lsf is not None else L.shape[-1])
    return loss


# ------------------------------------------------------------------------- policy losses (3.3)


def pl_vanilla(old, lp, A, m, p, info, w=None):
    d = torch.clamp(lp - old, -20.0, 20.0)
    ratio = torch.exp(d)
    ppo_kl = masked_mean(-d, m)
    l1 = -A * ratio
    l2 = -A * torch.clamp(ratio, 1 - p["clip_ratio_low"], 1 + p["clip_ratio_high"])
    lc = torch.maximum(l1, l2)
    clipfrac = masked_mean((l2 > l1).double(), m)
    l3 = -A * p["clip_ratio_c"]
    ld = torch.minimum(l3, lc)
    clipfrac_lower = masked_mean(((lc > l3) & (A < 0)).double(), m)
    loss = torch.where(A < 0, ld, lc)
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, p["loss_agg_mode"], info), {
        "pg_clipfrac": clipfrac, "ppo_kl": ppo_kl, "pg_clipfrac_lower": clipfrac_lower}


def pl_gspo(old, lp, A, m, p, info, w=None):
    d = lp - old
    seq = (d * m).sum(-1) / torch.clamp(m.sum(-1), min=1.0)
    log_s = lp - lp.detach() + seq.detach()[:, None]
    s = torch.exp(torch.clamp(log_s, max=10.0))
    l1 = -A * s
    l2 = -A * torch.clamp(s, 1 - p["clip_ratio_low"], 1 + p["clip_ratio_high"])
    loss = torch.maximum(l1, l2)
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, "seq-mean-token-mean", info), {
        "pg_clipfrac": masked_mean((l2 > l1).double(), m), "ppo_kl": masked_mean(-d, m),
        "pg_clipfrac_lower": torch.tensor(0.0)}


def pl_sapo(old, lp, A, m, p, info, w=None):
    d = torch.clamp(lp - old, -20.0, 20.0)
    rho = torch.exp(d)
    tau = torch.where(A > 0, torch.full_like(A, p["tau_pos"]), torch.full_like(A, p["tau_neg"]))
    gate = torch.sigmoid(tau * (rho - 1)) * 4.0 / tau
    loss = -gate * A
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, "seq-mean-token-mean", info), {
        "pg_clipfrac": torch.tensor(0.0), "ppo_kl": masked_mean(-d, m),
        "pg_clipfrac_lower": torch.tensor(0.0)}


def pl_gpg(old, lp, A, m, p, info, w=None):
    loss = -lp * A
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, p["loss_agg_mode"], info), {}


def pl_dppo(old, lp, A, m, p, info, w, kind):
    d = torch.clamp(lp - old, -20.0, 20.0)
    rho = torch.exp(d)
    c = p["clip_ratio_c"]
    rho_t = torch.clamp(rho, max=c).detach()
    pp = torch.exp(lp).detach()
    q = torch.exp(old)
    if kind == "tv":
        valid_pos = (pp - q) <= p["clip_ratio_high"]
        valid_neg = (pp - q) >= -p["clip_ratio_low"]
    else:
        D = q * (old - lp.detach()) + (1 - q) * torch.log((1 - q + 1e-8) / (1 - pp + 1e-8))
        valid_pos = (D <= p["clip_ratio_high"]) | (pp <= q)
        valid_neg = (D <= p["clip_ratio_low"]) | (pp >= q)
    valid = torch.where(A > 0, valid_pos, valid_neg).double()
    loss = -A * rho_t * lp * valid
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, p["loss_agg_mode"], info), {
        "pg_clipfrac": masked_mean(1 - valid, m), "ppo_kl": masked_mean(-d, m),
        "pg_clipfrac_lower": masked_mean((rho > c).double() * valid, m)}


def pl_clip_cov(old, lp, A, m, p, info, w=None):
    d = lp - old
    ratio = torch.exp(d)
    l1 = -A * ratio
    l2 = -A * torch.clamp(ratio, 1 - p["clip_ratio_low"], 1 + p["clip_ratio_high"])
    clip_by_origin = (l2 > l1) & (m > 0)
    cov = (A - masked_mean(A, m)) * (lp.detach() - masked_mean(lp.detach(), m))
    cov = torch.where((m == 0) | clip_by_origin, torch.full_like(cov, float("-inf")), cov)
    k = max(int(p["clip_cov_ratio"] * m.sum().item()), 1)
    cand = ((cov > p["clip_cov_lb"]) & (cov < p["clip_cov_ub"]) & (m > 0)).nonzero().tolist()
    # The fixture only uses settings where every candidate is chosen (k >= #candidates), so the
    # uniformly random choice is deterministic.
    assert k >= len(cand), (k, len(cand))
    corr = torch.ones_like(A)
    for i, t in cand:
        corr[i, t] = 0.0
    loss = torch.maximum(l1, l2) * corr
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, p["loss_agg_mode"], info), {
        "pg_clipfrac": masked_mean((corr == 0).double(), m), "ppo_kl": masked_mean(-d, m)}


def pl_kl_cov(old, lp, A, m, p, info, w=None):
    d = lp - old
    ratio = torch.exp(d)
    base = -A * ratio
    with_kl = -A * ratio + p["ppo_kl_coef"] * d.abs()
    valid = [(i, t) for i in range(A.shape[0]) for t in range(A.shape[1]) if m[i, t] > 0]
    loss = base.clone()
    if valid:
        av = torch.stack([A[i, t] for i, t in valid]).detach()
        lv = torch.stack([lp[i, t] for i, t in valid]).detach()
        cov = (av - av.mean()) * (lv - lv.mean())
        k = max(1, int(len(valid) * p["kl_cov_ratio"]))
        top = torch.topk(cov, k).indices.tolist()
        sel = torch.zeros_like(A, dtype=torch.bool)
        for j in top:
            sel[valid[j]] = True
        loss = torch.where(sel, with_kl, base)
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, p["loss_agg_mode"], info), {"ppo_kl": masked_mean(d.abs(), m)}


def pl_geo_mean(old, lp, A, m, p, info, w=None):
    d = lp - old
    dc = torch.clamp(d, -p["clip_ratio_low"], p["clip_ratio_high"])
    sg = torch.sign(A)
    dstar = sg * torch.minimum(sg * d, sg * dc)
    rho = torch.exp((dstar * m).sum(-1) / (m.sum(-1) + 1e-8))
    abar = (A * m).sum(-1) / (m.sum(-1) + 1e-8)
    loss = (-abar * rho).mean()
    moved = (d != dc).double()  # the log-ratios the clamp changed, split by the sign of A
    return loss, {"ppo_kl": masked_mean(-d, m),
                  "pg_clipfrac": masked_mean(moved * (A > 0).double(), m),
                  "pg_clipfrac_lower": masked_mean(moved * (A < 0).double(), m)}


def pl_dro(old, lp, A, m, p, info, w=None):
    d = lp - old
    loss = -(lp * A - 0.5 * p["dro_beta"] * d ** 2)
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, p["loss_agg_mode"], info), {"ppo_kl": masked_mean(-d, m)}


def pl_cispo(old, lp, A, m, p, info, w=None):
    d = torch.clamp(lp - old, -20.0, 20.0)
    rho = torch.exp(d)
    clipped = torch.clamp(rho, 1 - p["clip_ratio_low"], 1 + p["clip_ratio_high"])
    loss = -clipped.detach() * A * lp
    if w is not None:
        loss = loss * w
    return agg_loss(loss, m, p["loss_agg_mode"], info), {
        "pg_clipfrac": masked_mean((rho != clipped).double(), m), "pg_clipfrac_lower": 0.0,
        "ppo_kl": masked_mean(-d, m)}


# ----------------------------------------------------------- optimal token baseline (3.1, OTB)


def adv_otb(r, m, index, old, spi2, w=None, zero_tail=False, multi_turn=False, eps=1e-8):
    b, n = r.shape
    G = torch.zeros(b, n)
    W = torch.zeros(b, n)
    wt = 1 - 2 * torch.exp(old) + spi2
    if w is not None:
        wt = wt * w ** 2
    for i in range(b):
        acc = 0.0
        for t in reversed(range(n)):
            acc = acc + r[i, t] * m[i, t]
            G[i, t] = acc
        acc = 0.0
        for t in range(n):
            acc = acc + wt[i, t] * m[i, t]
            W[i, t] = acc
    lengths = [int(m[i].sum().item()) for i in range(b)]

    def tail(base, rows):
        ls = [lengths[i] for i in rows]
        srt = sorted(ls)
        if ls.count(srt[-1]) == 1 and srt[-1] > srt[-2]:
            base[rows[ls.index(srt[-1])]][srt[-2]:] = [0.0] * (len(base[rows[0]]) - srt[-2])

    A = torch.zeros(b, n)
    if not multi_turn:
        base = [[0.0] * n for _ in range(b)]
        for rows in groups_of(index).values():
            if len(rows) == 1:
                continue
            for t in range(n):
                num = sum(G[i, t] * W[i, t] * m[i, t] for i in rows)
                den = sum(W[i, t] * m[i, t] for i in rows) + eps
                for i in rows:
                    base[i][t] = num / den
            if zero_tail:
                tail(base, rows)
        for i in range(b):
            for t in range(n):
                A[i, t] = (G[i, t] - base[i][t]) * m[i, t]
        return A, G
    pos = [[t for t in range(n) if m[i, t] > 0] for i in range(b)]
    L = max(len(p) for p in pos)
    Gp = [[G[i, p] for p in pos[i]] + [0.0] * (L - len(pos[i])) for i in range(b)]
    Wp = [[W[i, p] for p in pos[i]] + [0.0] * (L - len(pos[i])) for i in range(b)]
    base = [[0.0] * L for _ in range(b)]
    groups = groups_of([index[i] if lengths[i] > 0 else None for i in range(b)])
    for key, rows in groups.items():
        if key is None or len(rows) == 1:
            continue
        for k in range(L):
            num = sum(Gp[i][k] * Wp[i][k] for i in rows)
            den = sum(Wp[i][k] for i in rows) + eps
            for i in rows:
                base[i][k] = num / den
        if zero_tail:
            tail(base, rows)
    for i in range(b):
        for k, t in enumerate(pos[i]):
            A[i, t] = Gp[i][k] - base[i][k]
    return A * m, G


# ------------------------------------------------------------------------------ gdpo (3.1)


def adv_gdpo(m, index, rewards, keys, weights, norm):
    b, n = m.shape
    A = torch.zeros(b, n)
    for k, key in enumerate(keys):
        s = [float(rewards[key][i]) if m[i].sum() > 0 else 0.0 for i in range(b)]
        a = [0.0] * b
        for rows in groups_of(index).values():
            vals = torch.tensor([s[i] for i in rows])
            mean = vals.mean() if len(rows) > 1 else torch.tensor(0.0)
            std = vals.std() if len(rows) > 1 else torch.tensor(1.0)
            for i in rows:
                a[i] = (s[i] - mean) / (std + 1e-6) if norm else s[i] - mean
        w = weights[k] if weights else 1.0
        for i in range(b):
            A[i] += w * a[i] * m[i]
    adv = masked_whiten(A, m) * m
    return adv, adv


# ------------------------------------------------------------------ rollout correction (3.8)

SAFETY = 20.0


def rc_parse(rs, threshold):
    names = []
    for o in rs.split(","):
        o = o.strip()
        if o and o not in names:
            names.append(o)
    specs = [x.strip() for x in str(threshold).split(",") if x.strip()]
    if len(specs) == 1:
        specs = specs * len(names)
    out = []
    for name, spec in zip(names, specs):
        if name.endswith("k1"):
            if "_" in spec:
                lo, hi = (float(x) for x in spec.split("_", 1))
            else:
                hi = float(spec)
                lo = 1.0 / hi
            out.append((name, math.log(lo), math.log(hi)))
        else:
            out.append((name, None, float(spec)))
    return out


def rc_is(lr, m, level, T, normalize):
    b, n = lr.shape
    met = {}
    if level == "token":
        w = torch.exp(torch.clamp(lr, -SAFETY, SAFETY)) * m
    else:
        sums = torch.tensor([sum(float(lr[i, t]) for t in range(n) if m[i, t] > 0) for i in range(b)])
        w = torch.exp(torch.clamp(sums, -SAFETY, SAFETY)).unsqueeze(-1).repeat(1, n) * m
    lo = 1.0 / T
    met["rollout_is_mean"] = masked_mean(w, m)
    if level == "sequence":
        met["rollout_is_max"] = math.exp(min(float(sums.max()), SAFETY))
        met["rollout_is_min"] = math.exp(float(sums.min()))
        met["rollout_is_ratio_fraction_high"] = sum(1.0 for x in sums if x > math.log(T)) / b
        met["rollout_is_ratio_fraction_low"] = sum(1.0 for x in sums if x < math.log(lo)) / b
    else:
        vals = [float(w[i, t]) for i in range(b) for t in range(n) if m[i, t] > 0]
        met["rollout_is_ratio_fraction_high"] = sum(1.0 for x in vals if x > T) / (len(vals) + 1e-8)
        met["rollout_is_ratio_fraction_low"] = sum(1.0 for x in vals if x < lo) / (len(vals) + 1e-8)
        met["rollout_is_max"] = max(vals)
        met["rollout_is_min"] = min(vals)
    wc = torch.clamp(w, lo, T)
    mc = masked_mean(wc, m)
    met["rollout_is_std"] = math.sqrt(max(float(masked_mean(wc ** 2, m) - mc ** 2), 0.0))
    norm = wc / (mc + 1e-8)
    met["rollout_is_eff_sample_size"] = 1.0 / float(masked_mean(norm ** 2, m))
    seq = masked_mean(w, m, -1)
    met["rollout_is_seq_mean"] = seq.mean()
    met["rollout_is_seq_std"] = seq.std()
    met["rollout_is_seq_max"] = seq.max()
    met["rollout_is_seq_min"] = seq.min()
    met["rollout_is_seq_max_deviation"] = (seq - 1.0).abs().max()
    met["rollout_is_seq_fraction_high"] = (seq > T).double().mean()
    met["rollout_is_seq_fraction_low"] = (seq < lo).double().mean()
    w = torch.clamp(w, max=T)
    if normalize:
        if level == "token":
            mean = float(masked_mean(w, m))
        else:
            rows = [i for i in range(b) if m[i].sum() > 0]
            mean = sum(float(masked_mean(w[i], m[i])) for i in rows) / len(rows)
        if mean > 1e-8:
            w = w / mean
            met["rollout_is_batch_norm_factor"] = mean
        else:
            met["rollout_is_batch_norm_factor"] = 1.0
    return w, met


def rc_rs(lr, m, rs, threshold):
    b, n = lr.shape
    r = torch.clamp(lr, -SAFETY, SAFETY)
    stats = {"k1": -r, "k2": 0.5 * r ** 2, "k3": torch.exp(r) - 1.0 - r}
    valid_rows = [i for i in range(b) if m[i].sum() > 0]
    keep_all = torch.ones(b, n)
    met = {}
    for name, lo, hi in rc_parse(rs, threshold):
        tok = stats[name[-2:]]
        seqlevel = not name.startswith("token")
        rowstat = []
        for i in range(b):
            vals = [float(tok[i, t]) for t in range(n) if m[i, t] > 0]
            if name.startswith("seq_sum"):
                rowstat.append(sum(vals))
            elif name.startswith("seq_max"):
                rowstat.append(max(vals) if vals else 0.0)
            else:
                rowstat.append(sum(vals) / (len(vals) + 1e-8))
        rowstat = torch.tensor(rowstat)
        stat = rowstat.unsqueeze(-1).repeat(1, n) if seqlevel else tok
        keep = (stat <= hi) if lo is None else ((stat >= lo) & (stat <= hi))
        keep = keep.double()
        keep_all = keep_all * keep
        p = "rollout_rs_" + name + "_"
        sv = torch.tensor([float(rowstat[i]) for i in valid_rows])
        met[p + "mean"] = masked_mean(stat, m)
        tokvals = [float(stat[i, t]) for i in range(b) for t in range(n) if m[i, t] > 0]
        met[p + "max"] = sv.max() if seqlevel else max(tokvals)
        met[p + "min"] = sv.min() if seqlevel else min(tokvals)
        if seqlevel:
            met[p + "fraction_high"] = (sv > hi).double().mean()
            met[p + "fraction_low"] = (sv < lo).double().mean() if lo is not None else 0.0
        else:
            met[p + "fraction_high"] = masked_mean((stat > hi).double(), m)
            met[p + "fraction_low"] = masked_mean((stat < lo).double(), m) if lo is not None else 0.0
        sc = torch.clamp(stat, lo if lo is not None else 0.0, hi)
        msc = masked_mean(sc, m)
        met[p + "std"] = math.sqrt(max(float(masked_mean(sc ** 2, m) - msc ** 2), 0.0))
        met[p + "seq_mean"] = sv.mean()
        met[p + "seq_std"] = sv.std()
        met[p + "seq_max"] = sv.max()
        met[p + "seq_min"] = sv.min()
        met[p + "seq_max_deviation"] = sv.abs().max()
        met[p + "seq_fraction_high"] = (sv > hi).double().mean()
        if lo is not None:
            met[p + "seq_fraction_low"] = (sv < lo).double().mean()
        met[p + "masked_fraction"] = masked_mean(1.0 - keep, m)
        rejected = [i for i in valid_rows if any(keep[i, t] == 0 and m[i, t] > 0 for t in range(n))]
        met[p + "seq_masked_fraction"] = len(rejected) / len(valid_rows)
    met["rollout_rs_masked_fraction"] = masked_mean(1.0 - keep_all, m)
    rejected = [i for i in range(b) if any(keep_all[i, t] <= 0.5 and m[i, t] > 0 for t in range(n))]
    met["rollout_rs_seq_masked_fraction"] = len(rejected) / b
    return m * keep_all, met


def rc_offpolicy(old, rollout, m):
    b, n = old.shape
    met = {}
    tr = masked_mean(old, m, -1)
    ro = masked_mean(rollout, m, -1)
    met["training_ppl"] = torch.exp(-tr).mean()
    met["training_log_ppl"] = (-tr).mean()
    lr = old - rollout
    met["kl"] = masked_mean(rollout - old, m)
    met["k3_kl"] = masked_mean(torch.exp(lr) - lr - 1, m)
    met["rollout_ppl"] = torch.exp(-ro).mean()
    met["rollout_log_ppl"] = (-ro).mean()
    d = ro - tr
    met["log_ppl_diff"] = d.mean()
    met["log_ppl_abs_diff"] = d.abs().mean()
    met["log_ppl_diff_max"] = d.max()
    met["log_ppl_diff_min"] = d.min()
    met["ppl_ratio"] = torch.exp(d).mean()
    rho = torch.exp(torch.clamp(lr, -SAFETY, SAFETY))
    met["chi2_token"] = masked_mean(rho ** 2, m) - 1.0
    seqsum = torch.tensor([sum(float(lr[i, t]) for t in range(n) if m[i, t] > 0) for i in range(b)])
    met["chi2_seq"] = torch.exp(2.0 * torch.clamp(seqsum, -SAFETY, SAFETY)).mean() - 1.0
    return met


def rollout_correction(old, rollout, m, rc):
    lr = old - rollout
    met = {}
    w = None
    if rc.get("rollout_is") is not None:
        w, im = rc_is(lr, m, rc["rollout_is"], rc.get("rollout_is_threshold", 2.0),
                      rc.get("rollout_is_batch_normalize", False))
        met.update(im)
    new_mask = m.clone()
    if rc.get("rollout_rs") is not None:
        new_mask, rm = rc_rs(lr, m, rc["rollout_rs"], rc["rollout_rs_threshold"])
        met.update(rm)
    met.update(rc_offpolicy(old, rollout, m))
    return w, new_mask, {"rollout_corr/" + k: v for k, v in met.items()}


def pl_bypass(old, lp, A, m, p, info, w=None):
    rc = p["rollout_correction"]
    weights, mask2, met = rollout_correction(lp.detach(), old, m, rc)
    if rc.get("loss_type", "ppo_clip") == "reinforce":
        L = -A * lp
        if weights is not None:
            L = L * weights
        loss = agg_loss(L, mask2, p["loss_agg_mode"], info)
        metrics = {"ppo_kl": masked_mean(old - lp, mask2)}
    else:
        loss, metrics = pl_vanilla(old, lp, A, mask2, p, info)
    metrics = dict(metrics)
    metrics.update(met)
    return loss, metrics



POLICY_LOSSES = {
    "vanilla": pl_vanilla, "gspo": pl_gspo, "sapo": pl_sapo, "gpg": pl_gpg,
    "dppo_tv": lambda *a, **k: pl_dppo(*a, **k, kind="tv"),
    "dppo_kl": lambda *a, **k: pl_dppo(*a, **k, kind="kl"),
    "clip_cov": pl_clip_cov, "kl_cov": pl_kl_cov, "geo_mean": pl_geo_mean, "dro": pl_dro,
    "cispo": pl_cispo, "bypass_mode": pl_bypass,
}

DEFAULT_POLICY = {
    "clip_ratio_low": 0.2, "clip_ratio_high": 0.2, "clip_ratio_c": 3.0, "tau_pos": 1.0,
    "tau_neg": 1.05, "clip_cov_ratio": 0.0002, "clip_cov_lb": 1.0, "clip_cov_ub": 5.0,
    "kl_cov_ratio": 0.0002, "ppo_kl_coef": 0.1, "dro_beta": None, "loss_agg_mode": "token-mean",
}


# ------------------------------------------------------------------------- value loss (3.6)


def value_loss(vpred, returns, old_values, m, cliprange, mode, info):
    vclip = torch.max(torch.min(vpred, old_values + cliprange), old_values - cliprange)
    l1 = (vpred - returns) ** 2
    l2 = (vclip - returns) ** 2
    vf = 0.5 * agg_loss(torch.max(l1, l2), m, mode, info)
    return vf, {"vf_loss": vf.detach(), "vf_clipfrac": masked_mean((l2 > l1).double(), m),
                "vpred_mean": masked_mean(vpred.detach(), m)}


# ------------------------------------------------------------------- distillation losses (4)


def forward_kl_topk(student_logits, teacher_ids, teacher_lp, m, temperature, min_clamp):
    log_q_all = torch.log_softmax(student_logits / temperature, dim=-1)
    log_q = torch.gather(log_q_all, -1, teacher_ids)
    log_p = teacher_lp
    student_mass = log_q.detach().exp().sum(-1)
    teacher_mass = log_p.exp().sum(-1)
    if min_clamp is not None:
        log_q = torch.clamp(log_q, min=min_clamp)
        log_p = torch.clamp(log_p, min=min_clamp)
    token_kl = log_p.exp() * (log_p - log_q)
    D = torch.clamp(token_kl.sum(-1), min=0.0)
    k = teacher_ids.shape[-1]
    student_top = torch.topk(student_logits.detach(), k, dim=-1).indices
    overlap = torch.zeros(m.shape)
    overlap_advantage = torch.zeros(m.shape)  # mean of -token_kl over the shared ids, 0 if none
    for i in range(m.shape[0]):
        for t in range(m.shape[1]):
            b = set(student_top[i, t].tolist())
            shared = [j for j, tid in enumerate(teacher_ids[i, t].tolist()) if tid in b]
            overlap[i, t] = len(shared) / k
            if shared:
                overlap_advantage[i, t] = -sum(token_kl[i, t, j].item() for j in shared) / len(shared)
    valid = m > 0
    metrics = {
        "distillation/student_mass": masked_mean(student_mass, m),
        "distillation/student_mass_min": student_mass[valid].min(),
        "distillation/student_mass_max": student_mass[valid].max(),
        "distillation/teacher_mass": masked_mean(teacher_mass, m),
        "distillation/teacher_mass_min": teacher_mass[valid].min(),
        "distillation/teacher_mass_max": teacher_mass[valid].max(),
        "distillation/overlap_ratio": masked_mean(overlap, m),
        "distillation/overlap_token_advantage": masked_mean(overlap_advantage, m),
    }
    return D, metrics


def distillation_loss(D, m, cfg, agg_mode, info, old=None, lp=None):
    """D: per-token divergence (graph attached for the supervised form)."""
    valid = m > 0
    metrics = {"distillation/loss_min": D.detach()[valid].min(),
               "distillation/loss_max": D.detach()[valid].max()}
    # verl reports abs_loss, like loss_min and loss_max, before loss_max_clamp.
    metrics["distillation/abs_loss"] = masked_mean(D.detach().abs(), m)
    c = cfg.get("loss_max_clamp")
    if c is not None:
        D = torch.clamp(D, -c, c)
    if cfg["use_policy_gradient"]:
        A = -D.detach()
        p = dict(DEFAULT_POLICY)
        p.update({"clip_ratio_low": cfg["clip_ratio_low"], "clip_ratio_high": cfg["clip_ratio_high"],
                  "clip_ratio_c": 3.0, "loss_agg_mode": agg_mode})
        loss, pm = pl_vanilla(old, lp, A, m, p, info)
        for k, v in pm.items():
            metrics["distillation/" + k] = v
    else:
        loss = agg_loss(D, m, agg_mode, info)
    metrics["distillation/loss"] = loss.detach()
    return loss, metrics


# -------------------------------------------------------------------------------- inputs


def make_inputs():
    g = torch.Generator().manual_seed(SEED)
    index = []
    for gi, n in enumerate(GROUP_SIZES):
        index += [gi] * n
    perm = torch.randperm(B, generator=g).tolist()
    index = [index[p] for p in perm]
    members = groups_of(index)

    lengths = torch.randint(1, R + 1, (B,), generator=g).tolist()
    empty_row = members[0][1]          # group 0 (size 4) holds the empty response
    full_row = members[0][2]
    holed_row = members[3][0]          # group 3 (size 2) holds a response with a tool token
    lengths[empty_row] = 0
    lengths[full_row] = R
    lengths[holed_row] = R
    mask = torch.zeros(B, R)
    for i, n in enumerate(lengths):
        mask[i, :n] = 1.0
    mask[holed_row, 2] = 0.0

    dense = 0.1 * torch.randn(B, R, generator=g) * mask
    scores = torch.randn(B, generator=g)
    rewards = dense.clone()
    for i, n in enumerate(lengths):
        if n > 0:
            rewards[i, n - 1] += scores[i]
    for i in members[1]:               # group 1 (size 3): all rewards equal
        rewards[i] = 0.0
        rewards[i, lengths[i] - 1] = 1.0

    old = -(torch.rand(B, R, generator=g) * 2.5 + 0.05)
    lp = torch.clamp(old + 0.35 * torch.randn(B, R, generator=g), max=-0.01)
    ref = torch.clamp(old + 0.5 * torch.randn(B, R, generator=g), max=-0.01)
    adv = torch.randn(B, R, generator=g)
    adv[full_row, 1] = 0.0
    passk_index = [gi if gi != 2 else 3 for gi in index]  # merge the singleton: sizes 4, 3, 3

    # KL inputs with differences beyond the k3 clamps (|x| > 20, k3 > 10).
    kl_lp = lp.clone()
    kl_ref = ref.clone()
    kl_ref[0, 0] = kl_lp[0, 0] + 25.0
    kl_ref[0, 1] = kl_lp[0, 1] + 5.0
    kl_ref[1, 0] = kl_lp[1, 0] - 25.0
    kl_ref[1, 1] = kl_lp[1, 1] - 5.0

    student_logits = 1.5 * torch.randn(B, R, V, generator=g)
    teacher_logits = 1.5 * torch.randn(B, R, V, generator=g)
    teacher_ids = torch.topk(teacher_logits, K, dim=-1).indices
    teacher_lp = torch.gather(torch.log_softmax(teacher_logits, -1), -1, teacher_ids)
    teacher_token_lp = torch.clamp(old + 0.6 * torch.randn(B, R, generator=g), max=-0.01)

    values = 0.5 * torch.randn(B, R, generator=g)
    return {
        "index": index,
        "passk_index": passk_index,
        "response_mask": mask,
        "token_level_rewards": rewards,
        "values": values,
        "reward_baselines": torch.randn(B, generator=g),
        "old_log_prob": old,
        "log_prob": lp,
        "ref_log_prob": ref,
        "advantages": adv,
        "entropy": 2.0 * torch.rand(B, R, generator=g),
        "rollout_is_weights": 0.5 + torch.rand(B, R, generator=g),
        "returns": torch.randn(B, R, generator=g),
        "vpreds": values + 0.6 * torch.randn(B, R, generator=g),
        "kl_log_prob": kl_lp,
        "kl_ref_log_prob": kl_ref,
        "kl_weights": torch.randn(B, R, generator=g),
        "student_logits": student_logits,
        "teacher_ids": teacher_ids,
        "teacher_logprobs": teacher_lp,
        "teacher_token_log_prob": teacher_token_lp,
        **correction_inputs(old, mask),
    }


def correction_inputs(old, mask):
    """Rollout-correction and OTB inputs from a second generator (the inputs above unchanged)."""
    g = torch.Generator().manual_seed(SEED + 1)
    rollout = torch.clamp(old + 0.3 * torch.randn(B, R, generator=g), max=-0.01)
    rows = [i for i in range(B) if mask[i].sum() > 1]
    rollout[rows[0], 0] = old[rows[0], 0] - 22.0   # log-ratio beyond the +-20 safety bound
    rollout[rows[1], 0] = old[rows[1], 0] + 1.5
    out = {"rollout_log_prob": rollout,
           "sum_pi_squared": 0.05 + 0.9 * torch.rand(B, R, generator=g)}
    g2 = torch.Generator().manual_seed(SEED + 2)  # gdpo's named rewards
    out["gdpo_acc"] = (torch.rand(B, generator=g2) > 0.5).double()
    out["gdpo_format"] = torch.round(torch.rand(B, generator=g2) * 4) / 4
    return out


# --------------------------------------------------------------------------------- cases


def tolist(x):
    if isinstance(x, torch.Tensor):
        return x.detach().tolist()
    return x


def grad_of(loss, x):
    (gr,) = torch.autograd.grad(loss, x, allow_unused=True)
    return torch.zeros_like(x) if gr is None else gr


GLOBAL_INFOS = [
    {},
    {"dp_size": 2, "batch_num_tokens": 71.0, "global_batch_size": 23.0, "loss_scale_factor": 4.0},
]
AGG_MODES = ["token-mean", "token-sum", "seq-mean-token-sum", "seq-mean-token-mean",
             "seq-mean-token-sum-norm"]


def section_primitives(I):
    m, v = I["response_mask"], I["values"]
    return [
        {"fn": "masked_sum", "out": masked_sum(v, m)},
        {"fn": "masked_mean", "out": masked_mean(v, m)},
        {"fn": "masked_mean_dim", "out": masked_mean(v, m, -1)},
        {"fn": "masked_var", "out": masked_var(v, m)},
        {"fn": "masked_whiten", "out": masked_whiten(v, m)},
    ]


def section_advantages(I):
    r, m, idx = I["token_level_rewards"], I["response_mask"], I["index"]
    cases = []

    def add(name, params, out, index_key="index"):
        cases.append({"name": name, "params": params, "index_key": index_key,
                      "advantages": out[0], "returns": out[1]})

    for gamma, lam in [(1.0, 1.0), (0.9, 0.8)]:
        add("gae", {"gamma": gamma, "lam": lam}, adv_gae(r, I["values"], m, gamma, lam))
        add("reinforce_plus_plus", {"gamma": gamma}, adv_reinforce_pp(r, m, gamma))
    for norm in [True, False]:
        add("grpo", {"norm_adv_by_std_in_grpo": norm}, adv_grpo(r, m, idx, norm))
        add("grpo_vectorized", {"norm_adv_by_std_in_grpo": norm},
            adv_grpo_vectorized(r, m, idx, norm))
        add("grpo_passk", {"norm_adv_by_std_in_grpo": norm},
            adv_grpo_passk(r, m, I["passk_index"], norm), "passk_index")
    add("rloo", {}, adv_rloo(r, m, idx))
    add("rloo_vectorized", {}, adv_rloo_vectorized(r, m, idx))
    add("opo", {}, adv_opo(r, m, idx))
    add("reinforce_plus_plus_baseline", {}, adv_reinforce_pp_baseline(r, m, idx))
    add("remax", {}, adv_remax(r, m, I["reward_baselines"]))
    add("gpg", {}, adv_gpg(r, m, idx))
    old, spi2, w = I["old_log_prob"], I["sum_pi_squared"], I["rollout_is_weights"]
    for multi_turn, name in [(False, "optimal_token_baseline"), (True, "tir_optimal_token_baseline")]:
        for with_is in (False, True):
            add(name, {"with_is_weights": with_is},
                adv_otb(r, m, idx, old, spi2, w if with_is else None, zero_tail=multi_turn,
                        multi_turn=multi_turn))
    named = {"acc": I["gdpo_acc"], "format": I["gdpo_format"]}
    for keys, weights, norm in [(["acc", "format"], [], True), (["format", "acc"], [0.5, 2.0], True),
                                (["acc"], [], False)]:
        add("gdpo", {"gdpo_reward_keys": keys, "gdpo_reward_weights": weights,
                     "norm_adv_by_std_in_grpo": norm},
            adv_gdpo(m, idx, named, keys, weights, norm))
    return cases


def section_kl(I):
    cases = []
    for name in ["kl", "k1", "abs", "mse", "k2", "low_var_kl", "k3"]:
        for n in (name, name + "+"):
            lp = I["kl_log_prob"].clone().requires_grad_(True)
            val = kl_penalty(lp, I["kl_ref_log_prob"], n)
            gr = grad_of((val * I["kl_weights"]).sum(), lp)
            cases.append({"name": n, "value": val, "grad_log_prob": gr})
    return cases


def section_agg(I):
    cases = []
    L = I["advantages"] * I["entropy"]  # any loss matrix
    for mode in AGG_MODES:
        for info in GLOBAL_INFOS:
            cases.append({"mode": mode, "global": info,
                          "loss": agg_loss(L, I["response_mask"], mode, info)})
    return cases


def policy_case(I, mode, overrides, info, with_weights=False):
    p = dict(DEFAULT_POLICY)
    p.update(overrides)
    lp = I["log_prob"].clone().requires_grad_(True)
    w = I["rollout_is_weights"] if with_weights else None
    loss, metrics = POLICY_LOSSES[mode](I["old_log_prob"], lp, I["advantages"],
                                        I["response_mask"], p, info, w)
    gr = grad_of(loss, lp)
    return {"loss_mode": mode, "params": overrides, "global": info,
            "rollout_is_weights": with_weights, "loss": loss, "metrics": metrics,
            "grad_log_prob": gr}


def bypass_case(I, rc, overrides, info):
    p = dict(DEFAULT_POLICY)
    p.update(overrides)
    p["rollout_correction"] = rc
    lp = I["log_prob"].clone().requires_grad_(True)
    loss, metrics = pl_bypass(I["rollout_log_prob"], lp, I["advantages"], I["response_mask"], p,
                              info)
    params = dict(overrides)
    params["rollout_correction"] = rc
    return {"loss_mode": "bypass_mode", "params": params, "global": info,
            "old_key": "rollout_log_prob", "rollout_is_weights": False, "loss": loss,
            "metrics": metrics, "grad_log_prob": grad_of(loss, lp)}


def section_policy(I):
    cases = []
    g1 = GLOBAL_INFOS[1]
    cases.append(bypass_case(I, {"loss_type": "ppo_clip"}, {}, g1))
    cases.append(bypass_case(I, {"loss_type": "ppo_clip", "rollout_is": "token",
                                 "rollout_rs": "token_k1", "rollout_rs_threshold": "0.7_1.6"},
                             {"loss_agg_mode": "seq-mean-token-mean"}, {}))
    cases.append(bypass_case(I, {"loss_type": "reinforce"}, {}, g1))
    cases.append(bypass_case(I, {"loss_type": "reinforce", "rollout_is": "token",
                                 "rollout_is_threshold": 1.5}, {}, g1))
    cases.append(bypass_case(I, {"loss_type": "reinforce", "rollout_is": "sequence",
                                 "rollout_is_threshold": 3.0, "rollout_is_batch_normalize": True,
                                 "rollout_rs": "seq_mean_k3", "rollout_rs_threshold": 0.05},
                             {"loss_agg_mode": "token-sum"}, {}))
    for agg in AGG_MODES:
        for info in GLOBAL_INFOS:
            cases.append(policy_case(I, "vanilla", {"loss_agg_mode": agg}, info))
    cases.append(policy_case(I, "vanilla", {"clip_ratio_low": 0.1, "clip_ratio_high": 0.28,
                                             "clip_ratio_c": 1.5}, GLOBAL_INFOS[1]))
    cases.append(policy_case(I, "vanilla", {}, GLOBAL_INFOS[1], with_weights=True))
    # A dual-clip constant close to 1 so that some negative-advantage tokens hit it.
    cases.append(policy_case(I, "vanilla", {"clip_ratio_c": 1.05}, GLOBAL_INFOS[1]))
    cases.append(policy_case(I, "vanilla", {"clip_ratio_c": 1.1, "loss_agg_mode": "token-sum"}, {},
                             with_weights=True))
    g = GLOBAL_INFOS[1]
    cases.append(policy_case(I, "gspo", {}, g))
    cases.append(policy_case(I, "gspo", {"clip_ratio_low": 0.0003, "clip_ratio_high": 0.0004}, {}))
    cases.append(policy_case(I, "sapo", {}, g))
    cases.append(policy_case(I, "sapo", {"tau_pos": 0.5, "tau_neg": 2.0}, {}, with_weights=True))
    cases.append(policy_case(I, "gpg", {}, g))
    cases.append(policy_case(I, "gpg", {"loss_agg_mode": "seq-mean-token-mean"}, {}))
    for kind in ["dppo_tv", "dppo_kl"]:
        cases.append(policy_case(I, kind, {}, g))
        cases.append(policy_case(I, kind, {"clip_ratio_low": 0.05, "clip_ratio_high": 0.1,
                                           "clip_ratio_c": 1.2,
                                           "loss_agg_mode": "seq-mean-token-sum"}, {}))
    cases.append(policy_case(I, "clip_cov", {"clip_cov_ratio": 1.0, "clip_cov_lb": 0.1,
                                             "clip_cov_ub": 2.0}, g))
    cases.append(policy_case(I, "clip_cov", {"clip_cov_ratio": 0.5, "clip_cov_lb": 50.0,
                                             "clip_cov_ub": 60.0}, {}))
    cases.append(policy_case(I, "kl_cov", {}, g))
    cases.append(policy_case(I, "kl_cov", {"kl_cov_ratio": 0.2, "ppo_kl_coef": 0.5,
                                           "loss_agg_mode": "seq-mean-token-mean"}, {}))
    cases.append(policy_case(I, "geo_mean", {}, g))
    cases.append(policy_case(I, "geo_mean", {"clip_ratio_low": 0.05, "clip_ratio_high": 0.1}, {}))
    cases.append(policy_case(I, "dro", {"dro_beta": 0.3}, g))
    cases.append(policy_case(I, "cispo", {}, g))
    cases.append(policy_case(I, "cispo", {"clip_ratio_low": 0.1, "clip_ratio_high": 0.3,
                                          "loss_agg_mode": "token-sum"}, {}, with_weights=True))
    return cases


def section_actor_loss(I):
    cases = []
    for mode, info, ent, kl_type in [("token-mean", GLOBAL_INFOS[1], 0.01, "low_var_kl"),
                                     ("seq-mean-token-mean", {}, 0.0, "k1+")]:
        lp = I["log_prob"].clone().requires_grad_(True)
        p = dict(DEFAULT_POLICY)
        p["loss_agg_mode"] = mode
        m = I["response_mask"]
        pg, metrics = pl_vanilla(I["old_log_prob"], lp, I["advantages"], m, p, info)
        ent_loss = agg_loss(I["entropy"], m, mode, info)
        kl_loss = agg_loss(kl_penalty(lp, I["ref_log_prob"], kl_type), m, mode, info)
        total = pg - ent * ent_loss + 0.001 * kl_loss
        metrics = dict(metrics)
        metrics.update({"pg_loss": pg, "entropy_loss": ent_loss, "kl_loss": kl_loss,
                        "kl_coef": torch.tensor(0.001)})
        cases.append({"loss_agg_mode": mode, "global": info, "entropy_coeff": ent,
                      "kl_loss_type": kl_type, "kl_loss_coef": 0.001, "loss": total,
                      "metrics": metrics, "grad_log_prob": grad_of(total, lp)})
    return cases


def section_value(I):
    cases = []
    for mode, info, cr in [("token-mean", {}, 0.5), ("token-mean", GLOBAL_INFOS[1], 0.2),
                           ("seq-mean-token-mean", {}, 0.5)]:
        vp = I["vpreds"].clone().requires_grad_(True)
        vf, metrics = value_loss(vp, I["returns"], I["values"], I["response_mask"], cr, mode, info)
        cases.append({"loss_agg_mode": mode, "global": info, "cliprange_value": cr, "loss": vf,
                      "metrics": metrics, "grad_vpreds": grad_of(vf, vp)})
    return cases


def section_kl_ctrl(I):
    kls = [0.05, 0.3, 0.11, 0.0, 0.2]
    value, trace = 0.2, []
    for kl in kls:
        e = max(min(kl / 0.1 - 1, 0.2), -0.2)
        value *= 1 + e * 64 / 1000
        trace.append(value)
    return [{"type": "adaptive", "kl_coef": 0.2, "target_kl": 0.1, "horizon": 1000, "n_steps": 64,
             "current_kls": kls, "values": trace}]


def section_kl_in_reward(I):
    cases = []
    m = I["response_mask"]
    for name, beta in [("kl", 0.001), ("low_var_kl", 0.05)]:
        kld = kl_penalty(I["old_log_prob"], I["ref_log_prob"], name) * m
        rewards = I["token_level_rewards"] - beta * kld
        current = masked_mean(kld, m, -1).mean()
        cases.append({"kl_penalty": name, "beta": beta, "token_level_rewards": rewards,
                      "current_kl": current})
    return cases


def section_distillation(I):
    cases = []
    m = I["response_mask"]
    for mode, pg, clamp in [("k3", False, None), ("k1", True, 10.0), ("k1", True, 0.3),
                            ("k2", False, 0.05), ("abs", True, None), ("low_var_kl", False, 1.0)]:
        for agg, info in [("token-mean", GLOBAL_INFOS[1]), ("seq-mean-token-mean", {})]:
            lp = I["log_prob"].clone().requires_grad_(True)
            cfg = {"loss_mode": mode, "use_policy_gradient": pg, "loss_max_clamp": clamp,
                   "clip_ratio_low": 0.2, "clip_ratio_high": 0.2}
            D = kl_penalty(lp, I["teacher_token_log_prob"], mode)
            loss, metrics = distillation_loss(D, m, cfg, agg, info, I["old_log_prob"], lp)
            cases.append({"config": cfg, "loss_agg_mode": agg, "global": info, "loss": loss,
                          "metrics": metrics, "grad_log_prob": grad_of(loss, lp)})
    for temperature, min_clamp, clamp, pg in [(1.0, None, None, False), (0.7, -2.5, 0.4, False),
                                              (1.3, -10.0, 10.0, False), (1.0, -10.0, 10.0, True)]:
        logits = I["student_logits"].clone().requires_grad_(True)
        lp = I["log_prob"].clone().requires_grad_(True)
        D, tm = forward_kl_topk(logits, I["teacher_ids"], I["teacher_logprobs"], m, temperature,
                                min_clamp)
        cfg = {"loss_mode": "forward_kl_topk", "use_policy_gradient": pg,
               "loss_max_clamp": clamp, "log_prob_min_clamp": min_clamp,
               "clip_ratio_low": 0.2, "clip_ratio_high": 0.2}
        loss, metrics = distillation_loss(D, m, cfg, "token-mean", GLOBAL_INFOS[1],
                                          I["old_log_prob"], lp)
        metrics.update(tm)
        grads = torch.autograd.grad(loss, [logits, lp], allow_unused=True)
        grads = [g if g is not None else torch.zeros_like(x) for g, x in zip(grads, [logits, lp])]
        cases.append({"config": cfg, "temperature": temperature, "loss_agg_mode": "token-mean",
                      "global": GLOBAL_INFOS[1], "divergence": D, "loss": loss,
                      "metrics": metrics, "grad_student_logits": grads[0],
                      "grad_log_prob": grads[1]})
    return cases


def section_distillation_ppo(I):
    """verl.md §4 "Combining": use_task_rewards adds the PPO actor loss (task advantages) to
    coef x the distillation loss; without task rewards the distillation loss alone is the loss and
    the PPO loss is evaluated for its metrics only with the policy-gradient form."""
    cases = []
    m = I["response_mask"]
    for mode, pg, task, coef, clamp in [("k3", False, True, 0.5, None), ("k1", True, True, 2.0, 0.3),
                                        ("k1", True, False, 1.0, 10.0), ("k2", False, False, 1.0, None),
                                        ("abs", True, True, 1.0, 0.05)]:
        lp = I["log_prob"].clone().requires_grad_(True)
        info = GLOBAL_INFOS[1]
        cfg = {"loss_mode": mode, "use_policy_gradient": pg, "loss_max_clamp": clamp,
               "clip_ratio_low": 0.2, "clip_ratio_high": 0.2, "use_task_rewards": task,
               "distillation_loss_coef": coef}
        D = kl_penalty(lp, I["teacher_token_log_prob"], mode)
        d_loss, metrics = distillation_loss(D, m, cfg, "token-mean", info, I["old_log_prob"], lp)
        p = dict(DEFAULT_POLICY)
        p["loss_agg_mode"] = "token-mean"
        metrics = dict(metrics)
        if task or pg:
            ppo, pm = pl_vanilla(I["old_log_prob"], lp, I["advantages"], m, p, info)
            metrics.update(pm)
            metrics["pg_loss"] = ppo.detach()
        total = ppo + coef * d_loss if task else d_loss
        metrics["loss"] = total.detach()
        cases.append({"config": cfg, "loss_agg_mode": "token-mean", "global": info,
                      "loss": total, "metrics": metrics, "grad_log_prob": grad_of(total, lp)})
    # forward_kl_topk (supervised) with the task rewards' PPO loss: gradients reach the logits
    # through D and log_prob through the PPO loss.
    lp = I["log_prob"].clone().requires_grad_(True)
    logits = I["student_logits"].clone().requires_grad_(True)
    info = GLOBAL_INFOS[1]
    cfg = {"loss_mode": "forward_kl_topk", "use_policy_gradient": False, "loss_max_clamp": 0.4,
           "log_prob_min_clamp": -2.5, "clip_ratio_low": 0.2, "clip_ratio_high": 0.2,
           "use_task_rewards": True, "distillation_loss_coef": 0.7}
    D, tm = forward_kl_topk(logits, I["teacher_ids"], I["teacher_logprobs"], m, 1.0, -2.5)
    d_loss, metrics = distillation_loss(D, m, cfg, "token-mean", info)
    metrics = dict(metrics)
    metrics.update(tm)
    p = dict(DEFAULT_POLICY)
    p["loss_agg_mode"] = "token-mean"
    ppo, pm = pl_vanilla(I["old_log_prob"], lp, I["advantages"], m, p, info)
    metrics.update(pm)
    metrics["pg_loss"] = ppo.detach()
    total = ppo + 0.7 * d_loss
    metrics["loss"] = total.detach()
    g_logits, g_lp = torch.autograd.grad(total, [logits, lp])
    cases.append({"config": cfg, "loss_agg_mode": "token-mean", "global": info, "loss": total,
                  "metrics": metrics, "grad_log_prob": g_lp, "grad_student_logits": g_logits})
    return cases


RC_CONFIGS = [
    {},
    {"rollout_is": "token", "rollout_is_threshold": 2.0},
    {"rollout_is": "token", "rollout_is_threshold": 1.5, "rollout_is_batch_normalize": True},
    {"rollout_is": "sequence", "rollout_is_threshold": 5.0},
    {"rollout_is": "sequence", "rollout_is_threshold": 2.0, "rollout_is_batch_normalize": True},
    {"rollout_rs": "token_k1", "rollout_rs_threshold": "0.6_1.8"},
    {"rollout_rs": "token_k2, token_k3", "rollout_rs_threshold": "0.05"},
    {"rollout_rs": "seq_sum_k1,seq_mean_k3,seq_max_k2", "rollout_rs_threshold": "0.3_3.0,0.05,0.2"},
    {"rollout_rs": "seq_sum_k2,seq_sum_k3,seq_mean_k1,seq_mean_k2,seq_max_k3",
     "rollout_rs_threshold": "1.5"},
    {"rollout_is": "sequence", "rollout_is_threshold": 2.0, "rollout_rs": "token_k1,token_k1",
     "rollout_rs_threshold": 2.0},
]


def section_rollout_correction(I):
    cases = []
    for rc in RC_CONFIGS:
        w, mask2, met = rollout_correction(I["old_log_prob"], I["rollout_log_prob"],
                                           I["response_mask"], rc)
        cases.append({"config": rc, "rollout_is_weights": w, "response_mask": mask2,
                      "metrics": met})
    return cases


SECTIONS = {
    "primitives": section_primitives, "advantages": section_advantages, "kl": section_kl,
    "agg": section_agg, "policy": section_policy, "actor_loss": section_actor_loss,
    "value": section_value, "kl_ctrl": section_kl_ctrl, "kl_in_reward": section_kl_in_reward,
    "distillation": section_distillation, "distillation_ppo": section_distillation_ppo,
    "rollout_correction": section_rollout_correction,
}


def to_json(x):
    if isinstance(x, dict):
        return {k: to_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_json(v) for v in x]
    return tolist(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    I = make_inputs()
    doc = {"generator": "tools/make_algo_fixture.py", "torch": torch.__version__, "seed": SEED,
           "inputs": to_json(I), "failed_sections": []}
    for name, fn in SECTIONS.items():
        try:
            doc[name] = to_json(fn(I))
        except Exception:  # keep the other sections if one is wrong
            traceback.print_exc()
            doc["failed_sections"].append(name)
    path = os.path.join(args.out, "algo_fixture.json")
    with open(path, "w") as f:
        json.dump(doc, f, allow_nan=False)
    print(f"wrote {path} ({os.path.getsize(path)} bytes); failed sections: {doc['failed_sections']}")
    return 1 if doc["failed_sections"] else 0


if __name__ == "__main__":
    sys.exit(main())
