#!/usr/bin/env bash
# bt16's non-clean cases (and c60, a linked global_step_N) again with the binary of the fixes
# (/tmp/bt16b/verlpp); the rest as cases.sh (run from /tmp/bt16/w2; logs /tmp/bt16/logs/ID.log).
source "$(dirname "$0")/lib.sh"
V=/tmp/bt16b/verlpp
mk()  { rm -rf "$1"; cp -r $B/tmpl5 "$1"; }
smk() { rm -rf "$1"; cp -r $B/stmpl5 "$1"; }
W=$PWD
GAE=(algorithm.adv_estimator=gae critic.model.path=$M critic.ppo_micro_batch_size_per_gpu=4
     critic.ppo_mini_batch_size=4 actor_rollout_ref.rollout.n=1 critic.optim.lr=1e-5)
DIS_OFF=(trainer.resume_mode=disable trainer.total_training_steps=3)
D=$W/c09; mk $D; run_case c09 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=5 trainer.resume_mode=disable; lst $D
D=$W/c11; mk $D; echo notes > $D/global_step_2/eval_results.json
mkdir -p $D/global_step_2/actor/exported && cp $M/config.json $D/global_step_2/actor/exported/
run_case c11 ppo trainer.default_local_dir=$D trainer.resume_mode=disable trainer.total_training_steps=2
ls $D/global_step_2 $D/global_step_2/actor/exported
D=$W/c12; mk $D; cp -r $D/global_step_2 $D/global_step_2.old; echo precious > $D/global_step_2.old/NOTE
run_case c12 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=7; lst $D; cat $D/global_step_2.old/NOTE
D=$W/c14; mk $D; cp -r $D/global_step_3 $D/.tmp_global_step_4_12345
mkdir $D/.tmp_global_step_notes $D/.tmp_other; echo mine > $D/.tmp_global_step_notes/x
run_case c14 ppo trainer.default_local_dir=$D trainer.max_actor_ckpt_to_keep=1 trainer.total_training_steps=7; lst $D
mkdir -p $B/home; rm -rf $B/home/ck2 ./~; HOME=$B/home run_case c32 ppo trainer.default_local_dir='~/ck2' "${DIS_OFF[@]}" trainer.max_actor_ckpt_to_keep=1
echo "home: $(ls $B/home/ck2 | tr '\n' ' ') ./~ exists: $([ -e ./~ ] && echo yes || echo no)"
rm -rf ./~ $B/home/ck3; mk $B/home/ck3
HOME=$B/home run_case c33 ppo trainer.default_local_dir='~/ck3' "${DIS_OFF[@]}" trainer.max_actor_ckpt_to_keep=1 actor_rollout_ref.model.path=$B/home/ck3/global_step_2/actor/huggingface
rm -rf $B/home/sck; HOME=$B/home run_case c34 sft trainer.default_local_dir='~/sck' trainer.max_ckpt_to_keep=1; echo "sft home: $(ls $B/home/sck | tr '\n' ' ')"
D=$W/c41; smk $D; cp -r $D/global_step_2 $D/global_step_2.old
run_case c41 sft trainer.default_local_dir=$D trainer.total_training_steps=6 model.path=$D/global_step_2.old/actor/huggingface; lst $D
D=$W/c42; mk $D; mkdir $D/.tmp_global_step_9_1; cp -r $D/global_step_1/actor $D/.tmp_global_step_9_1/
run_case c42 ppo trainer.default_local_dir=$D trainer.total_training_steps=6 actor_rollout_ref.model.path=$D/.tmp_global_step_9_1/actor/huggingface; lst $D
run_case c55 ppo "${GAE[@]}" trainer.default_local_dir=$W/c55 trainer.max_critic_ckpt_to_keep=1
D=$W/c59; mk $D; cp $B/data/train.jsonl $D/global_step_2/train.jsonl
run_case c59 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" data.train_files=$D/global_step_2/train.jsonl; lst $D
D=$W/c60; mk $D; rm -rf $W/c60_out; mv $D/global_step_2 $W/c60_out; ln -s $W/c60_out $D/global_step_2
run_case c60 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" trainer.max_actor_ckpt_to_keep=1 actor_rollout_ref.model.path=$W/c60_out/actor/huggingface
lst $D; echo "c60_out: $(ls $W/c60_out $W/c60_out/actor | tr '\n' ' ')"
D=$W/c61; mk $D; mv $D/global_step_2 $D/global_step_02
run_case c61 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" actor_rollout_ref.model.path=$D/global_step_02/actor/huggingface; lst $D
D=$W/c63; mk $D; run_case c63 ppo trainer.default_local_dir=$D "${DIS_OFF[@]}" +actor_rollout_ref.model.hf_config_path=$D/global_step_2/actor/huggingface
