# common overrides for a tiny CPU GRPO run
V=/tmp/bt7/verlpp
FX=/tmp/bt7/fx
COMMON=(
  data.train_files=$FX/train8.jsonl data.val_files=$FX/val2.jsonl
  data.train_batch_size=2 data.max_prompt_length=256 data.max_response_length=8
  actor_rollout_ref.model.path=$FX/model
  actor_rollout_ref.actor.optim.lr=1e-3 actor_rollout_ref.actor.ppo_mini_batch_size=2
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
  algorithm.adv_estimator=grpo trainer.device=cpu trainer.n_gpus_per_node=1
  'trainer.logger=[console,file]' trainer.project_name=bt trainer.experiment_name=x
  trainer.total_training_steps=1 trainer.val_before_train=false trainer.save_freq=-1 trainer.test_freq=-1
)
# r NAME overrides... : runs ppo in runs/NAME; prints rc and the tail of output
r() {
  local name=$1; shift
  rm -rf /tmp/bt7/runs/$name; mkdir -p /tmp/bt7/runs/$name
  ( cd /tmp/bt7/runs/$name && VERL_FILE_LOGGER_PATH=m.jsonl timeout 300 $V ppo "${COMMON[@]}" trainer.default_local_dir=ck "$@" > out.txt 2>&1; echo $? > rc )
  echo "== $name rc=$(cat /tmp/bt7/runs/$name/rc)"; grep -v '^step:' /tmp/bt7/runs/$name/out.txt | grep -v 'fsdp_config.dtype=bfloat16\|training state on rank\|plot written' | tail -${TAILN:-6}
}
