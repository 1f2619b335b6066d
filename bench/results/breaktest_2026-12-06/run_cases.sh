#!/bin/bash
# Re-runs every non-clean case of break-test round bt13 (verl example scripts / recipes) with /tmp/bt13/verlpp.
# Helpers (all under /tmp/bt13): shim/python3 + shim/torchrun (turn `python3 -m verl.trainer.main_ppo ...` and
# `torchrun ... -m verl.trainer.sft_trainer ...` into verlpp ppo/sft/check/launch), rs.sh (run a verl example script
# with tiny CPU settings), case.sh (rs.sh + a record line), sft.sh (SFT example scripts), rr.sh (recipe scripts without "$@"),
# scripts/ (verbatim copies of verl-project/verl@1dda039b9 examples and verl-project/verl-recipe@48ea0a7 scripts; the
# only edits: `ulimit -n` made non-fatal in the sapo/gspo copies, RLLA_PATH knob in the gdpo copy, *_noengine copies of
# the SFT scripts without `engine=fsdp`), rw/ (two custom reward .so files).
set -u
B=/tmp/bt13; V=$B/verlpp; cd $B
[ -f $B/model/config.json ] || timeout 300 $V model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 3 --tokenizer /work/main/tests/fixtures/tokenizers/qwen3 --output $B/model
[ -f $B/gsm8k/train.parquet ] || timeout 300 $V data gsm8k --input /work/shared/data/gsm8k --output $B/gsm8k
[ -f $B/rw/libmyreward.so ] || cc -shared -fPIC -I/work/main/src -o $B/rw/libmyreward.so $B/rw/myreward.c
[ -f $B/rw/libnamed.so ] || cc -shared -fPIC -I/work/main/src -o $B/rw/libnamed.so $B/rw/named.c
h() { echo; echo "=== $*"; }
export REWARD=1 ROLLOUT_N=4

h "F1 remax (crash): verl's examples/remax_trainer/run_qwen3_8b_fsdp.sh: check says valid, ppo dies at step 1"
VMODE=check TAILN=1 ./rs.sh chk_remax remax_trainer__run_qwen3_8b_fsdp.sh --no-print-config
TAILN=1 ./rs.sh r_remax remax_trainer__run_qwen3_8b_fsdp.sh
h "F1b remax as an override of the GRPO example"
TAILN=1 ./rs.sh adv_remax grpo_trainer__run_qwen3_8b_fsdp.sh algorithm.adv_estimator=remax
h "F1c remax sync script on 2 Gloo ranks (its ulysses size 2 needs 2 ranks)"
NPROC=2 TAILN=2 ./rs.sh remax_sync_2r remax_trainer__run_qwen2.5_math_7b_sync_fsdp.sh

h "F2 SFT example scripts: engine=fsdp (a Hydra config-group choice in verl's sft_trainer_engine.yaml) refused"
TAILN=3 ./sft.sh sft_q05_engine sft__gsm8k__run_qwen2_5_0_5b_fsdp.sh 1

h "F3 SFT example on 2 ranks (torchrun --nproc_per_node=2; verl's sft_trainer never reads trainer.n_gpus_per_node)"
SP_SIZE=2 TAILN=2 ./sft.sh sft_mt_2r sft__multiturn__run_qwen2_5_0_5b_fsdp_noengine.sh 2

h "F4 GDPO example: reward.reward_manager.name=gdpo refused (verl registers gdpo; it scores as naive does)"
RLLA_PATH=$B/rw/libnamed.so REWARD= TAILN=2 ./rs.sh r_gdpo gdpo_trainer__run_qwen3_8b_fsdp.sh

h "F5 kl_cov recipe's policy_loss.ppo_kl_coef=1 refused as 'would have no effect' (verl's kl_cov reads it)"
TAILN=2 ./rs.sh klcov_coef1 grpo_trainer__run_qwen3_8b_fsdp.sh actor_rollout_ref.actor.policy_loss.loss_mode=kl_cov actor_rollout_ref.actor.policy_loss.ppo_kl_coef=1
h "F5b clip_cov's policy_loss.clip_cov_lb refused likewise (verl's clip_cov reads clip_cov_lb/ub)"
TAILN=2 ./rs.sh clipcov_lb grpo_trainer__run_qwen3_8b_fsdp.sh actor_rollout_ref.actor.policy_loss.loss_mode=clip_cov actor_rollout_ref.actor.policy_loss.clip_cov_lb=-5

h "F6 verl-recipe entropy/7b_clip_cov.sh with its own config (entropy_trainer.yaml): reward_model.overlong_buffer.* refused although they reach reward.reward_kwargs.overlong_buffer_cfg by interpolation"
CFGARGS="--config-path=$B/recipe_cfg/entropy --config-name=entropy_trainer" TAIL="$(cat $B/sh_ent.txt) actor_rollout_ref.rollout.mode=async" TAILN=8 ./rr.sh clipcov_7b recipe__entropy_7b_clip_cov.sh

h "F7 SAPO: the example's +policy_loss.tau_pos/tau_neg refused; verl's actual keys actor.tau_pos/tau_neg refused when not the defaults"
TAILN=4 ./rs.sh r_sapo sapo_trainer__run_qwen3_8b_fsdp.sh
TAU_POS=5.0 TAU_NEG=5.0 TAILN=4 ./rs.sh r_sapo_tau5 sapo_fixed.sh

h "F8 DAPO test_dapo_7b_math.sh: +actor_rollout_ref.model.override_config.max_position_embeddings refused"
TAIL="$(sed 's# ~actor_rollout_ref.model.override_config.max_position_embeddings##' $B/sh_dapo.txt) reward_model.reward_kwargs.overlong_buffer_cfg.len=8 reward_model.reward_kwargs.max_resp_len=32" TAILN=2 ./rr.sh dapo_7b_as_is recipe__dapo_test_dapo_7b_math.sh

h "F9 prefix_grouper example: actor.use_prefix_grouper=True refused"
TAILN=2 ./rs.sh prefix_grouper prefix_grouper__run_qwen3_8b_fsdp.sh

h "F10 reward.reward_model.enable=True without a model path: accepted, trains on the rule reward (verl: copy_to_local(None) fails)"
VMODE=check TAILN=1 ./rs.sh chk_rm_only grpo_trainer__run_qwen3_8b_fsdp.sh reward.reward_model.enable=True --no-print-config
TAILN=1 ./rs.sh rm_enable_only grpo_trainer__run_qwen3_8b_fsdp.sh reward.reward_model.enable=True

h "F11 check says valid, run fails after loading/validation: kl_loss_type=full, kl_ctrl.type typo, a .py custom reward"
for c in "klfull actor_rollout_ref.actor.kl_loss_type=full" "klctrl_typo algorithm.use_kl_in_reward=True algorithm.kl_ctrl.type=adaptiv" "custom_py reward.custom_reward_function.path=$B/rw/my_reward.py"; do
  set -- $c; VMODE=check TAILN=1 ./rs.sh chk_$1 grpo_trainer__run_qwen3_8b_fsdp.sh ${@:2} --no-print-config; TAILN=1 ./rs.sh $1 grpo_trainer__run_qwen3_8b_fsdp.sh ${@:2}; done

h "F12 adv_estimator=gae without critic.model.path: error does not name the key"
TAILN=1 ./rs.sh adv_gae grpo_trainer__run_qwen3_8b_fsdp.sh algorithm.adv_estimator=gae
