#!/usr/bin/env bash
# `verlpp ppo` (GRPO) on a tiny random-init Qwen3-MoE on the CPU: GSM8K prepared by `verlpp data
# gsm8k`, the real Qwen3 tokenizer, `verlpp model init --arch qwen3_moe` (5 experts, top-2, layer 1
# dense). Asserts: 2 steps run (entropy_coeff gives a gradient: random weights score 0) and log
# actor/moe_aux_loss (between 1 and E, the load-balancing loss's range for top-2 of 5 experts: k = 2
# when balanced), which changes as the router trains; the checkpoint's
# experts are stored per expert as the hub layout; the reference policy is the MoE too (kl_loss);
# a resumed run continues from the saved weights (2 steps straight and 1 + resume + 1 give the
# same metrics); under Megatron with moe_router_load_balancing_type=aux_loss the aux loss joins the
# loss (other gradient norm); a MoE critic trunk (GAE); `model export` of the trained actor scores
# as the checkpoint; the rollout's routing keys verlpp lacks are refused; with VLLM_BATCH_INVARIANT=1
# the rollout's log-probs equal the actor's recompute exactly (training/rollout_probs_diff_max 0)
# and the first update's ppo_kl is exactly 0, with micro-batches of other sizes in every pass (the
# same run without it shows nonzero differences), and check notes the switch.
# Usage: ppo_moe_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"

prepare_gsm8k
out=$("$VERLPP" model init --arch qwen3_moe --hidden-size 16 --intermediate-size 32 \
      --num-hidden-layers 3 --num-attention-heads 2 --num-key-value-heads 1 --head-dim 8 \
      --vocab-size 151936 --num-experts 5 --num-experts-per-tok 2 --moe-intermediate-size 8 \
      --mlp-only-layers 1 --tie-word-embeddings false --dtype float32 --seed 3 \
      --tokenizer tests/fixtures/tokenizers/qwen3 --output "$work/model" 2>&1) || fail "model init: $out"

common=(
  data.train_files="$work/gsm8k/train.jsonl" data.val_files="$work/gsm8k/test.jsonl"
  data.train_max_samples=8 data.val_max_samples=2 data.train_batch_size=2
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.model.path="$work/model"
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.actor.entropy_coeff=0.01
  actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1 trainer.val_before_train=false
  'trainer.logger=[console,file]' trainer.project_name=e2e trainer.experiment_name=moe
)
ppo() {  # ppo LOGFILE CKPT_DIR overrides...
  local log=$1 ckpt=$2
  shift 2
  VERL_FILE_LOGGER_PATH=$log "$VERLPP" ppo "${common[@]}" trainer.default_local_dir="$ckpt" "$@" 2>&1
}

# 1. Two GRPO steps, a checkpoint at each.
out=$(ppo "$work/run.jsonl" "$work/ckpt" trainer.total_training_steps=2 trainer.save_freq=1); rc=$?
[ "$rc" -eq 0 ] || fail "ppo run (exit $rc): $(tail -20 <<<"$out")"
grep -q "actor/moe_aux_loss" <<<"$out" || fail "no actor/moe_aux_loss on the console"
python3 - "$work/run.jsonl" <<'PY' || fail "metrics of the 2-step run"
import json, sys
steps = {}
for l in map(json.loads, open(sys.argv[1])):
    steps.setdefault(l["step"], {}).update(l["data"])
assert sorted(steps) == [1, 2], sorted(steps)
for s in (1, 2):
    aux = steps[s]["actor/moe_aux_loss"]
    assert 1.0 <= aux <= 5.0, aux
    assert steps[s]["actor/grad_norm"] > 0, "no update (the resume check below needs one)"
assert abs(steps[1]["actor/ppo_kl"]) < 1e-6 and steps[1]["actor/pg_clipfrac"] == 0
assert abs(steps[1]["actor/kl_loss"]) < 1e-6 and steps[2]["actor/kl_loss"] > 0  # the MoE reference
assert steps[1]["actor/moe_aux_loss"] != steps[2]["actor/moe_aux_loss"], "the router did not move"
PY
hf="$work/ckpt/global_step_2/actor/huggingface"
python3 - "$hf/model.safetensors" <<'PY' || fail "checkpoint layout"
import json, struct, sys
with open(sys.argv[1], "rb") as f:
    names = set(json.loads(f.read(struct.unpack("<Q", f.read(8))[0])))
assert "model.layers.0.mlp.experts.4.gate_proj.weight" in names, sorted(names)
assert "model.layers.2.mlp.experts.0.down_proj.weight" in names
assert "model.layers.1.mlp.gate_proj.weight" in names  # the dense layer
assert not any("gate_up_proj" in n for n in names), "fused expert tensors in a hub checkpoint"
PY

