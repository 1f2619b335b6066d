V=/tmp/bt17/verlpp; W=/tmp/bt17/w; SRC=/work/main
cd /work/main
common=(
  data.train_files="$W/gsm8k/train.jsonl" data.val_files="$W/gsm8k/test.jsonl"
  data.train_max_samples=8 data.val_max_samples=3 data.train_batch_size=4
  data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.model.path="$W/model"
  actor_rollout_ref.actor.optim.lr=3e-4 actor_rollout_ref.actor.ppo_mini_batch_size=4
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 actor_rollout_ref.actor.ppo_epochs=2
  actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.actor.entropy_coeff=0.01
  actor_rollout_ref.actor.clip_ratio=0.0005
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.balance_batch=false
  trainer.total_training_steps=1 trainer.save_freq=1 trainer.test_freq=-1 trainer.val_before_train=false
  'trainer.logger=[console,file]' trainer.project_name=bt17 trainer.experiment_name=dp
)
one() { local name=$1; shift; rm -rf "$W/$name" "$W/$name.jsonl"
  VERL_FILE_LOGGER_PATH="$W/$name.jsonl" timeout 300 "$V" ppo "${common[@]}" trainer.n_gpus_per_node=1 \
    trainer.default_local_dir="$W/$name" "$@" > "$W/$name.log" 2>&1; local rc=$?; echo "[$name] exit $rc"; tail -n ${TAILN:-4} "$W/$name.log"; return $rc; }
two() { local name=$1; shift; rm -rf "$W/$name" "$W/$name.jsonl"
  VERL_FILE_LOGGER_PATH="$W/$name.jsonl" timeout 300 "$V" launch --nproc-per-node 2 ppo "${common[@]}" \
    trainer.n_gpus_per_node=2 trainer.default_local_dir="$W/$name" "$@" > "$W/$name.log" 2>&1; local rc=$?; echo "[$name] exit $rc"; tail -n ${TAILN:-4} "$W/$name.log"; return $rc; }
cmpm() { python3 /tmp/bt17/cmp.py "$@"; }
