#!/usr/bin/env bash
# Re-creates the fixtures and re-runs every non-clean case of /tmp/bt6/report.md.
# Case names (report.md) per function: see the mapping paragraph at the top of report.md.
# Needs: /tmp/bt6/verlpp (copy of /work/main/build/verlpp), /tmp/bt6/{base.sh,seed000.sh,seed002.sh,seed003.sh,cmp.py}.
# Usage: bash /tmp/bt6/run_cases.sh [CASE ...]   (no argument: all cases)
set -u
B=/tmp/bt6; V=$B/verlpp; FX=$B/fx; TOK=/work/shared/data/tokenizers/qwen3; W=$B/rerun
[ -x "$V" ] || { mkdir -p $B && cp /work/main/build/verlpp $V; }
mkdir -p $W

fixtures() {
  [ -f $FX/gsm8k/train.parquet ] || $V data gsm8k --input /work/shared/data/gsm8k --output $FX/gsm8k
  [ -f $FX/geo/train.jsonl ] || $V data geo3k --standin --train-rows 16 --test-rows 4 --output $FX/geo
  local common="--hidden-size 32 --intermediate-size 64 --num-hidden-layers 2 --num-attention-heads 4 --num-key-value-heads 2 --vocab-size 151936 --dtype float32 --tokenizer $TOK"
  local moe="--num-experts 4 --num-experts-per-tok 2 --moe-intermediate-size 16"
  local lt="--layer-types linear_attention full_attention"
  [ -d $FX/qwen3 ] || $V model init --arch qwen3 $common --output $FX/qwen3
  [ -d $FX/qwen3moe ] || $V model init --arch qwen3_moe $common $moe --output $FX/qwen3moe
  [ -d $FX/qwen35 ] || $V model init --arch qwen3_5 $common $lt --output $FX/qwen35
  [ -d $FX/qwen35moe ] || $V model init --arch qwen3_5_moe $common $lt $moe --output $FX/qwen35moe
  if [ ! -d $FX/qwen35_vl ]; then
    $V model init --arch qwen3_5 $common $lt --vision-depth 1 --output $FX/qwen35_vl
    $V model init --arch qwen3_5_moe $common $lt $moe --vision-depth 1 --output $FX/qwen35moe_vl
    cp -r $FX/qwen35moe_vl $FX/qwen35moe_vl_q3tmpl   # keeps the Qwen3 tokenizer's own (text-only) template
    # the Qwen3 tokenizer's template cannot render image items: give the VL models the repo's VL test template
    for m in qwen35_vl qwen35moe_vl; do python3 - $FX/$m/tokenizer_config.json /work/main/tests/fixtures/tokenizers/templates/qwen3_5-vl-test.jinja <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["chat_template"] = open(sys.argv[2]).read(); json.dump(c, open(sys.argv[1], "w"))
PY
    done
  fi
  if [ ! -f $FX/mt/train.jsonl ]; then mkdir -p $FX/mt; python3 - <<'PY'
import json, random
random.seed(0)
def conv():
    a,b=random.randint(1,50),random.randint(1,50)
    return {"messages":[{"role":"system","content":"You are a calculator."},{"role":"user","content":f"What is {a}+{b}?"},
        {"role":"assistant","content":f"{a+b}"},{"role":"user","content":"And times 2?"},{"role":"assistant","content":f"{2*(a+b)}"}]}
for split,n in (("train",64),("test",8)):
    with open(f"/tmp/bt6/fx/mt/{split}.jsonl","w") as f:
        for i in range(n): f.write(json.dumps(conv())+"\n")
PY
  fi
}
fixtures >/dev/null 2>&1 || { echo "fixture set-up failed"; exit 1; }
source $B/base.sh            # BASE=(...) tiny GSM8K GRPO run on fx/qwen3, 1 CPU rank
LONG=(data.max_response_length=128 actor_rollout_ref.rollout.n=4 trainer.total_training_steps=12 trainer.save_freq=5)
hdr() { echo; echo "################ $1"; rm -rf $W/$1; mkdir -p $W/$1; cd $W/$1; }