# 2. Resume: one step, then a second run resuming from its checkpoint, equals 2 steps straight.
ppo "$work/a.jsonl" "$work/ckpt_r" trainer.total_training_steps=1 trainer.save_freq=1 >/dev/null ||
  fail "first half"
out=$(ppo "$work/b.jsonl" "$work/ckpt_r" trainer.total_training_steps=2 trainer.save_freq=1 \
      trainer.resume_mode=auto); rc=$?
[ "$rc" -eq 0 ] || fail "resumed run (exit $rc): $(tail -20 <<<"$out")"
python3 - "$work/run.jsonl" "$work/a.jsonl" "$work/b.jsonl" <<'PY' || fail "resume differs from the straight run"
import json, sys
def steps(path):
    out = {}
    for l in map(json.loads, open(path)):
        out.setdefault(l["step"], {}).update(l["data"])
    return out
straight, a, b = steps(sys.argv[1]), steps(sys.argv[2]), steps(sys.argv[3])
assert sorted(a) == [1] and sorted(b) == [2], (sorted(a), sorted(b))
for step, got in ((1, a[1]), (2, b[2])):
    for k, v in straight[step].items():
        if k.startswith(("timing", "perf/time", "perf/throughput", "perf/mfu", "perf/max_memory",
                          "perf/cpu_memory")):
            continue
        assert abs(got[k] - v) <= 1e-5 * max(1.0, abs(v)), (step, k, got[k], v)
PY

