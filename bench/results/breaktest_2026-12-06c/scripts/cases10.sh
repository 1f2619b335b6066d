# Newer verl keys/modes, boundaries, 2-rank signal.
source /tmp/bt15/scripts/lib.sh
show() { tail -1 log/summary.txt; grep -vE '^step:|^verlpp: (plot|actor_rollout|engine)' log/$1.out | grep -iE 'error|✗|what|abort|terminat|warn|note: distill' | head -3 | cut -c1-300; m $1 'distillation/loss$' | tail -1; }
c N1_topk_tail $L.loss_mode=forward_kl_topk_tail $L.use_policy_gradient=false >/dev/null; show N1_topk_tail
c N2_kd_temperature +$L.kd_temperature=2.0 >/dev/null; show N2_kd_temperature
c N3_maxlen_exact $T.inference.max_model_len=25 >/dev/null; show N3_maxlen_exact
c N4_maxlen_24 $T.inference.max_model_len=24 >/dev/null; show N4_maxlen_24
c N5_vllm_max_logprobs_small $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=8 +$T.inference.engine_kwargs.vllm.max_logprobs=4 >/dev/null; show N5_vllm_max_logprobs_small
c N6_dtype_bogus $T.inference.dtype=float8 >/dev/null; show N6_dtype_bogus
c N7_num_replicas_single $T.num_replicas=5 >/dev/null; show N7_num_replicas_single
c N8_teacher_ngpus_str distillation.n_gpus_per_node=two >/dev/null; show N8_teacher_ngpus_str
c N9_teacher_models_null distillation.teacher_models=null >/dev/null; show N9_teacher_models_null
c N10_teacher_models_empty "distillation.teacher_models={}" >/dev/null; show N10_teacher_models_empty
c N11_del_teacher_model "~$T" >/dev/null; show N11_del_teacher_model
c N12_huge_topk_int64 $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=99999999999999999999 >/dev/null; show N12_huge_topk_int64
c N13_coef_huge $L.use_task_rewards=true $L.distillation_loss_coef=1e308 >/dev/null; show N13_coef_huge
