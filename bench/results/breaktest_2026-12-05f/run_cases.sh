#!/usr/bin/env bash
# Break-test of verlpp on Qwen3-MoE / Qwen3.5 (CPU). Usage: run_cases.sh [CASE_NAME...]  (no args: all)
# Works in /tmp/bt10. Each case: logs/NAME.log, one summary line "NAME rc=.. " in summary.txt.
set -u
V=/work/main/build/verlpp
SRC=/work/main
W=/tmp/bt10
TOK=$SRC/tests/fixtures/tokenizers/qwen3
mkdir -p $W/logs; cd $W
run() {  # run NAME TIMEOUT cmd...
  local name=$1 t=$2; shift 2
  local start=$(date +%s)
  TMO=$t
  if [ "$(type -t "$1")" = function ]; then "$@" > logs/$name.log 2>&1; else timeout -k 5 "$t" "$@" > logs/$name.log 2>&1; fi
  local rc=$?
  echo "$name rc=$rc t=$(( $(date +%s) - start ))s :: $(grep -v '^\s*$' logs/$name.log | tail -2 | tr '\n' '|' | cut -c1-300)" | tee -a summary.txt
  return $rc
}
want() { [ $# -eq 0 ] || [[ " $SELECTED " == *" $1 "* ]]; }
SELECTED=" $* "
sel() { [ -z "${SELECTED// /}" ] || [[ "$SELECTED" == *" $1 "* ]]; }

MOE=(--arch qwen3_moe --hidden-size 16 --intermediate-size 32 --num-hidden-layers 3 --num-attention-heads 2
     --num-key-value-heads 1 --head-dim 8 --vocab-size 151936
     --moe-intermediate-size 8 --tie-word-embeddings false --dtype float32 --seed 3 --tokenizer $TOK)
Q35=(--hidden-size 16 --intermediate-size 32 --num-hidden-layers 3 --num-attention-heads 2
     --num-key-value-heads 1 --head-dim 8 --vocab-size 151936 --linear-num-key-heads 1
     --linear-num-value-heads 2 --linear-key-head-dim 6 --linear-value-head-dim 10
     --tie-word-embeddings false --dtype float32 --seed 3 --tokenizer $TOK)
LT=(--layer-types linear_attention full_attention linear_attention)
EX=(--num-experts 5 --num-experts-per-tok 2 --mlp-only-layers 1)
common=(data.train_files=$W/gsm8k/train.jsonl data.val_files=$W/gsm8k/test.jsonl
  data.train_max_samples=8 data.val_max_samples=2 data.train_batch_size=2
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.actor.optim.lr=1e-2 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.actor.entropy_coeff=0.01
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1 trainer.val_before_train=false
  'trainer.logger=[console]' trainer.project_name=bt trainer.experiment_name=moe)
TMO=110
ppo() { local m=$1; shift; timeout -k 5 $TMO $V ppo "${common[@]}" actor_rollout_ref.model.path=$m "$@"; }
sft() { local m=$1; shift; timeout -k 5 $TMO $V sft data.train_files=$W/sft.jsonl data.val_files=$W/sft.jsonl data.prompt_key=prompt \
  data.response_key=response data.train_batch_size=2 data.micro_batch_size_per_gpu=2 data.max_length=64 \
  model.path=$m optim.lr=1e-2 "trainer.logger=['console']" trainer.device=cpu "$@"; }
# mutate a copy of a model's config.json: cfgmut SRC DST PYTHON-EXPR-ON-c
cfgmut() { rm -rf $2; cp -r $1 $2; python3 - $2/config.json "$3" <<'PY'
import json,sys
p=sys.argv[1]; c=json.load(open(p)); exec(sys.argv[2]); json.dump(c,open(p,"w"),indent=1)
PY
}

if sel setup; then
  rm -rf gsm8k moe q35 q35moe dense summary.txt
  $V data gsm8k --input /work/shared/data/gsm8k --output gsm8k >/dev/null 2>&1 || echo "setup: data failed"
  for i in 1 2 3 4 5 6; do echo "{\"prompt\": \"$i+$i=\", \"response\": \"$((i+i))\"}"; done > sft.jsonl
fi

# ---- A. model init ----
sel init_moe && { rm -rf moe; run init_moe 60 $V model init "${MOE[@]}" "${EX[@]}" --output moe; }
sel init_q35 && { rm -rf q35; run init_q35 60 $V model init --arch qwen3_5 "${Q35[@]}" "${LT[@]}" --output q35; }
sel init_q35moe && { rm -rf q35moe; run init_q35moe 60 $V model init --arch qwen3_5_moe "${Q35[@]}" "${LT[@]}" --num-experts 4 \
  --num-experts-per-tok 2 --moe-intermediate-size 8 --shared-expert-intermediate-size 12 --output q35moe; }
sel init_moe4 && { rm -rf moe4; run init_moe4 60 $V model init "${MOE[@]}" --num-experts 4 --num-experts-per-tok 2 --output moe4; }
sel init_dense && { rm -rf dense; run init_dense 60 $V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 \
  --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 3 \
  --tokenizer $TOK --output dense; }
# top-k above the expert count: must be refused
sel init_topk_gt_experts && { rm -rf x1; run init_topk_gt_experts 60 $V model init "${MOE[@]}" --num-experts 2 --num-experts-per-tok 3 --output x1; }
sel init_zero_experts && { rm -rf x2; run init_zero_experts 60 $V model init "${MOE[@]}" --num-experts 0 --num-experts-per-tok 0 --output x2; }
sel init_mlp_only_oob && { rm -rf x3; run init_mlp_only_oob 60 $V model init "${MOE[@]}" --num-experts 5 --num-experts-per-tok 2 --mlp-only-layers 7 --output x3; }
sel init_sparse_step0 && { rm -rf x4; run init_sparse_step0 60 $V model init "${MOE[@]}" "${EX[@]}" --decoder-sparse-step 0 --output x4; }
# layer_types length differs from num_hidden_layers
sel init_q35_layertypes_len && { rm -rf x5; run init_q35_layertypes_len 60 $V model init --arch qwen3_5 "${Q35[@]}" \
  --layer-types linear_attention full_attention --output x5; }
sel init_q35_layertypes_bad && { rm -rf x6; run init_q35_layertypes_bad 60 $V model init --arch qwen3_5 "${Q35[@]}" \
  --layer-types linear_attention sliding_attention linear_attention --output x6; }
# MoE-only options on a dense arch: silently dropped?
sel init_dense_with_experts && { rm -rf x7; run init_dense_with_experts 60 $V model init --arch qwen3 --hidden-size 16 \
  --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 --vocab-size 1000 --num-experts 4 --num-experts-per-tok 2 --output x7; }
# preset with tiny overrides
sel init_preset_moe_tiny && { rm -rf x8; run init_preset_moe_tiny 90 $V model init --preset qwen3-30b-a3b --hidden-size 16 \
  --intermediate-size 32 --moe-intermediate-size 8 --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 \
  --head-dim 8 --num-experts 4 --num-experts-per-tok 2 --dtype float32 --output x8; }
sel init_preset_q35moe_tiny && { rm -rf x9; run init_preset_q35moe_tiny 90 $V model init --preset qwen3.5-35b-a3b --hidden-size 16 \
  --intermediate-size 32 --moe-intermediate-size 8 --num-hidden-layers 4 --num-attention-heads 2 --num-key-value-heads 1 \
  --head-dim 8 --num-experts 4 --num-experts-per-tok 2 --linear-num-key-heads 1 --linear-num-value-heads 2 \
  --linear-key-head-dim 8 --linear-value-head-dim 8 --dtype float32 --output x9; }
# all layers linear attention (no full attention) - HF allows
sel init_q35_all_linear && { rm -rf x10; run init_q35_all_linear 60 $V model init --arch qwen3_5 "${Q35[@]}" \
  --layer-types linear_attention linear_attention linear_attention --output x10; }

# ---- B. training / inference end to end ----
sel ppo_moe && { rm -rf ck_moe; run ppo_moe 110 ppo $W/moe trainer.total_training_steps=2 trainer.save_freq=1 trainer.default_local_dir=$W/ck_moe; }
sel ppo_q35moe && { rm -rf ck_q35moe; run ppo_q35moe 110 ppo $W/q35moe trainer.total_training_steps=1 trainer.save_freq=1 trainer.default_local_dir=$W/ck_q35moe; }
sel ppo_q35_all_linear && { rm -rf ck_x10; run ppo_q35_all_linear 110 ppo $W/x10 trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_x10; }
sel sft_moe && { rm -rf cks_moe; run sft_moe 110 sft $W/moe trainer.total_training_steps=2 trainer.save_freq=2 trainer.default_local_dir=$W/cks_moe; }
sel sft_q35 && { rm -rf cks_q35; run sft_q35 110 sft $W/q35 trainer.total_training_steps=2 trainer.save_freq=2 trainer.default_local_dir=$W/cks_q35; }
sel generate_q35moe && run generate_q35moe 60 $V generate --model $W/q35moe --prompt "What is 2+3?" --n 2 --response-length 6 --device cpu
sel generate_moe_ckpt && run generate_moe_ckpt 60 $V generate --model $W/ck_moe/global_step_2/actor/huggingface --prompt "hi" --response-length 4 --device cpu --greedy
sel score_q35 && { printf '{"prompt_ids": [9, 8, 7], "response_ids": [6, 5, 4, 3]}\n' > pair.jsonl; run score_q35 60 $V model score --model $W/q35 --input pair.jsonl --device cpu; }
sel export_moe && { rm -rf exp_moe; run export_moe 60 $V model export --checkpoint $W/ck_moe/global_step_2 --output exp_moe &&
  a=$($V model score --model exp_moe --input pair.jsonl --device cpu 2>/dev/null) && b=$($V model score --model ck_moe/global_step_2/actor/huggingface --input pair.jsonl --device cpu 2>/dev/null) &&
  { [ "$a" = "$b" ] && echo "export_moe: scores equal" || echo "export_moe: SCORES DIFFER"; } | tee -a summary.txt; }
sel export_sft_q35 && { rm -rf exp_sq35; run export_sft_q35 60 $V model export --checkpoint $W/cks_q35/global_step_2 --output exp_sq35; }

# ---- C. resume ----
# auto after a normal stop: 2 steps done, ask for 3
sel resume_auto_moe && run resume_auto_moe 110 ppo $W/moe trainer.total_training_steps=3 trainer.save_freq=1 trainer.default_local_dir=$W/ck_moe trainer.resume_mode=auto
sel resume_path_moe && { rm -rf ck_rp; run resume_path_moe 110 ppo $W/moe trainer.total_training_steps=3 trainer.save_freq=1 \
  trainer.default_local_dir=$W/ck_rp trainer.resume_mode=resume_path trainer.resume_from_path=$W/ck_moe/global_step_1; }
# SIGTERM mid-run, then resume auto
sel sigterm_q35moe && { rm -rf ck_sig; TMO=110
  timeout -k 5 110 $V ppo "${common[@]}" actor_rollout_ref.model.path=$W/q35moe trainer.total_training_steps=40 trainer.save_freq=100 \
    trainer.default_local_dir=$W/ck_sig data.train_max_samples=100 > logs/sigterm_q35moe.log 2>&1 &
  pid=$!; sleep 6; kill -TERM $pid; wait $pid; echo "rc=$?" >> logs/sigterm_q35moe.log   # timeout forwards SIGTERM to verlpp
  echo "sigterm_q35moe $(tail -1 logs/sigterm_q35moe.log) :: $(grep -i 'signal\|saved\|step:' logs/sigterm_q35moe.log | tail -2 | cut -c1-150 | tr '\n' '|') ckpts=$(ls ck_sig 2>/dev/null | tr '\n' ' ')" | tee -a summary.txt
  run resume_after_sigterm 110 ppo $W/q35moe trainer.total_training_steps=40 trainer.save_freq=100 trainer.default_local_dir=$W/ck_sig data.train_max_samples=100 trainer.resume_mode=auto; }
# resume a 1-rank checkpoint with 2 ranks
sel resume_2ranks_moe && run resume_2ranks_moe 110 timeout 110 $V launch --nproc-per-node 2 ppo "${common[@]}" actor_rollout_ref.model.path=$W/moe \
  trainer.n_gpus_per_node=2 trainer.total_training_steps=4 trainer.save_freq=1 trainer.default_local_dir=$W/ck_moe trainer.resume_mode=auto
# and back to 1 rank from the 2-rank checkpoint
sel resume_back_1rank && run resume_back_1rank 110 ppo $W/moe trainer.total_training_steps=5 trainer.save_freq=1 trainer.default_local_dir=$W/ck_moe trainer.resume_mode=auto
# sft resume with 2 ranks
sel sft_resume_2ranks && run sft_resume_2ranks 110 timeout 110 $V launch --nproc-per-node 2 sft data.train_files=$W/sft.jsonl data.val_files=$W/sft.jsonl \
  data.prompt_key=prompt data.response_key=response data.train_batch_size=2 data.micro_batch_size_per_gpu=1 data.max_length=64 \
  model.path=$W/q35 optim.lr=1e-2 "trainer.logger=['console']" trainer.device=cpu trainer.n_gpus_per_node=2 trainer.total_training_steps=3 \
  trainer.save_freq=1 trainer.default_local_dir=$W/cks_q35 trainer.resume_mode=auto
# resume with a checkpoint of another architecture (dense qwen3 ckpt into a MoE run)
sel resume_other_arch && { rm -rf ck_dense; TMO=110; ppo $W/dense trainer.total_training_steps=1 trainer.save_freq=1 trainer.default_local_dir=$W/ck_dense >/dev/null 2>&1
  run resume_other_arch 110 ppo $W/moe trainer.total_training_steps=2 trainer.default_local_dir=$W/ck_dense trainer.resume_mode=auto; }
sel resume_other_arch_path && { rm -rf ck_oa; run resume_other_arch_path 110 ppo $W/q35moe trainer.total_training_steps=3 trainer.default_local_dir=$W/ck_oa \
  trainer.resume_mode=resume_path trainer.resume_from_path=$W/ck_moe/global_step_2; }
# resume SFT (q35) checkpoint into a ppo run of the MoE model
sel resume_sft_ckpt_into_ppo && run resume_sft_ckpt_into_ppo 110 ppo $W/moe trainer.total_training_steps=3 trainer.default_local_dir=$W/cks_q35 trainer.resume_mode=auto

# ---- D. MoE keys (megatron / router) ----
MEG=(--config-name ppo_megatron_trainer actor_rollout_ref.actor.megatron.tensor_model_parallel_size=1)
sel check_meg_ep1 && run check_meg_ep1 60 $V check --no-print-config "${MEG[@]}" "${common[@]}" actor_rollout_ref.model.path=$W/moe \
  actor_rollout_ref.actor.megatron.expert_model_parallel_size=1 actor_rollout_ref.actor.megatron.expert_tensor_parallel_size=1
sel ppo_meg_ep1 && { rm -rf ck_meg; run ppo_meg_ep1 110 ppo $W/moe "${MEG[@]}" actor_rollout_ref.actor.megatron.expert_model_parallel_size=1 \
  actor_rollout_ref.actor.megatron.expert_tensor_parallel_size=1 trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_meg; }
# EP 2 on a world of 1: verl's rule world % (etp*ep*pp) fails
sel check_meg_ep2_world1 && run check_meg_ep2_world1 60 $V check --no-print-config "${MEG[@]}" "${common[@]}" actor_rollout_ref.model.path=$W/moe \
  actor_rollout_ref.actor.megatron.expert_model_parallel_size=2
# EP 2 with 2 ranks on 4 experts: verl accepts (expert-dp 1); verlpp has no EP
sel ppo_meg_ep2_2ranks && run ppo_meg_ep2_2ranks 110 timeout 110 $V launch --nproc-per-node 2 ppo "${MEG[@]}" "${common[@]}" actor_rollout_ref.model.path=$W/moe4 \
  trainer.n_gpus_per_node=2 actor_rollout_ref.actor.megatron.expert_model_parallel_size=2 trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_meg2
# EP=3 does not divide 5 experts
sel check_meg_ep_not_dividing && run check_meg_ep_not_dividing 60 $V check --no-print-config "${MEG[@]}" "${common[@]}" actor_rollout_ref.model.path=$W/moe4 \
  trainer.n_gpus_per_node=3 actor_rollout_ref.actor.megatron.expert_model_parallel_size=3 actor_rollout_ref.actor.ppo_mini_batch_size=3 data.train_batch_size=3
sel meg_aux_loss_coeff_only && run meg_aux_loss_coeff_only 110 ppo $W/moe "${MEG[@]}" trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_m3 \
  +actor_rollout_ref.actor.megatron.override_transformer_config.moe_aux_loss_coeff=0.01
sel meg_router_type_bad && run meg_router_type_bad 60 ppo $W/moe "${MEG[@]}" trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_m4 \
  +actor_rollout_ref.actor.megatron.override_transformer_config.moe_router_load_balancing_type=bogus
sel meg_router_topk_mismatch && run meg_router_topk_mismatch 60 ppo $W/moe "${MEG[@]}" trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_m5 \
  +actor_rollout_ref.actor.megatron.override_transformer_config.moe_router_topk=4
sel meg_seq_aux_loss && run meg_seq_aux_loss 110 ppo $W/moe "${MEG[@]}" trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_m6 \
  +actor_rollout_ref.actor.megatron.override_transformer_config.moe_router_load_balancing_type=seq_aux_loss
sel meg_z_loss && run meg_z_loss 110 ppo $W/moe "${MEG[@]}" trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_m7 \
  +actor_rollout_ref.actor.megatron.override_transformer_config.moe_z_loss_coeff=0.001
# HF-side router keys a FSDP verl user sets via override_config
sel fsdp_override_aux_coef && run fsdp_override_aux_coef 110 ppo $W/moe trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_f1 \
  +actor_rollout_ref.model.override_config.router_aux_loss_coef=0.5 +actor_rollout_ref.model.override_config.output_router_logits=true
sel fsdp_override_num_experts && run fsdp_override_num_experts 60 ppo $W/moe trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_f2 \
  +actor_rollout_ref.model.override_config.num_experts_per_tok=9
sel rollout_ep2 && run rollout_ep2 60 $V check --no-print-config "${common[@]}" actor_rollout_ref.model.path=$W/moe actor_rollout_ref.rollout.expert_parallel_size=2
sel routing_replay && run routing_replay 60 ppo $W/moe trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_f3 actor_rollout_ref.rollout.enable_rollout_routing_replay=true
sel fsdp_ulysses_q35 && run fsdp_ulysses_q35 110 timeout 110 $V launch --nproc-per-node 2 ppo "${common[@]}" actor_rollout_ref.model.path=$W/q35moe \
  trainer.n_gpus_per_node=2 actor_rollout_ref.actor.ulysses_sequence_parallel_size=2 trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_u
sel meg_override_unknown_key && run meg_override_unknown_key 60 ppo $W/moe "${MEG[@]}" trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_m8 \
  +actor_rollout_ref.actor.megatron.override_transformer_config.totally_bogus_key=1
sel fsdp_router_aux_coef && run fsdp_router_aux_coef 110 ppo $W/moe trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_f4 \
  +actor_rollout_ref.model.override_config.router_aux_loss_coef=0.5
sel meg_num_experts_override && run meg_num_experts_override 60 ppo $W/moe "${MEG[@]}" trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_m9 \
  +actor_rollout_ref.actor.megatron.override_transformer_config.num_moe_experts=8

# ---- E. bad config.json ----
pair() { printf '{"prompt_ids": [9, 8, 7], "response_ids": [6, 5, 4, 3]}\n' > $W/pair.jsonl; }
# num_experts in config (4) < experts stored in the weights (5)
sel cfg_fewer_experts && { cfgmut moe bad1 'c["num_experts"]=4'; pair; run cfg_fewer_experts 60 $V model score --model bad1 --input pair.jsonl --device cpu; }
# num_experts in config (6) > experts stored (5)
sel cfg_more_experts && { cfgmut moe bad2 'c["num_experts"]=6'; run cfg_more_experts 60 $V model score --model bad2 --input pair.jsonl --device cpu; }
sel cfg_topk_gt_experts && { cfgmut moe bad3 'c["num_experts_per_tok"]=7'; run cfg_topk_gt_experts 60 $V model score --model bad3 --input pair.jsonl --device cpu; }
sel cfg_topk_gt_experts_ppo && run cfg_topk_gt_experts_ppo 60 ppo $W/bad3 trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_b3
sel cfg_topk_zero && { cfgmut moe bad4 'c["num_experts_per_tok"]=0'; run cfg_topk_zero 60 $V model score --model bad4 --input pair.jsonl --device cpu; }
sel cfg_both_expert_names && { cfgmut moe bad5 'c["num_local_experts"]=4'; run cfg_both_expert_names 60 $V model score --model bad5 --input pair.jsonl --device cpu; }
sel cfg_sparse_step0 && { cfgmut moe bad6 'c["decoder_sparse_step"]=0'; run cfg_sparse_step0 60 $V model score --model bad6 --input pair.jsonl --device cpu; }
sel cfg_mlp_only_oob && { cfgmut moe bad7 'c["mlp_only_layers"]=[1,9]'; run cfg_mlp_only_oob 60 $V model score --model bad7 --input pair.jsonl --device cpu; }
# mlp_only_layers says layer 0 is dense, but weights have experts there (and no dense MLP)
sel cfg_mlp_only_mismatch && { cfgmut moe bad8 'c["mlp_only_layers"]=[0]'; run cfg_mlp_only_mismatch 60 $V model score --model bad8 --input pair.jsonl --device cpu; }
sel cfg_moe_inter_mismatch && { cfgmut moe bad9 'c["moe_intermediate_size"]=16'; run cfg_moe_inter_mismatch 60 $V model score --model bad9 --input pair.jsonl --device cpu; }
# Qwen3.5 without layer_types: transformers derives it from full_attention_interval (default 4)
sel cfg_q35_no_layer_types && { cfgmut q35 bad10 'c.get("text_config",c).pop("layer_types",None)'; run cfg_q35_no_layer_types 60 $V model score --model bad10 --input pair.jsonl --device cpu; }
sel cfg_q35_no_layer_types_ppo && run cfg_q35_no_layer_types_ppo 110 ppo $W/bad10 trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_b10
sel cfg_q35_layer_types_short && { cfgmut q35 bad11 't=c.get("text_config",c); t["layer_types"]=t["layer_types"][:2]'; run cfg_q35_layer_types_short 60 $V model score --model bad11 --input pair.jsonl --device cpu; }
sel cfg_q35_layer_types_swapped && { cfgmut q35 bad12 't=c.get("text_config",c); t["layer_types"]=["full_attention","linear_attention","linear_attention"]'; run cfg_q35_layer_types_swapped 60 $V model score --model bad12 --input pair.jsonl --device cpu; }
sel cfg_q35moe_no_shared && { cfgmut q35moe bad13 't=c.get("text_config",c); t.pop("shared_expert_intermediate_size",None)'; run cfg_q35moe_no_shared 60 $V model score --model bad13 --input pair.jsonl --device cpu; }
sel cfg_q35_bad_layer_type && { cfgmut q35 bad14 't=c.get("text_config",c); t["layer_types"][1]="sliding_attention"'; run cfg_q35_bad_layer_type 60 $V model score --model bad14 --input pair.jsonl --device cpu; }
# resume a 5-expert checkpoint into a 4-expert model of the same architecture
sel resume_expert_count_mismatch && run resume_expert_count_mismatch 110 ppo $W/moe4 trainer.total_training_steps=9 trainer.default_local_dir=$W/ck_moe trainer.resume_mode=auto
# model export of a checkpoint whose actor folder lacks the hf config
sel export_no_actor && { rm -rf ck_broken exp_b; mkdir -p ck_broken/global_step_1; run export_no_actor 60 $V model export --checkpoint $W/ck_broken/global_step_1 --output exp_b; }
# export a dist (2-rank) moe checkpoint
sel export_2rank_ckpt && { rm -rf exp_2r; run export_2rank_ckpt 60 $V model export --checkpoint $W/ck_moe/global_step_4 --output exp_2r; }

# ---- F. more ----
SHRINK=(data.train_files=$W/gsm8k/train.jsonl data.val_files=$W/gsm8k/test.jsonl data.train_max_samples=4 data.val_max_samples=2
  data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.tensor_model_parallel_size=1 trainer.n_gpus_per_node=2 trainer.device=cpu
  trainer.val_before_train=false trainer.total_training_steps=1 trainer.total_epochs=1 trainer.default_local_dir=$W/ck_turbo
  actor_rollout_ref.actor.fsdp_config.turbo_config.distributed.fully_shard_parallel_size=2
  actor_rollout_ref.ref.fsdp_config.turbo_config.distributed.fully_shard_parallel_size=2)
# the seed script (fsdp_turbo, EP) shrunk onto the tiny Qwen3.5-MoE: check, then run on 2 ranks
sel seed_turbo_check && run seed_turbo_check 60 env VERLPP_COMMAND="$V check --no-print-config" MODEL_PATH=$W/q35moe EP_SIZE=2 \
  bash $SRC/examples/run_qwen3_5_35b_fsdp_turbo.sh "${SHRINK[@]}"
sel seed_turbo_run && { rm -rf ck_turbo; run seed_turbo_run 110 env VERLPP_COMMAND="$V launch --nproc-per-node 2 ppo" MODEL_PATH=$W/q35moe EP_SIZE=2 \
  bash $SRC/examples/run_qwen3_5_35b_fsdp_turbo.sh "${SHRINK[@]}"; }
sel seed_turbo_ep3 && run seed_turbo_ep3 60 env VERLPP_COMMAND="$V check --no-print-config" MODEL_PATH=$W/q35moe EP_SIZE=3 \
  bash $SRC/examples/run_qwen3_5_35b_fsdp_turbo.sh "${SHRINK[@]}"
# SIGTERM during MoE SFT, then resume
sel sigterm_sft_moe && { rm -rf cks_sig; for i in $(seq 1 200); do echo "{\"prompt\": \"$i+$i=\", \"response\": \"$((i+i))\"}"; done > sft_big.jsonl
  timeout -k 5 110 $V sft data.train_files=$W/sft_big.jsonl data.val_files=$W/sft.jsonl data.prompt_key=prompt data.response_key=response \
    data.train_batch_size=2 data.micro_batch_size_per_gpu=2 data.max_length=64 model.path=$W/moe optim.lr=1e-2 "trainer.logger=['console']" \
    trainer.device=cpu trainer.total_training_steps=100 trainer.save_freq=1000 trainer.default_local_dir=$W/cks_sig > logs/sigterm_sft_moe.log 2>&1 &
  pid=$!; sleep 5; kill -TERM $pid; wait $pid; echo "rc=$?" >> logs/sigterm_sft_moe.log
  echo "sigterm_sft_moe $(tail -1 logs/sigterm_sft_moe.log) :: $(grep -v '^\s*$' logs/sigterm_sft_moe.log | tail -3 | head -2 | cut -c1-150 | tr '\n' '|') ckpts=$(ls cks_sig 2>/dev/null | tr '\n' ' ')" | tee -a summary.txt
  run resume_after_sigterm_sft 110 timeout 110 $V launch --nproc-per-node 2 sft data.train_files=$W/sft_big.jsonl data.val_files=$W/sft.jsonl data.prompt_key=prompt \
    data.response_key=response data.train_batch_size=2 data.micro_batch_size_per_gpu=1 data.max_length=64 model.path=$W/moe optim.lr=1e-2 \
    "trainer.logger=['console']" trainer.device=cpu trainer.n_gpus_per_node=2 trainer.total_training_steps=100 trainer.save_freq=1000 \
    trainer.default_local_dir=$W/cks_sig trainer.resume_mode=auto; }
# edge shapes: top-k = all experts, a single expert
sel init_topk_all && { rm -rf moe_all; run init_topk_all 60 $V model init "${MOE[@]}" --num-experts 3 --num-experts-per-tok 3 --output moe_all &&
  run ppo_topk_all 110 ppo $W/moe_all trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_all; }
sel init_one_expert && { rm -rf moe_one; run init_one_expert 60 $V model init "${MOE[@]}" --num-experts 1 --num-experts-per-tok 1 --output moe_one &&
  run ppo_one_expert 110 ppo $W/moe_one trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_one; }
sel ppo_norm_topk_false && { rm -rf moe_nt; $V model init "${MOE[@]}" "${EX[@]}" --norm-topk-prob false --output moe_nt >/dev/null 2>&1;
  run ppo_norm_topk_false 110 ppo $W/moe_nt trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_nt; }
# bf16 Qwen3.5-MoE on the CPU
sel ppo_q35moe_bf16 && { rm -rf q35moe_bf; $V model init --arch qwen3_5_moe $(printf '%s\n' "${Q35[@]}" | sed 's/^float32$/bfloat16/') "${LT[@]}" --num-experts 4 --num-experts-per-tok 2 --moe-intermediate-size 8 --output q35moe_bf >/dev/null 2>&1;
  run ppo_q35moe_bf16 110 ppo $W/q35moe_bf trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_bf; }
# Qwen3.5 all-linear: generate with and without KV cache, sft
sel generate_q35_all_linear && run generate_q35_all_linear_nokv 60 $V generate --model $W/x10 --prompt hi --response-length 3 --device cpu --no-kv-cache
sel generate_q35_all_linear && run generate_q35_all_linear 60 $V generate --model $W/x10 --prompt hi --response-length 3 --device cpu
sel sft_q35_all_linear && { rm -rf cks_x10; run sft_q35_all_linear 110 sft $W/x10 trainer.total_training_steps=1 trainer.default_local_dir=$W/cks_x10; }
# Qwen3.5-MoE ppo 1-rank checkpoint resumed on 2 ranks
sel resume_2ranks_q35moe && run resume_2ranks_q35moe 110 timeout 110 $V launch --nproc-per-node 2 ppo "${common[@]}" actor_rollout_ref.model.path=$W/q35moe \
  trainer.n_gpus_per_node=2 trainer.total_training_steps=2 trainer.save_freq=1 trainer.default_local_dir=$W/ck_q35moe trainer.resume_mode=auto
sel ppo_q35_all_full && { rm -rf q35_full; $V model init --arch qwen3_5 "${Q35[@]}" --layer-types full_attention full_attention full_attention --output q35_full >/dev/null 2>&1;
  run ppo_q35_all_full 110 ppo $W/q35_full trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_full; }
# all-linear Qwen3.5-MoE through the rollout (does the crash depend on MoE?)
sel ppo_q35moe_all_linear && { rm -rf q35moe_lin; $V model init --arch qwen3_5_moe "${Q35[@]}" --layer-types linear_attention linear_attention linear_attention \
  --num-experts 4 --num-experts-per-tok 2 --moe-intermediate-size 8 --output q35moe_lin >/dev/null 2>&1;
  run ppo_q35moe_all_linear 110 ppo $W/q35moe_lin trainer.total_training_steps=1 trainer.default_local_dir=$W/ck_lin; }
# a preset with tiny shape options: are the options applied?
sel init_preset_dense_tiny && { rm -rf p1; run init_preset_dense_tiny 60 $V model init --preset qwen3-0.6b --hidden-size 16 --num-hidden-layers 1 \
  --intermediate-size 32 --num-attention-heads 2 --num-key-value-heads 1 --head-dim 8 --dtype float32 --output p1 &&
  python3 -c "import json;c=json.load(open('p1/config.json'));print('init_preset_dense_tiny config:',{k:c.get(k) for k in ['hidden_size','num_hidden_layers','head_dim','torch_dtype']})" | tee -a summary.txt; rm -rf p1; }
