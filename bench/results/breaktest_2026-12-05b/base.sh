# source me: BASE array of overrides for a tiny GSM8K GRPO run on qwen3
FX=/tmp/bt6/fx
BASE=(
  algorithm.adv_estimator=grpo
  data.train_files=$FX/gsm8k/train.parquet data.val_files=$FX/gsm8k/test.parquet
  data.train_batch_size=4 data.max_prompt_length=256 data.max_response_length=16 data.val_max_samples=4
  actor_rollout_ref.model.path=$FX/qwen3
  actor_rollout_ref.actor.optim.lr=1e-3 actor_rollout_ref.actor.ppo_mini_batch_size=4
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2
  actor_rollout_ref.actor.use_kl_loss=True actor_rollout_ref.actor.kl_loss_coef=0.01
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2 actor_rollout_ref.rollout.tensor_model_parallel_size=1
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2
  trainer.device=cpu trainer.n_gpus_per_node=1 trainer.nnodes=1
  "trainer.logger=[console,file]" trainer.project_name=p trainer.experiment_name=e
  trainer.val_before_train=False trainer.test_freq=-1
)
