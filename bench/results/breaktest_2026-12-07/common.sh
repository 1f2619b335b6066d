COMMON=(data.train_files=/tmp/bt20/gsm8k/train.parquet data.val_files=/tmp/bt20/gsm8k/test.parquet
 data.train_max_samples=16 data.val_max_samples=4 data.train_batch_size=4
 data.max_prompt_length=256 data.max_response_length=16
 actor_rollout_ref.model.path=/tmp/bt20/tiny actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n=2
 actor_rollout_ref.actor.ppo_mini_batch_size=4 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2
 actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4
 actor_rollout_ref.rollout.tensor_model_parallel_size=1
 algorithm.adv_estimator=grpo trainer.n_gpus_per_node=1 'trainer.logger=[console,file]')
