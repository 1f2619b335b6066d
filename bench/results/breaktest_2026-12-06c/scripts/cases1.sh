# Config value cases: wrong types, ranges, NaN/inf, null, empty, misspellings.
source /tmp/bt15/scripts/lib.sh
c 02_loss_mode_k9 $L.loss_mode=k9
c 03_loss_mode_empty "$L.loss_mode="
c 04_loss_mode_null $L.loss_mode=null
c 05_loss_mode_upper $L.loss_mode=K1
c 06_topk_0 $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=0
c 07_topk_neg $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=-3
c 08_topk_above_vocab $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=17
c 09_topk_eq_vocab $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=16
c 10_topk_float $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=4.5
c 11_topk_str $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=abc
c 12_topk_null_topkmode $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=null
c 13_topk_0_k1 $L.topk=0
c 14_coef_nan $L.use_task_rewards=true $L.distillation_loss_coef=nan
c 15_coef_inf $L.use_task_rewards=true $L.distillation_loss_coef=inf
c 16_coef_neg $L.use_task_rewards=true $L.distillation_loss_coef=-1
c 17_coef_str $L.use_task_rewards=true $L.distillation_loss_coef=big
c 18_clamp_0 $L.loss_max_clamp=0
c 19_clamp_neg $L.loss_max_clamp=-5
c 20_clamp_nan $L.loss_max_clamp=nan
c 21_clamp_inf $L.loss_max_clamp=inf
c 22_clamp_null $L.loss_max_clamp=null
c 23_lpmin_pos $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=4 $L.log_prob_min_clamp=1
c 24_lpmin_nan $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=4 $L.log_prob_min_clamp=nan
c 25_lpmin_neginf $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=4 "$L.log_prob_min_clamp=-inf"
c 26_clip_neg $L.clip_ratio=-0.2 $L.clip_ratio_low=-0.2
c 27_clip_nan $L.clip_ratio_high=nan
c 28_clip_huge $L.clip_ratio_high=1e30
c 29_policy_loss_gspo $L.policy_loss_mode=gspo
c 30_use_pg_str $L.use_policy_gradient=maybe
c 31_enabled_str distillation.enabled=yes
c 32_typo_key $L.loss_mod=k3
c 33_typo_top distillation.teacher_model.model_path=$TEA
c 34_plus_typo +$L.loss_mod=k3
c 35_k1_nopg $L.use_policy_gradient=false
c 36_maxbatched_0 $T.inference.max_num_batched_tokens=0
c 37_maxbatched_1 $T.inference.max_num_batched_tokens=1
c 38_ngpus_0 distillation.n_gpus_per_node=0
c 39_nnodes_0 distillation.nnodes=0
c 40_tp2 $T.inference.tensor_model_parallel_size=2
c 41_maxlen_short $T.inference.max_model_len=10
c 42_temp_0_5 $T.inference.temperature=0.5
c 43_teacher_key_empty "distillation.teacher_key="
c 44_enabled_false_badteacher distillation.enabled=false $T.model_path=/nonexistent $L.loss_mode=k9
