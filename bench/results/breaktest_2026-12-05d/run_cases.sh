#!/bin/bash
# Re-creates the fixtures and re-runs each non-clean case by name.
# usage: ./run_cases.sh [CASE...]   (no argument: all cases)   ./run_cases.sh fixtures
set -u
cd /tmp/bt8
V=/tmp/bt8/verlpp
mkdir -p fx logs out
fixtures() {
  [ -f fx/m/model.safetensors ] || $V model init --output fx/m --arch qwen3 --hidden-size 32 --intermediate-size 64 \
     --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 \
     --tokenizer /work/shared/data/tokenizers/qwen3 --dtype float32
  [ -f fx/gsm/train.parquet ] || $V data gsm8k --input /work/shared/data/gsm8k --output fx/gsm
  python3 - <<'PY'
import json, os
os.makedirs('fx/d', exist_ok=True)
def w(name, rows):
    with open(f'fx/d/{name}.jsonl','w') as f:
        for r in rows: f.write(json.dumps(r)+'\n')
good=[{"messages":[{"role":"user","content":f"What is {i}+{i}?"},{"role":"assistant","content":f"It is {2*i}."}]} for i in range(64)]
w('good', good)
w('sys_tool', [{"messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"weather?"},{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"get_w","arguments":{"city":"Paris"}}}]},{"role":"tool","content":"sunny"},{"role":"assistant","content":"It is sunny."}]} for i in range(16)])
w('order', [{"messages":[{"role":"assistant","content":"first"},{"role":"user","content":"then"}]} for i in range(16)])
w('long', [{"messages":[{"role":"user","content":"word "*300},{"role":"assistant","content":"ok "*300}]} for i in range(16)])
w('multi', [{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"},{"role":"assistant","content":"d"}]} for i in range(16)])
w('pr', [{"question":f"q{i}","answer":f"a{i}","extra_info":{"question":f"q{i}","answer":f"a{i}"}} for i in range(16)])
mixed=good[:15]; mixed.insert(5, json.loads(open('fx/d/long.jsonl').readline()))
w('mixed_long', mixed)
PY
}
SFT="model.path=/tmp/bt8/fx/m trainer.device=cpu trainer.logger=[console] data.train_batch_size=8 data.micro_batch_size_per_gpu=4 data.max_length=64 trainer.total_training_steps=2"
G=data.train_files=/tmp/bt8/fx/d/good.jsonl
PPO="data.train_files=/tmp/bt8/fx/gsm/train.parquet data.val_files=/tmp/bt8/fx/gsm/test.parquet data.val_max_samples=2 data.train_max_samples=64 data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8 actor_rollout_ref.model.path=/tmp/bt8/fx/m actor_rollout_ref.actor.ppo_mini_batch_size=2 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.tensor_model_parallel_size=1 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 algorithm.adv_estimator=grpo trainer.device=cpu trainer.logger=[console] trainer.val_before_train=false trainer.total_training_steps=60 trainer.save_freq=5"
sft() { local n=$1; shift; rm -rf out/$n; echo "== $n"; timeout 120 $V sft $SFT trainer.default_local_dir=/tmp/bt8/out/$n "$@" 2>&1 | grep -v "bfloat16\|training state" | tail -4; echo "rc=${PIPESTATUS[0]}"; }

case_ppo_sigterm_rc0() {   # SIGTERM -> exit 0 (single process and via launch)
  rm -rf out/ppo_term1; echo "== ppo_sigterm_rc0 (single)"
  timeout 120 $V ppo $PPO trainer.n_gpus_per_node=1 trainer.default_local_dir=/tmp/bt8/out/ppo_term1 > logs/ppo_term1.log 2>&1 & local tp=$!
  sleep 0.5; local vp; vp=$(pgrep -P $tp); sleep 5; kill -TERM $vp; wait $tp; echo "rc=$? (expected non-zero, e.g. 143)"; tail -2 logs/ppo_term1.log | cut -c1-150
  rm -rf out/lppo_term; echo "== ppo_sigterm_rc0 (launch 2 ranks)"
  timeout 120 $V launch --nproc-per-node 2 ppo $PPO trainer.n_gpus_per_node=2 trainer.default_local_dir=/tmp/bt8/out/lppo_term > logs/lppo_term.log 2>&1 & tp=$!
  sleep 0.5; vp=$(pgrep -P $tp); sleep 6; kill -TERM $vp; wait $tp; echo "rc=$? (expected non-zero)"; tail -2 logs/lppo_term.log | cut -c1-150
}
case_check_misses_dp_split() {
  echo "== check_misses_dp_split: check"; $V check --config-name sft_trainer $SFT $G data.train_batch_size=9 trainer.n_gpus_per_node=2 2>&1 | tail -1
  echo "== check_misses_dp_split: launch"; timeout 120 $V launch --nproc-per-node 2 sft $SFT $G data.train_batch_size=9 trainer.n_gpus_per_node=2 trainer.default_local_dir=/tmp/bt8/out/l_bs9 2>&1 | tail -2
}
case_multiturn_qwen3() { sft multi data.train_files=/tmp/bt8/fx/d/multi.jsonl; sft sys_tool data.train_files=/tmp/bt8/fx/d/sys_tool.jsonl data.max_length=256; }
case_roles_order() { sft order data.train_files=/tmp/bt8/fx/d/order.jsonl; }
case_prompt_dict_keys() {
  sft pr_dictkeys data.train_files=/tmp/bt8/fx/d/pr.jsonl data.prompt_key=extra_info data.response_key=extra_info +data.prompt_dict_keys=[question] +data.response_dict_keys=[answer]
  sft pr_dotted data.train_files=/tmp/bt8/fx/d/pr.jsonl data.prompt_key=extra_info.question data.response_key=extra_info.answer
}
case_save_contents() { sft save_model_only $G checkpoint.save_contents=[model]; sft save_hf $G "checkpoint.save_contents=[model,optimizer,extra,hf_model]"; }
case_enable_thinking_default() { sft think_true $G data.enable_thinking_default=true; sft think_false $G data.enable_thinking_default=false; }
case_one_row_unlearnable() { sft mixed_right data.train_files=/tmp/bt8/fx/d/mixed_long.jsonl data.truncation=right; }
case_ppo_from_step_dir() {
  sft base $G >/dev/null
  echo "== ppo_from_step_dir"; timeout 120 $V ppo ${PPO/actor_rollout_ref.model.path=\/tmp\/bt8\/fx\/m/actor_rollout_ref.model.path=/tmp/bt8/out/base/global_step_2} trainer.n_gpus_per_node=1 trainer.total_training_steps=1 trainer.default_local_dir=/tmp/bt8/out/ppo_step 2>&1 | tail -1
}
case_nnodes2_silent_wait() {
  echo "== nnodes2_silent_wait"; timeout 40 $V launch --nnodes 2 --node-rank 0 --nproc-per-node 1 sft $SFT $G trainer.nnodes=2 trainer.default_local_dir=/tmp/bt8/out/nn2 > logs/nn2.log 2>&1; echo "rc=$? (124 = still waiting at 40 s)"; cat logs/nn2.log
}
case_launch_duplicate_summary() {
  echo "== launch_duplicate_summary"; rm -rf out/l2; timeout 120 $V launch --nproc-per-node 2 sft $SFT $G trainer.n_gpus_per_node=2 trainer.default_local_dir=/tmp/bt8/out/l2 2>/dev/null | grep -c "finished at step"
}
case_unsupported_engine_keys() { sft sp2 $G engine.ulysses_sequence_parallel_size=2; sft custom_tmpl $G "model.custom_chat_template='{% for m in messages %}{{ m.content }}{% endfor %}'"; }

ALL="ppo_sigterm_rc0 check_misses_dp_split multiturn_qwen3 roles_order prompt_dict_keys save_contents enable_thinking_default one_row_unlearnable ppo_from_step_dir nnodes2_silent_wait launch_duplicate_summary unsupported_engine_keys"
fixtures
[ "${1:-}" = fixtures ] && exit 0
for c in ${@:-$ALL}; do case_$c; done
