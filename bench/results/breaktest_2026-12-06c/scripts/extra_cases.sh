# One-off cases run by hand (after cases1..10): see cases.md for their results.
source /tmp/bt15/scripts/lib.sh
TM=distillation.teacher_models; k() { echo "+$TM.$1.key=$2" "+$TM.$1.model_path=${3:-$TEA}" "+$TM.$1.num_replicas=${4:-1}"; }
# student == teacher with one mini-batch (D = 0 at step 1)
for kk in 16 4; do c S2_topk${kk}_self_onemb $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=$kk $T.model_path=$STU actor_rollout_ref.actor.ppo_mini_batch_size=8 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8; done
c S3_self_val_revkl $T.model_path=$STU trainer.val_only=true trainer.val_before_train=true
# keyed validation rows without a teacher; quoted numeric keys
c K17b_val_unmatched trainer.val_before_train=true trainer.test_freq=2 data.val_files=$B/data/keyed_mixAC.jsonl distillation.n_gpus_per_node=2 data.train_files=$B/data/keyed.jsonl distillation.teacher_key=tk $(k a A) $(k b B)
c K17c_val_all_unmatched trainer.val_before_train=true trainer.test_freq=2 data.val_files=$B/data/keyed_C.jsonl distillation.n_gpus_per_node=2 data.train_files=$B/data/keyed.jsonl distillation.teacher_key=tk $(k a A) $(k b B)
c K07b_num_quoted distillation.n_gpus_per_node=2 data.train_files=$B/data/keyed_num.jsonl distillation.teacher_key=tk "+$TM.a.key='1'" +$TM.a.model_path=$TEA +$TM.a.num_replicas=1 "+$TM.b.key='2'" +$TM.b.model_path=$TEA +$TM.b.num_replicas=1
c F02b_use_kl_loss_tr actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.actor.kl_loss_coef=0.1 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 $L.use_task_rewards=true
# checkpoint rotation deletes a previous run's checkpoints, including the running teacher's folder
rm -rf $B/runs/R6b && cp -r $B/runs/R1_save.bak $B/runs/R6b   # global_step_2, global_step_4 from R1_save
c R6b_teacher_in_ckpt_dir_fresh trainer.total_training_steps=3 trainer.save_freq=1 trainer.max_actor_ckpt_to_keep=1 $T.model_path=$B/runs/R6b/global_step_4/actor/huggingface trainer.default_local_dir=$B/runs/R6b
ls $B/runs/R6b   # only global_step_3 is left
# min/max metrics averaged over micro-batches: same data and weights (lr 0), micro-batch 8 vs 1
for mb in 8 1; do c X_micro${mb}_lr0 actor_rollout_ref.actor.optim.lr=0 actor_rollout_ref.actor.ppo_mini_batch_size=8 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=$mb $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=4
  m X_micro${mb}_lr0 'distillation/(loss|loss_max|loss_min|student_mass_min|teacher_mass_min)$' | head -1; done
# 1 rank vs 2 Gloo ranks with matched micro-batches
same="actor_rollout_ref.actor.ppo_mini_batch_size=8 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 trainer.balance_batch=false"
c D9a_one_rank_same $same
( cd $B/runs; VERL_FILE_LOGGER_PATH=$B/log/D9b_two_rank_same.jsonl timeout 300 $V launch --nproc-per-node 2 ppo "${base[@]}" trainer.n_gpus_per_node=2 $same trainer.default_local_dir=$B/runs/D9b ) > $B/log/D9b_two_rank_same.out 2>&1
# 2-rank SIGINT to the launcher then resume: see G4 in cases.md (launch ... & sleep 8; kill -INT $pid)