# 3. Megatron with the aux loss switched on: the same first step has a larger gradient norm (the
# pg and aux gradients add) and the same aux value.
out=$(VERL_FILE_LOGGER_PATH="$work/m.jsonl" "$VERLPP" ppo --config-name ppo_megatron_trainer "${common[@]}" \
      trainer.default_local_dir="$work/ckpt_m" trainer.total_training_steps=1 \
      actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1 \
      +actor_rollout_ref.actor.megatron.override_transformer_config.moe_router_load_balancing_type=aux_loss \
      +actor_rollout_ref.actor.megatron.override_transformer_config.moe_aux_loss_coeff=100.0 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "megatron aux_loss run (exit $rc): $(tail -20 <<<"$out")"
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/run.jsonl" "$work/m.jsonl" <<'PY' || fail "aux loss under megatron"
import sys
from compare_runs import steps_of
fsdp, meg = steps_of(sys.argv[1])[1], steps_of(sys.argv[2])[1]
assert abs(fsdp["actor/moe_aux_loss"] - meg["actor/moe_aux_loss"]) < 1e-6, (fsdp, meg)
assert meg["actor/grad_norm"] > 2 * fsdp["actor/grad_norm"], (meg["actor/grad_norm"], fsdp["actor/grad_norm"])
PY
# 4. PPO with a critic whose trunk is the MoE model (GAE), one step.
out=$(ppo "$work/gae.jsonl" "$work/ckpt_gae" trainer.total_training_steps=1 algorithm.adv_estimator=gae \
      critic.model.path="$work/model" critic.ppo_micro_batch_size_per_gpu=2); rc=$?
[ "$rc" -eq 0 ] || fail "gae with a MoE critic (exit $rc): $(tail -5 <<<"$out")"
grep -q '"critic/vf_loss"' "$work/gae.jsonl" || fail "no critic/vf_loss with the MoE critic"

# 5. Export the trained actor: an HF folder in the hub layout that scores as the checkpoint does.
"$VERLPP" model export --checkpoint "$work/ckpt/global_step_2" --output "$work/exported" 2>/dev/null ||
  fail "model export"
printf '{"prompt_ids": [9, 8, 7], "response_ids": [6, 5, 4, 3]}\n' > "$work/pair.jsonl"
a=$("$VERLPP" model score --model "$hf" --input "$work/pair.jsonl" --device cpu 2>/dev/null)
b=$("$VERLPP" model score --model "$work/exported" --input "$work/pair.jsonl" --device cpu 2>/dev/null)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "exported MoE scores differ: $a vs $b"

# 6. The rollout's MoE routing keys that verlpp does not implement are refused by name.
out=$(ppo "$work/x.jsonl" "$work/ckpt_x" trainer.total_training_steps=1 \
      actor_rollout_ref.rollout.moe_load_balance_metrics_interval=5); rc=$?
[ "$rc" -eq 1 ] && grep -qF "actor_rollout_ref.rollout.moe_load_balance_metrics_interval: verl's rollout/moe/*" <<<"$out" ||
  fail "moe_load_balance_metrics_interval accepted (exit $rc): $(tail -3 <<<"$out")"

# 7. Batch-invariant mode: rollout log-probs, the old_log_prob pass (micro-batches of 3 rows) and
# the update (micro-batches of 1 row) agree bit for bit; without the mode the
# rollout and the recompute differ. A wider MoE than above (hidden 128): with hidden 16 the plain
# path was bit-exact too on an AVX-512 machine (2026-12-05), so the control could not fail.
"$VERLPP" model init --arch qwen3_moe --hidden-size 128 --intermediate-size 256 \
  --num-hidden-layers 3 --num-attention-heads 4 --num-key-value-heads 2 --head-dim 32 \
  --vocab-size 151936 --num-experts 5 --num-experts-per-tok 2 --moe-intermediate-size 64 \
  --mlp-only-layers 1 --tie-word-embeddings false --initializer-range 0.2 --dtype float32 --seed 3 \
  --tokenizer tests/fixtures/tokenizers/qwen3 --output "$work/wide" > /dev/null 2>&1 || fail "model init (wide)"
invariant=(trainer.total_training_steps=1 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1
           actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=3 actor_rollout_ref.rollout.n=3
           actor_rollout_ref.rollout.max_num_seqs=2 actor_rollout_ref.model.path="$work/wide")
out=$(VLLM_BATCH_INVARIANT=1 ppo "$work/bi.jsonl" "$work/ckpt_bi" "${invariant[@]}"); rc=$?
[ "$rc" -eq 0 ] || fail "batch-invariant run (exit $rc): $(tail -5 <<<"$out")"
out=$(ppo "$work/usual.jsonl" "$work/ckpt_usual" "${invariant[@]}"); rc=$?
[ "$rc" -eq 0 ] || fail "the same run without the mode (exit $rc): $(tail -5 <<<"$out")"
PYTHONPATH="$SRC/tests/e2e" python3 - "$work/bi.jsonl" "$work/usual.jsonl" <<'PY' || fail "batch-invariant log-probs"
import sys
from compare_runs import steps_of
bi, usual = steps_of(sys.argv[1])[1], steps_of(sys.argv[2])[1]
assert bi["training/rollout_probs_diff_max"] == 0.0, bi["training/rollout_probs_diff_max"]
assert bi["training/rollout_probs_diff_valid"] == 1, bi["training/rollout_probs_diff_valid"]
assert "training/rollout_actor_probs_pearson_corr" in bi, sorted(bi)
assert bi["perf/cpu_memory_used_gb"] > 0, sorted(bi)
assert bi["actor/ppo_kl"] == 0.0 and bi["actor/pg_clipfrac"] == 0, bi["actor/ppo_kl"]
# (the probabilities of a near-uniform tiny model can agree; their log-ratio, ppo_kl, still differs)
assert usual["training/rollout_probs_diff_max"] > 0 or usual["actor/ppo_kl"] != 0, \
    "the check cannot fail: equal without the mode"
assert bi["actor/grad_norm"] > 0
PY
# Sampled validation in pieces of data.val_batch_size draws as the whole set does (row keys count
# from the piece's first row): with the mode the dumps are equal.
for vb in 2 1; do
  VLLM_BATCH_INVARIANT=1 ppo "$work/v$vb.jsonl" "$work/ckpt_v$vb" trainer.val_only=true \
    trainer.val_before_train=true data.val_batch_size=$vb trainer.validation_data_dir="$work/val$vb" \
    actor_rollout_ref.rollout.val_kwargs.do_sample=true actor_rollout_ref.rollout.val_kwargs.n=2 \
    actor_rollout_ref.rollout.val_kwargs.temperature=0.8 >/dev/null || fail "val_only, val_batch_size $vb"
done
cmp -s "$work/val2/0.jsonl" "$work/val1/0.jsonl" || fail "validation generations depend on data.val_batch_size"
out=$(VLLM_BATCH_INVARIANT=1 "$VERLPP" check --no-print-config "${common[@]}" trainer.device=cuda 2>&1); rc=$?
[ "$rc" -eq 0 ] && grep -qF "VLLM_BATCH_INVARIANT: on:" <<<"$out" ||
  fail "check of VLLM_BATCH_INVARIANT=1 on cuda (exit $rc): $(tail -3 <<<"$out")"
out=$(VLLM_BATCH_INVARIANT=yes ppo "$work/x.jsonl" "$work/ckpt_x" trainer.total_training_steps=1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "VLLM_BATCH_INVARIANT: 'yes': expected 1 (on) or 0 (off)" <<<"$out" ||
  fail "VLLM_BATCH_INVARIANT=yes accepted (exit $rc): $(tail -3 <<<"$out")"
exit $((failures > 0))
