# Loss-mode matrix (real teacher) and student == teacher (D must be 0).
source /tmp/bt15/scripts/lib.sh
for mode in k1 kl abs k2 mse k3 low_var_kl forward_kl_topk; do
  for pg in true false; do
    for tr in true false; do
      [ $pg = false ] && { [ $mode = k1 ] || [ $mode = kl ]; } && continue
      c M_${mode}_pg${pg}_tr${tr} $L.loss_mode=$mode $L.use_policy_gradient=$pg $L.use_task_rewards=$tr $L.topk=4 > /dev/null
      grep -E '^== ' -m1 /dev/null; tail -1 log/summary.txt
      m M_${mode}_pg${pg}_tr${tr} 'distillation/(loss|abs_loss|teacher_mass)$|actor/loss$|actor/pg_loss$' | tail -1
    done
  done
done
for mode in k1 abs k2 k3 forward_kl_topk; do
  pg=true; [ $mode != k1 ] && pg=false
  c S_${mode}_self $L.loss_mode=$mode $L.use_policy_gradient=$pg $L.topk=16 $T.model_path=$STU > /dev/null
  tail -1 log/summary.txt
  m S_${mode}_self 'distillation/' | head -1
done
