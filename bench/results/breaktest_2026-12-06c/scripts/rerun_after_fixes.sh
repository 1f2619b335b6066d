# The non-clean cases of this round again, with the binary of the fixes (main at the commit that
# follows e0c0166, copied to /tmp/bt15b/verlpp); the rest of the harness as lib.sh sets it up.
source /tmp/bt15/scripts/lib.sh
V=/tmp/bt15b/verlpp
M=/tmp/bt15/models; DD=/tmp/bt15/data
TM=distillation.teacher_models
k() { echo "+$TM.$1.key=$2" "+$TM.$1.model_path=${3:-$TEA}" "+$TM.$1.num_replicas=${4:-1}"; }
cd $B
say() { tail -1 log/summary.txt; grep -E '✗|error:|note: |removed|scores every|not used' log/$1.out | head -4 | cut -c1-260; }
# R6b: an earlier run's global_step_2 / 4 in the folder, the teacher in global_step_4, 3 steps
rm -rf runs/R6b && cp -r runs/R1_save.bak runs/R6b
c R6b_after trainer.total_training_steps=3 trainer.save_freq=1 trainer.max_actor_ckpt_to_keep=1 \
  $T.model_path=$B/runs/R6b/global_step_4/actor/huggingface trainer.default_local_dir=$B/runs/R6b >/dev/null
say R6b_after; echo "left: $(ls runs/R6b | tr '\n' ' ')"
# R6b with 5 steps: the run would replace global_step_4, the teacher's folder
rm -rf runs/R6d && cp -r runs/R1_save.bak runs/R6d
c R6d_after trainer.total_training_steps=5 trainer.save_freq=1 trainer.max_actor_ckpt_to_keep=1 \
  $T.model_path=$B/runs/R6d/global_step_4/actor/huggingface trainer.default_local_dir=$B/runs/R6d >/dev/null
say R6d_after; echo "left: $(ls runs/R6d | tr '\n' ' ')"
# R6: auto-resume from global_step_4 (the teacher's folder), 6 steps
rm -rf runs/R6 && cp -r runs/R1_save.bak runs/R6
c R6_after trainer.total_training_steps=6 trainer.save_freq=1 trainer.max_actor_ckpt_to_keep=1 \
  trainer.resume_mode=auto $T.model_path=$B/runs/R6/global_step_4/actor/huggingface \
  trainer.default_local_dir=$B/runs/R6 >/dev/null
say R6_after; echo "left: $(ls runs/R6 | tr '\n' ' ')"
# X: the same step (lr 0) with micro-batches of 8 and 1
for mb in 8 1; do
  c X_after_micro$mb actor_rollout_ref.actor.optim.lr=0 actor_rollout_ref.actor.ppo_mini_batch_size=8 \
    actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=$mb $L.loss_mode=forward_kl_topk \
    $L.use_policy_gradient=false $L.topk=4 >/dev/null
  m X_after_micro$mb 'distillation/(loss|loss_max|loss_min|student_mass_min|teacher_mass_min)$' 2>/dev/null | head -1
done
# check: topk above the vocabulary (16), an empty key; N5 (max_logprobs below topk); F02's notice
CMD=check c C_topk17_after $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=17 >/dev/null; say C_topk17_after
CMD=check c C_key_empty_after "+$TM.a.key=" +$TM.a.model_path=$TEA +$TM.a.num_replicas=1 >/dev/null; say C_key_empty_after
c N5_after $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=8 \
  +$T.inference.engine_kwargs.vllm.max_logprobs=4 >/dev/null; say N5_after
CMD=check c F02_after actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.actor.kl_loss_coef=0.1 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 >/dev/null; say F02_after
# K02: one keyed teacher matching no row; K16: teacher_model with its own key plus one keyed teacher
c K02_after $(k other other/data) >/dev/null; say K02_after
c K16_after $T.key=A distillation.n_gpus_per_node=1 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk \
  $(k b B $M/q35) >/dev/null; say K16_after
