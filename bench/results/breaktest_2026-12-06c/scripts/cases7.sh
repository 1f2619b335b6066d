# Checkpoint save / resume, signals.
source /tmp/bt15/scripts/lib.sh
show() { tail -1 log/summary.txt; grep -vE '^step:|^verlpp: (plot|actor_rollout|engine)|note:' log/$1.out | grep -iE 'error|✗|what|abort|terminat|warn|resum|signal|saved|checkpoint' | head -5 | cut -c1-300; m $1 "${2:-distillation/loss$}" | tail -3; }
# R1: 4 steps saving every 2, then resume to 6 steps
rm -rf runs/R1_save runs/R1_save.bak runs/R3 runs/R4 runs/R6 runs/R5a_nodistill_save
c R1_save trainer.total_training_steps=4 trainer.save_freq=2 >/dev/null; show R1_save; ls runs/R1_save
cp -r runs/R1_save runs/R1_save.bak
run_in() { local name=$1 dir=$2; shift 2; ( source /tmp/bt15/scripts/lib.sh; cd $B/runs; VERL_FILE_LOGGER_PATH=$B/log/$name.jsonl OMP_NUM_THREADS=2 timeout 300 $V ppo "${base[@]}" trainer.default_local_dir=$dir "$@" ) > log/$name.out 2>&1; echo "== $name rc=$?" | tee -a log/summary.txt; }
run_in R2_resume_auto $B/runs/R1_save trainer.total_training_steps=6 trainer.save_freq=2 trainer.resume_mode=auto
grep -iE 'resum|error' log/R2_resume_auto.out | head -3; m R2_resume_auto 'distillation/loss$'; ls runs/R1_save
# R3: resume with a different loss_mode (should it be allowed? verl allows)
rm -rf runs/R3; cp -r runs/R1_save.bak runs/R3
run_in R3_resume_changed_mode $B/runs/R3 trainer.total_training_steps=6 trainer.save_freq=2 trainer.resume_mode=auto $L.loss_mode=k3 $L.use_policy_gradient=false
grep -iE 'resum|error' log/R3_resume_changed_mode.out | head -3; m R3_resume_changed_mode 'distillation/loss$'
# R4: resume_path pointing at a step folder
rm -rf runs/R4; cp -r runs/R1_save.bak runs/R4
run_in R4_resume_path $B/runs/R4 trainer.total_training_steps=6 trainer.save_freq=2 trainer.resume_mode=resume_path trainer.resume_from_path=$B/runs/R4/global_step_2
grep -iE 'resum|error' log/R4_resume_path.out | head -3; m R4_resume_path 'distillation/loss$'; ls runs/R4
# R5: resume from a checkpoint written without distillation
c R5a_nodistill_save distillation.enabled=false trainer.total_training_steps=2 trainer.save_freq=2 >/dev/null; tail -1 log/summary.txt
run_in R5_resume_into_distill $B/runs/R5a_nodistill_save trainer.total_training_steps=4 trainer.save_freq=2 trainer.resume_mode=auto
grep -iE 'resum|error' log/R5_resume_into_distill.out | head -3; m R5_resume_into_distill 'distillation/loss$'
# R6: teacher path == the run's own checkpoint folder being written (teacher is the student's latest save)
rm -rf runs/R6; cp -r runs/R1_save.bak runs/R6
run_in R6_teacher_in_ckpt_dir $B/runs/R6 trainer.total_training_steps=6 trainer.save_freq=1 trainer.max_actor_ckpt_to_keep=1 trainer.resume_mode=auto $T.model_path=$B/runs/R6/global_step_4/actor/huggingface
grep -iE 'resum|error|remov|delet' log/R6_teacher_in_ckpt_dir.out | head -5; m R6_teacher_in_ckpt_dir 'distillation/loss$'; ls runs/R6