# ---------- lost ----------
launch_sigint_pgrp() {   # Ctrl-C in a terminal = SIGINT to the launcher's whole process group
  hdr launch_sigint_pgrp
  for sig in INT TERM; do rm -rf checkpoints
    setsid $V launch --nproc-per-node 2 ppo "${BASE[@]}" "${LONG[@]}" trainer.n_gpus_per_node=2 > o_$sig.txt 2>&1 & S=$!
    sleep 1; P=$(pgrep -f "verlpp launch --nproc-per-node 2 ppo" | head -1); sleep 14
    kill -$sig -- -$P; wait $S; echo "SIG$sig to process group: launcher rc=$?"
    grep 'launch:\|stopped by' o_$sig.txt | cut -c1-200; ls checkpoints/p/e 2>&1 | head -3
  done
  echo "--- control: SIGINT to the launcher pid only"; rm -rf checkpoints
  setsid $V launch --nproc-per-node 2 ppo "${BASE[@]}" "${LONG[@]}" trainer.n_gpus_per_node=2 > o_ctl.txt 2>&1 & S=$!
  sleep 1; P=$(pgrep -f "verlpp launch --nproc-per-node 2 ppo" | head -1); sleep 14; kill -INT $P; wait $S
  echo "launcher rc=$?"; grep 'stopped by' o_ctl.txt | cut -c1-200; ls checkpoints/p/e
}
timeout_sigint() {       # SIGINT to `timeout` (it signals the child, then its process group: 2 signals); intermittent
  hdr timeout_sigint
  for t in 2 4 6 8 10 12 14 25; do rm -rf checkpoints
    timeout 300 $V ppo "${BASE[@]}" "${LONG[@]}" > o_$t.txt 2>&1 & P=$!
    sleep $t; kill -INT $P; wait $P; echo "SIGINT to timeout after ${t}s: rc=$? checkpoints: $(ls checkpoints/p/e 2>/dev/null | grep global_step | paste -sd' ')"
  done
}
# ---------- incompatible / accepted-bad ----------
seed003_images() {       # verl seed 003 (OPD) on its own data set (geo3k, images)
  hdr seed003_images
  E=(STUDENT_MODEL=$FX/qwen35_vl TEACHER_MODEL=$FX/qwen35moe_vl TRAIN_FILE=$FX/geo/train.jsonl VAL_FILE=$FX/geo/test.jsonl)
  env "${E[@]}" CMD="$V check --no-print-config" bash $B/seed003.sh | tail -1
  env "${E[@]}" CMD="$V ppo" timeout 300 bash $B/seed003.sh trainer.total_training_steps=2 2>&1 | grep -v '^step' | tail -4
  echo "rc=${PIPESTATUS[0]}"
  echo "--- control: same with distillation.enabled=False"
  env "${E[@]}" CMD="$V ppo" timeout 300 bash $B/seed003.sh trainer.total_training_steps=2 distillation.enabled=False 2>&1 | grep -c '^step'
}
optimizer_ignored() {
  hdr optimizer_ignored
  for o in AdamW SGD; do
    timeout 300 $V ppo "${BASE[@]}" actor_rollout_ref.actor.optim.optimizer=$o trainer.total_training_steps=2 trainer.save_freq=2 trainer.default_local_dir=ck_$o > o_$o.txt 2>&1
    echo "optimizer=$o rc=$? $(grep -o 'training state.*' o_$o.txt)"; done
  cmp ck_AdamW/global_step_2/actor/huggingface/model.safetensors ck_SGD/global_step_2/actor/huggingface/model.safetensors && echo "weights after 2 steps: IDENTICAL for AdamW and SGD"
  timeout 30 $V check --no-print-config "${BASE[@]}" actor_rollout_ref.actor.optim.optimizer=NoSuchOptimizer | tail -1
}
steps_beyond_epochs() {
  hdr steps_beyond_epochs
  timeout 300 $V ppo "${BASE[@]}" data.train_max_samples=10 trainer.total_epochs=2 trainer.total_training_steps=7 > o.txt 2>&1; echo "rc=$?"
  grep -o '^step:[0-9]*\|training/epoch:[0-9]*' o.txt | paste -sd' '
}
keys_refused() {         # keys verl accepts (and acts on) that verlpp refuses as "no effect"
  hdr keys_refused
  while read -r k; do echo "== $k"; timeout 30 $V check --no-print-config "${BASE[@]}" $k 2>&1 | grep -E '✗|error' | cut -c1-220; done <<'K'
+data.apply_chat_template_kwargs.enable_thinking=False
actor_rollout_ref.actor.checkpoint.save_contents=['model','optimizer','extra','hf_model']
reward_model.enable=False
reward_model.reward_manager=dapo
custom_reward_function.path=/tmp/x.py
hydra.run.dir=outputs/x
K
  $V ppo --cfg job 2>&1 | head -1
}
trackers_skipped() {
  hdr trackers_skipped
  timeout 30 $V check --no-print-config "${BASE[@]}" "trainer.logger=['console','wandb']" | tail -1
  timeout 300 $V ppo "${BASE[@]}" "trainer.logger=['console','wandb']" trainer.total_training_steps=1 2>&1 | grep -v '^step' | grep -i wandb; echo "rc=${PIPESTATUS[0]}"
}
resume_batch_change() {
  hdr resume_batch_change
  timeout 300 $V ppo "${BASE[@]}" trainer.total_training_steps=2 trainer.save_freq=2 > a.txt 2>&1
  timeout 300 $V ppo "${BASE[@]}" trainer.total_training_steps=4 data.train_batch_size=8 actor_rollout_ref.actor.ppo_mini_batch_size=8 2>&1 | tail -1; echo "rc=${PIPESTATUS[0]}"
}
megatron_layout() {      # seed 002 shrunk, tp=2 on 2 CPU ranks; dist checkpoint path that does not exist
  hdr megatron_layout
  E=(MODEL_PATH=$FX/qwen3moe TRAIN_FILE=$FX/gsm8k/train.parquet TEST_FILE=$FX/gsm8k/test.parquet first_layer=null last_layer=null train_tp=2 MCORE_MODEL_PATH=/nonexistent/mcore)
  env "${E[@]}" CMD="$V check --no-print-config" bash $B/seed002.sh trainer.n_gpus_per_node=2 | grep 'actor (megatron)\|dist_checkpointing_path\|result'
  env "${E[@]}" CMD="$V launch --nproc-per-node 2 ppo" timeout 300 bash $B/seed002.sh trainer.n_gpus_per_node=2 trainer.total_training_steps=1 2>&1 | grep -v '^step' | cut -c1-200
  echo "rc=${PIPESTATUS[0]}"
}
metrics_missing() {
  hdr metrics_missing
  timeout 300 $V ppo "${BASE[@]}" trainer.total_training_steps=1 trainer.val_before_train=True > o.txt 2>&1
  python3 - p/e.jsonl <<'PY'
import json,sys
ks=set()
for l in open(sys.argv[1]): ks|=set(json.loads(l)["data"])
want=["training/rollout_probs_diff_valid","training/rollout_actor_probs_pearson_corr","training/num_turns/mean",
      "val-aux/num_turns/mean","variance_proxy/proxy1_signal_strength","perf/max_memory_allocated_gb","perf/cpu_memory_used_gb","actor/entropy_loss"]
for w in want: print(("present " if w in ks else "MISSING ")+w)
PY
  source $B/sftbase.sh 2>/dev/null || S=(data.train_files=$FX/mt/train.jsonl data.messages_key=messages data.micro_batch_size_per_gpu=4 data.train_batch_size=16 model.path=$FX/qwen3 trainer.device=cpu data.ignore_input_ids_mismatch=true)
  timeout 300 $V sft "${S[@]}" trainer.total_training_steps=1 trainer.default_local_dir=sftck 2>&1 | grep '^step'
}
# ---------- unclear ----------
unclear_messages() {
  hdr unclear_messages
  echo "== check of an SFT config"; timeout 30 $V check --config-name sft_trainer --no-print-config 2>&1 | head -2
  echo "== sft --help default config"; $V sft --help | grep config-name
  echo "== images with the Qwen3 tokenizer's own template"
  MODEL_PATH=$FX/qwen35moe_vl_q3tmpl TRAIN_FILE=$FX/geo/train.jsonl TEST_FILE=$FX/geo/test.jsonl CMD="$V ppo" timeout 300 bash $B/seed000.sh trainer.total_training_steps=1 2>&1 | tail -1
  echo "== fsdp dtype note on a Megatron config"
  E=(MODEL_PATH=$FX/qwen3moe TRAIN_FILE=$FX/gsm8k/train.parquet TEST_FILE=$FX/gsm8k/test.parquet first_layer=null last_layer=null)
  env "${E[@]}" CMD="$V ppo" timeout 300 bash $B/seed002.sh trainer.total_training_steps=1 2>&1 | grep fsdp_config
  echo "== 'from torchrun' under verlpp launch"; timeout 60 $V launch --nproc-per-node 2 ppo "${BASE[@]}" trainer.total_training_steps=1 2>&1 | grep -m1 torchrun | cut -c1-200
  echo "== old-verl SFT dict keys"; timeout 60 $V sft data.train_files=$FX/gsm8k/train.parquet data.prompt_key=extra_info data.response_key=extra_info "+data.prompt_dict_keys=['question']" "+data.response_dict_keys=['answer']" model.path=$FX/qwen3 trainer.device=cpu 2>&1 | grep '✗'
}
ALL="launch_sigint_pgrp timeout_sigint seed003_images optimizer_ignored steps_beyond_epochs keys_refused trackers_skipped resume_batch_change megatron_layout metrics_missing unclear_messages"
for c in ${@:-$ALL}; do $c; done
