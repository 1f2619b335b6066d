#!/usr/bin/env bash
# `verlpp ppo` (GRPO) on tiny random-init Qwen3.5 and Qwen3.5-MoE models on the CPU: GSM8K prepared
# by `verlpp data gsm8k`, the real Qwen3 tokenizer, `verlpp model init --arch qwen3_5 / qwen3_5_moe`
# (Gated DeltaNet and gated attention layers mixed, not every fourth). For each: 2 steps run with
# an update (entropy_coeff gives a gradient: random weights score 0), the first update's ppo_kl is
# below 1e-6 (the rollout's and the trainer's log-probs agree), the reference policy is the model
# too (kl_loss 0 then > 0); the checkpoint holds the Gated DeltaNet tensors under their hub names;
# a resumed run continues from the saved weights (2 steps straight and 1 + resume + 1 give the same
# metrics).
# Usage: ppo_qwen3_5_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
cd "$SRC"
source "$SRC/tests/e2e/lib.sh"

prepare_gsm8k
shape=(--hidden-size 16 --intermediate-size 32 --num-hidden-layers 3 --num-attention-heads 2
       --num-key-value-heads 1 --head-dim 8 --vocab-size 151936 --linear-num-key-heads 1
       --linear-num-value-heads 2 --linear-key-head-dim 6 --linear-value-head-dim 10
       --layer-types linear_attention full_attention linear_attention
       --tie-word-embeddings false --dtype float32 --seed 3 --tokenizer tests/fixtures/tokenizers/qwen3)
out=$("$VERLPP" model init --arch qwen3_5 "${shape[@]}" --output "$work/dense" 2>&1) ||
  fail "model init qwen3_5: $out"
out=$("$VERLPP" model init --arch qwen3_5_moe "${shape[@]}" --num-experts 4 --num-experts-per-tok 2 \
      --moe-intermediate-size 8 --shared-expert-intermediate-size 12 --output "$work/moe" 2>&1) ||
  fail "model init qwen3_5_moe: $out"

common=(
  data.train_files="$work/gsm8k/train.jsonl" data.val_files="$work/gsm8k/test.jsonl"
  data.train_max_samples=8 data.val_max_samples=2 data.train_batch_size=2
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.actor.entropy_coeff=0.01
  actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1 trainer.val_before_train=false
  'trainer.logger=[console,file]' trainer.project_name=e2e trainer.experiment_name=qwen3_5
)
ppo() {  # ppo MODEL LOGFILE CKPT_DIR overrides...
  local model=$1 log=$2 ckpt=$3
  shift 3
  VERL_FILE_LOGGER_PATH=$log "$VERLPP" ppo "${common[@]}" actor_rollout_ref.model.path="$model" \
    trainer.default_local_dir="$ckpt" "$@" 2>&1
}

for kind in dense moe; do
  model="$work/$kind"
  out=$(ppo "$model" "$work/$kind.jsonl" "$work/ckpt_$kind" trainer.total_training_steps=2 \
        trainer.save_freq=1); rc=$?
  [ "$rc" -eq 0 ] || fail "$kind: ppo run (exit $rc): $(tail -20 <<<"$out")"
  python3 - "$work/$kind.jsonl" "$kind" <<'PY' || fail "$kind: metrics of the 2-step run"
import json, sys
steps = {}
for l in map(json.loads, open(sys.argv[1])):
    steps.setdefault(l["step"], {}).update(l["data"])
assert sorted(steps) == [1, 2], sorted(steps)
for s in (1, 2):
    assert steps[s]["actor/grad_norm"] > 0, "no update (the resume check below needs one)"
assert abs(steps[1]["actor/ppo_kl"]) < 1e-6 and steps[1]["actor/pg_clipfrac"] == 0, steps[1]
assert abs(steps[1]["actor/kl_loss"]) < 1e-6 and steps[2]["actor/kl_loss"] > 0
if sys.argv[2] == "moe":
    assert 1.0 <= steps[1]["actor/moe_aux_loss"] <= 4.0, steps[1]["actor/moe_aux_loss"]
print(sys.argv[2], "ppo_kl", steps[1]["actor/ppo_kl"], "kl_loss", steps[2]["actor/kl_loss"])
PY
  python3 - "$work/ckpt_$kind/global_step_2/actor/huggingface" "$kind" <<'PY' || fail "$kind: checkpoint"
import json, struct, sys
with open(sys.argv[1] + "/model.safetensors", "rb") as f:
    names = set(json.loads(f.read(struct.unpack("<Q", f.read(8))[0])))
for n in ("model.layers.0.linear_attn.A_log", "model.layers.0.linear_attn.conv1d.weight",
          "model.layers.2.linear_attn.in_proj_qkv.weight", "model.layers.1.self_attn.q_norm.weight"):
    assert n in names, (n, sorted(names))
assert not any("layers.1.linear_attn" in n for n in names)
if sys.argv[2] == "moe":
    assert "model.layers.1.mlp.experts.3.down_proj.weight" in names
    assert "model.layers.1.mlp.shared_expert_gate.weight" in names
config = json.load(open(sys.argv[1] + "/config.json"))
assert config["layer_types"] == ["linear_attention", "full_attention", "linear_attention"], config
PY
  # Resume: one step, then a second run resuming from its checkpoint, equals 2 steps straight.
  ppo "$model" "$work/a_$kind.jsonl" "$work/ckpt_r_$kind" trainer.total_training_steps=1 \
    trainer.save_freq=1 >/dev/null || fail "$kind: first half"
  out=$(ppo "$model" "$work/b_$kind.jsonl" "$work/ckpt_r_$kind" trainer.total_training_steps=2 \
        trainer.save_freq=1 trainer.resume_mode=auto); rc=$?
  [ "$rc" -eq 0 ] || fail "$kind: resumed run (exit $rc): $(tail -20 <<<"$out")"
  python3 - "$work/$kind.jsonl" "$work/a_$kind.jsonl" "$work/b_$kind.jsonl" <<'PY' ||
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
    fail "$kind: resume differs from the straight run"
done
exit $((failures > 0))
