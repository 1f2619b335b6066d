# Distillation combined with other features.
source /tmp/bt15/scripts/lib.sh
show() { tail -1 log/summary.txt; grep -vE '^step:|^verlpp: (plot|actor_rollout|engine)|note:' log/$1.out | grep -iE 'error|✗|what|abort|terminat|warn' | head -4 | cut -c1-300; m $1 "${2:-distillation/loss$}" | tail -2; }
c F01_gae_critic algorithm.adv_estimator=gae critic.model.path=$STU critic.ppo_micro_batch_size_per_gpu=4 critic.ppo_mini_batch_size=4 critic.optim.lr=1e-4 $L.use_task_rewards=true >/dev/null; show F01_gae_critic 'distillation/loss$|critic/vf_loss|critic/values/mean'
c F02_use_kl_loss actor_rollout_ref.actor.use_kl_loss=true actor_rollout_ref.actor.kl_loss_coef=0.1 actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 >/dev/null; show F02_use_kl_loss 'distillation/loss$|actor/kl_loss|actor/loss$'
c F03_kl_in_reward algorithm.use_kl_in_reward=true actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 >/dev/null; show F03_kl_in_reward 'distillation/loss$|actor/reward_kl_penalty$|critic/rewards/mean'
c F04_dyn_bsz actor_rollout_ref.actor.use_dynamic_bsz=true actor_rollout_ref.actor.ppo_max_token_len_per_gpu=64 actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=true actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=64 >/dev/null; show F04_dyn_bsz
c F04b_dyn_bsz_topk actor_rollout_ref.actor.use_dynamic_bsz=true actor_rollout_ref.actor.ppo_max_token_len_per_gpu=40 $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=4 >/dev/null; show F04b_dyn_bsz_topk 'distillation/(loss|teacher_mass)$'
c F05_val_before_train trainer.val_before_train=true trainer.test_freq=1 >/dev/null; show F05_val_before_train 'reverse_kl|val-core'
c F06_val_only trainer.val_only=true trainer.val_before_train=true >/dev/null; show F06_val_only 'reverse_kl|val-core'
c F07_rollout_n4 actor_rollout_ref.rollout.n=4 data.train_batch_size=4 >/dev/null; show F07_rollout_n4
c F08_loss_agg_seqsum actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum $L.loss_mode=k3 $L.use_policy_gradient=false >/dev/null; show F08_loss_agg_seqsum
c F09_rloo_tr algorithm.adv_estimator=rloo actor_rollout_ref.rollout.n=2 data.train_batch_size=4 $L.use_task_rewards=true >/dev/null; show F09_rloo_tr
c F10_sampling_temp actor_rollout_ref.rollout.temperature=0.5 >/dev/null; show F10_sampling_temp
c F11_ppo_epochs3 actor_rollout_ref.actor.ppo_epochs=3 >/dev/null; show F11_ppo_epochs3 'distillation/(loss|pg_clipfrac|ppo_kl)$'
c F12_lora actor_rollout_ref.model.lora_rank=4 actor_rollout_ref.model.lora_alpha=8 >/dev/null; show F12_lora
c F13_balance_batch trainer.balance_batch=true >/dev/null; show F13_balance_batch
