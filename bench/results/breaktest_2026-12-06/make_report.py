# Builds report.md and the verdict counts of summary.txt from the case table below.
S = 'scripts/'  # verbatim verl example copies under /tmp/bt13/scripts
RS = './rs.sh NAME SCRIPT [overrides]'  # see README part of report.md
rows = [
# name | command | what happened | verdict | why
("grpo_chk", "VMODE=check ./rs.sh grpo_chk grpo_trainer__run_qwen3_8b_fsdp.sh --no-print-config", "`== result: valid`; lists ray_kwargs...py_executable as ignored", "clean", ""),
("grpo", "./rs.sh grpo grpo_trainer__run_qwen3_8b_fsdp.sh", "rc 0, 2 steps, verl metric names; gsm8k reward all 0 on the random model so advantages 0", "clean", ""),
("r_grpo", "REWARD=1 ROLLOUT_N=4 ./rs.sh r_grpo grpo_trainer__run_qwen3_8b_fsdp.sh; python3 adv_check.py r_grpo grpo", "rc 0; critic/advantages max/min/mean equal verl's GRPO formula recomputed from the rollout dump (steps 1,2)", "clean", ""),
("grpo_2r", "NPROC=2 REWARD=1 ROLLOUT_N=4 ./rs.sh grpo_2r grpo_trainer__run_qwen3_8b_fsdp.sh", "rc 0 on 2 Gloo ranks; advantages match the formula; grad_norm equal to 1 rank (0.434132)", "clean", ""),
("grpo_4b", "./rs.sh r_grpo grpo_trainer__run_qwen3_4b_fsdp.sh", "rc 0", "clean", ""),
("cispo", "check + REWARD=1 ./rs.sh r_cispo cispo_trainer__run_qwen3_8b_fsdp.sh", "valid; rc 0; advantages match GRPO formula", "clean", ""),
("gmpo", "check + ./rs.sh r_gmpo gmpo_trainer__run_qwen3_8b_fsdp.sh (loss_mode geo_mean)", "valid; rc 0", "clean", ""),
("gpg", "check + ./rs.sh r_gpg gpg_trainer__run_qwen3_8b_fsdp.sh; adv_check.py r_gpg gpg", "valid; rc 0; advantages = alpha*(r-mean) with alpha=bsz/nonzero as in core_algos.py:771", "clean", ""),
("gspo", "check + ./rs.sh r_gspo gspo_trainer__run_qwen3_8b_fsdp.sh", "valid; rc 0; advantages match", "clean", ""),
("gspo_clip_keys", "./case.sh gspo_clip_script gspo_trainer__run_qwen3_8b_fsdp.sh ppo_epochs=2 lr=1e-2; same with CLIP_RATIO_LOW/HIGH=0.2", "script's clip 3e-4/4e-4: pg_clipfrac 0.5; clip 0.2: 0.0625 -> the keys act", "clean", ""),
("gspo_2r", "NPROC=2 ./case.sh gspo_2r gspo_trainer__run_qwen3_8b_fsdp.sh", "rc 0, advantages match", "clean", ""),
("otb", "check + ./rs.sh r_otb otb_trainer__run_qwen3_8b_fsdp.sh (optimal_token_baseline, calculate_sum_pi_squared=True)", "valid; rc 0; finite advantages (max 0.667, min -0.375)", "clean", "formula not recomputed"),
("rfpp", "check + ./rs.sh r_reinforce_plus_plus reinforce_plus_plus_trainer__run_qwen3_8b_fsdp.sh; adv_check.py rfpp", "valid; rc 0; whitened returns match core_algos.py:694 (use_kl_in_reward on, KL ~1e-7)", "clean", ""),
("rloo", "check + ./rs.sh r_rloo rloo_trainer__run_qwen3_8b_fsdp.sh; adv_check.py rloo", "valid; rc 0; (r-mean)*n/(n-1) matches core_algos.py:588", "clean", ""),
("remax", "VMODE=check ./rs.sh chk_remax remax_trainer__run_qwen3_8b_fsdp.sh; ./rs.sh r_remax remax_trainer__run_qwen3_8b_fsdp.sh", "check: `== result: valid`; ppo loads, validates, then `verlpp: error: adv_estimator remax: reward_baselines is required but was not given`, rc 1, no checkpoint", "crash",
 "README/docs/algo.md list remax as implemented and check passes it, but the trainer never computes reward_baselines: verl's ray_trainer.py (REMAX branch, gen_baseline_output ~line 1530) generates a greedy baseline per prompt and scores it. Both verl remax examples die at step 1."),
("adv_remax", "./case.sh adv_remax grpo_trainer__run_qwen3_8b_fsdp.sh algorithm.adv_estimator=remax", "same error after validation, rc 1", "crash", "same as remax"),
("remax_sync_1r", "check ./rs.sh chk_remax_sync remax_trainer__run_qwen2.5_math_7b_sync_fsdp.sh", "refused: ulysses size 2 does not divide world 1, with fix", "clean", ""),
("remax_sync_2r", "NPROC=2 ./rs.sh remax_sync_2r remax_trainer__run_qwen2.5_math_7b_sync_fsdp.sh", "both ranks: reward_baselines is required but was not given; launcher stops", "crash", "same as remax"),
("sapo_as_is", "./rs.sh r_sapo sapo_trainer__run_qwen3_8b_fsdp.sh", "refused: `policy_loss.tau_pos: verlpp does not implement this setting: a number 1.000000 would have no effect (verl's default: absent)` (+ tau_neg)", "unclear",
 "verl reads tau from actor.tau_pos/tau_neg (actor.yaml:46-49, core_algos.py:1653); +policy_loss.tau_pos is no PolicyLossConfig field (actor.py:77-101) so verl would fail too, but the message should point at actor_rollout_ref.actor.tau_pos instead of saying verlpp lacks the setting"),
("sapo_tau_default", "TAU_POS=1.0 TAU_NEG=1.05 ./rs.sh r_sapo_tau1.0 sapo_fixed.sh (script with actor.tau_pos/tau_neg)", "rc 0; step-1 pg_loss -0.036109 vs hand value -0.036100 (gate 2/tau at ratio 1, tau_pos 1 / tau_neg 1.05, GRPO advantages from the dump; run averages 2 epochs)", "clean", ""),
("sapo_tau5", "TAU_POS=5.0 TAU_NEG=5.0 ./rs.sh r_sapo_tau5 sapo_fixed.sh", "refused: `actor.tau_pos: verlpp does not implement this setting ... (verl's default: 1.0)`", "incompatible-with-verl", "verl's SAPO uses config.tau_pos/tau_neg (core_algos.py:1653-1673); verlpp hard-codes 1.0/1.05, so SAPO's only knobs cannot be set (refused clearly, not silent)"),
("prefix_grouper", "./rs.sh prefix_grouper prefix_grouper__run_qwen3_8b_fsdp.sh", "refused: use_prefix_grouper: verlpp does not implement this setting", "incompatible-with-verl", "clear refusal of a verl efficiency feature (shared-prefix forward); the math is unchanged, so verlpp could accept it as a no-op"),
("rollout_corr", "./rs.sh r_rollout_corr rollout_correction__run_qwen2_5_7b_fsdp.sh + sizes", "rc 0; RLOO advantages match; actor/rollout_corr/rollout_is_* metrics (is_mean 1.0, batch_norm_factor ~1)", "clean", ""),
("rollout_corr_mrs", "./rs.sh r_rollout_corr_mrs rollout_correction__run_qwen2_5_7b_fsdp_multi_rs.sh + sizes", "rc 0; rollout_rs token_k1,seq_max_k2 metrics logged", "clean", ""),
("ppo_gae", "check + ./rs.sh r_ppo ppo_trainer__run_qwen3_8b_fsdp.sh", "valid; rc 0; critic/vf_loss, vf_clipfrac, vpred_mean, values/*, vf_explained_var, critic/grad_norm, critic/lr", "clean", ""),
("gdpo_as_is", "RLLA_PATH=rw/libnamed.so ./rs.sh r_gdpo gdpo_trainer__run_qwen3_8b_fsdp.sh", "refused: `reward.reward_manager.name: unknown value 'gdpo'; valid: naive, dapo` fix naive", "incompatible-with-verl",
 "verl registers reward manager 'gdpo' (verl/experimental/reward_loop/reward_manager/gdpo.py:23), which scores exactly like naive (score + reward_extra_info); verl's only GDPO example fails in verlpp although verlpp implements adv_estimator=gdpo"),
("gdpo_naive", "... reward.reward_manager.name=naive; python3 gdpo_check.py r_gdpo_naive", "rc 0; advantages equal verl's GDPO (per-key GRPO, sum, masked_whiten; core_algos.py:361) recomputed from the dump", "clean", ""),
("gdpo_missing_key", "./case.sh gdpo_plainlib gdpo script + plain compute_score lib", "`error: algorithm.gdpo_reward_keys: the reward has no value 'accuracy_reward' (it gives: acc)` after model load", "clean", ""),
("adv_gae_nocritic", "./case.sh adv_gae grpo script algorithm.adv_estimator=gae", "`verlpp: error: ~/models/deepseek-llm-7b-chat: model config: no such file` (after loading actor and ref)", "unclear", "the error does not name critic.model.path (verl's default path for the critic); check said valid"),
("adv_grpo_vectorized", "./case.sh adv_grpo_vectorized grpo script", "rc 0, identical to grpo", "clean", ""),
("adv_grpo_passk", "./case.sh adv_grpo_passk grpo script", "rc 0; max/mean equal (top1-top2)/std on the best row (core_algos.py:472) recomputed", "clean", ""),
("adv_rloo_vectorized", "./case.sh adv_rloo_vectorized ...", "rc 0; matches rloo formula", "clean", ""),
("adv_opo", "./case.sh adv_opo ...", "rc 0; matches (equal lengths)", "clean", ""),
("adv_rfpp_baseline", "./case.sh adv_reinforce_plus_plus_baseline ...", "rc 0; matches (r-mean, whitened)", "clean", ""),
("adv_gpg", "./case.sh adv_gpg ...", "rc 0; matches", "clean", ""),
("adv_rfpp", "./case.sh adv_reinforce_plus_plus ...", "rc 0", "clean", ""),
("adv_otb_nosumpi", "./case.sh adv_optimal_token_baseline ...", "refused with fix calculate_sum_pi_squared=true", "clean", ""),
("adv_tir_otb_nosumpi", "./case.sh adv_tir_optimal_token_baseline ...", "refused with fix", "clean", ""),
("adv_upper", "algorithm.adv_estimator=GRPO", "unknown value 'GRPO'; valid list", "clean", ""),
("drgrpo", "algorithm.norm_adv_by_std_in_grpo=False loss_agg_mode=seq-mean-token-sum-norm", "rc 0; advantages = r - mean (matches)", "clean", ""),
]
for m in ["vanilla","gspo","sapo","gpg","clip_cov","kl_cov","geo_mean","cispo","dppo_tv","dppo_kl"]:
    rows.append(("loss_"+m, "./case.sh loss_%s grpo script policy_loss.loss_mode=%s ppo_epochs=2 lr=1e-3"%(m,m), "rc 0; finite pg_loss/grad_norm/ppo_kl (kl_cov logs |kl| as verl does)", "clean", ""))
rows += [
("loss_dro_nobeta", "loss_mode=dro", "refused with fix policy_loss.dro_beta=0.1", "clean", ""),
("loss_dro_beta", "loss_mode=dro dro_beta=0.1", "rc 0", "clean", ""),
("loss_bypass_nobypass", "loss_mode=bypass_mode", "refused with fix rollout_correction.bypass_mode=true", "clean", ""),
("loss_bypass", "loss_mode=bypass_mode rollout_correction.bypass_mode=true", "rc 0", "clean", ""),
("loss_upper", "loss_mode=GSPO", "unknown value with list", "clean", ""),
("klcov_default", "loss_mode=kl_cov (ratio 0.0002)", "rc 0", "clean", ""),
("klcov_ratio", "loss_mode=kl_cov kl_cov_ratio=0.2", "rc 0, values differ from the default ratio", "clean", ""),
("klcov_coef1", "./case.sh klcov_coef1 grpo script loss_mode=kl_cov policy_loss.ppo_kl_coef=1", "refused: `ppo_kl_coef: verlpp does not implement this setting: an integer 1 would have no effect (verl's default: 0.1)`", "incompatible-with-verl",
 "verl's kl_cov reads config.policy_loss.ppo_kl_coef (core_algos.py:1883); verlpp hard-codes 0.1 (policy_loss.h:89, never bound in sections.cpp), so the kl_cov recipes (verl-recipe entropy/7b_kl_cov.sh, 32b_kl_cov.sh: ppo_kl_coef=1) cannot run, and the message wrongly says the value would have no effect"),
("vanilla_ppo_kl_coef", "loss_mode=vanilla policy_loss.ppo_kl_coef=1", "refused (no effect with vanilla in verl either)", "clean", ""),
("clipcov_ratio", "loss_mode=clip_cov clip_cov_ratio=0.2 vs default", "rc 0; identical metrics (no token has cov in (1,5) on this model)", "clean", "not discriminating"),
("clipcov_lb", "./case.sh clipcov_lb_r0.2 grpo script loss_mode=clip_cov clip_cov_lb=-5", "refused: clip_cov_lb: verlpp does not implement this setting ... would have no effect", "incompatible-with-verl", "verl's clip_cov reads clip_cov_lb/ub (core_algos.py:1743ff); verlpp reads only clip_cov_ratio (sections.cpp:189); the message's 'no effect' is wrong"),
]
for k in ["kl","k1","abs","mse","k2","low_var_kl","k3","k3+","low_var_kl+","mse+"]:
    rows.append(("klt_"+k, "kl_loss_type=%s lr=1e-2"%k, "rc 0; finite actor/kl_loss (k1 negative, abs/mse/k3 positive; '+' keeps value)", "clean", ""))
rows += [
("klt_full", "./case.sh klt_full grpo script kl_loss_type=full", "check valid; run fails after validation: `kl_penalty='full': the full KL is not implemented (verl raises too)`", "unclear", "README says full is refused with an error; it is, but only at the first update, not by check/start-up (verl raises NotImplementedError at first use too, core_algos.py:2246)"),
("klt_typo", "kl_loss_type=lowvar_kl", "unknown value with list", "clean", ""),
]
for m in ["token-mean","seq-mean-token-sum","seq-mean-token-mean","seq-mean-token-sum-norm","token-sum"]:
    rows.append(("agg_"+m, "loss_agg_mode=%s lr=1e-2"%m, "rc 0, finite; token-sum/seq-sum scale kl_loss and grad_norm as expected", "clean", ""))
rows += [
("agg_typo", "loss_agg_mode=token_mean", "unknown value with list", "clean", ""),
("loss_scale_factor", "seq-mean-token-sum-norm loss_scale_factor=32", "grad_norm 0.2214 = half of 0.4428 with the default (16 = max_response_length)", "clean", ""),
("kl_adaptive", "use_kl_in_reward=True kl_ctrl.type=adaptive target_kl=0.1 horizon=100", "reward_kl_penalty_coeff 0.001 -> 0.000984 (hand: 0.001*(1-0.2*8/100))", "clean", ""),
("kl_ctrl_typo", "use_kl_in_reward=True kl_ctrl.type=adaptiv", "check valid; run: `unknown algorithm.kl_ctrl.type 'adaptiv'` after model load", "unclear", "minor: check could refuse it"),
("n1_grpo", "rollout.n=1", "rc 0; pg_loss = -mean(score) (adv = score, std 1 as verl)", "clean", ""),
("entropy_coeff", "entropy_coeff=0.01", "rc 0; loss = pg_loss - 0.01*entropy", "clean", ""),
("clip_c_low", "clip_ratio_c=0.5", "refused: must be > 1 with fix", "clean", ""),
("pfppo_pow", "ppo script use_pf_ppo=True reweight_method=pow weight_pow=2", "rc 0", "clean", ""),
("pfppo_bad", "reweight_method=power", "unknown value with list", "clean", ""),
("typo_key", "actor.kl_loss_coeff=0.001", "unknown key, closest kl_loss_coef", "clean", ""),
("bool_yes/no/1", "actor.use_kl_loss=yes|no|1", "`expected true or false, got a string 'yes'`", "clean", "stricter than OmegaConf (which maps yes/no/1); verl's raw-config reads would treat 'no' as truthy, so refusing is safer"),
("wrong_types", "rollout.n=two; data.train_batch_size=2.5", "expected an integer, names key", "clean", ""),
("double_plus", "+algorithm.gdpo_reward_keys=[a,b] +algorithm.gdpo_reward_keys=[c]; +trainer.zz=1 +trainer.zz=2", "list: second wins; scalar: refused -- as Hydra's is_add rule", "clean", ""),
("dapo_7b_as_is", "TAIL=... ./rr.sh dapo_7b recipe__dapo_test_dapo_7b_math.sh (verl-recipe)", "refused: +actor_rollout_ref.model.override_config.max_position_embeddings: verlpp does not implement this setting", "incompatible-with-verl", "every DAPO recipe script sets it; verl applies override_config to the HF config. Clear refusal; same class as earlier rounds' override_config.rope_scaling"),
("dapo_7b", "same with ~...override_config.max_position_embeddings and trainer.log_val_generations=0", "rc 0; dapo manager's overlong penalty applied (score = acc - 1 at length 32, buffer 8); lr 0 then 1e-7 under lr_warmup_steps=10 (verl logs lr before the scheduler step)", "clean", ""),
("entropy_no_config", "./rr.sh klcov_7b recipe__entropy_7b_kl_cov.sh (no --config-path)", "unknown key reward_model.overlong_buffer.enable, `+` hint", "clean", "verl's main_ppo would also lack these keys"),
("entropy_with_config", "CFGARGS='--config-path recipe_cfg/entropy --config-name entropy_trainer' ./rr.sh clipcov_7b recipe__entropy_7b_clip_cov.sh", "refused: reward_model.overlong_buffer.{enable,len,penalty_factor,log}: verlpp does not implement this setting ... would have no effect", "incompatible-with-verl",
 "entropy_trainer.yaml sets reward_model.reward_kwargs.overlong_buffer_cfg: ${reward_model.overlong_buffer}; check --print-config shows the values DO reach reward.reward_kwargs.overlong_buffer_cfg (enable true/len 8 when set), so the unread-key audit refuses keys that act through an interpolation"),
("entropy_sync_mode", "kl_cov recipe rollout.mode=sync", "`the sync rollout mode was removed from verl` with fix async", "clean", ""),
("sft_engine_fsdp", "./sft.sh sft_q05_engine sft__gsm8k__run_qwen2_5_0_5b_fsdp.sh 1", "`error: override 'engine=fsdp': 'engine' is a section of 22 keys, not a value (set one of its keys, e.g. engine.param_offload=...)`", "incompatible-with-verl",
 "engine=fsdp selects verl's config group (sft_trainer_engine.yaml defaults: engine@engine: fsdp); all 7 SFT example scripts at verl HEAD pass it; verlpp could accept the default choice; the message sends the user to unrelated keys"),
("sft_q05", "./sft.sh sft_q05 sft__gsm8k__run_qwen2_5_0_5b_fsdp_noengine.sh 1", "rc 0; train/loss 11.93 -> 11.93, val/loss, checkpoint", "clean", ""),
("sft_2r_no_ngpus", "SP_SIZE=2 ./sft.sh sft_mt_2r sft__multiturn__run_qwen2_5_0_5b_fsdp_noengine.sh 2", "`trainer.n_gpus_per_node × trainer.nnodes = 1 × 1 = 1 ranks, but this run has 2`", "incompatible-with-verl",
 "verl's torchrun SFT trainer (verl/trainer/sft_trainer.py) never reads trainer.n_gpus_per_node (only sft_trainer_ray.py:135 does), so `run_*.sh 8 /save` works in verl with the default 1; every multi-GPU SFT launch copied from verl fails here (clear error with fix)"),
("sft_2r", "... trainer.n_gpus_per_node=2", "rc 0; loss/grad_norm equal to 1 rank within 2e-9", "clean", ""),
("sft_old_fsdp_sft_trainer", "volcengine old examples/sft/gsm8k/run_qwen_05_sp2.sh", "unknown key data.prompt_dict_keys, `+` hint", "clean", "script targets the removed fsdp_sft_trainer"),
("kill_resume", "./kill_resume.sh (SIGKILL after global_step_2, rerun same command)", "`resumed from global step 2`, steps 3-6 saved, rc 0", "clean", ""),
("resume_path", "resume_mode=resume_path resume_from_path=.../global_step_2", "resumed from global step 2, step 3 saved", "clean", ""),
("resume_path_missing/null/typo", "resume_from_path=global_step_9 | unset | resume_mode=Auto", "clear one-line errors naming the key (after model load)", "clean", ""),
("val_only", "trainer.val_only=True", "validates (step 0 val-core), exits 0, no checkpoint", "clean", ""),
("rm_enable_path", "reward.reward_model.enable=True model_path=/tmp/bt13/model (also legacy reward_model.*)", "refused: model_path: verlpp does not implement this setting", "incompatible-with-verl", "documented (rule rewards only); message names model_path, not reward models"),
("rm_enable_only", "./case.sh rm_enable_only grpo script reward.reward_model.enable=True", "check valid, run trains 2 steps on the rule reward, nothing said", "accepted-bad",
 "verl with enable=True starts a reward-model server from model_path (reward_loop.py:127-128 copy_to_local(model_path)) and fails on null; verlpp silently ignores enable=True, so a user who meant a model reward gets the rule reward"),
("custom_py", "reward.custom_reward_function.path=x.py", "check valid; run: `... is a Python file; verlpp loads custom rewards from a shared library (.so)` after model load", "unclear", "minor: check could refuse it"),
("rm_dapo", "reward.reward_manager.name=dapo (no buffer)", "rc 0", "clean", ""),
("rm_prime/batch", "reward_manager.name=prime|batch", "unknown value; valid naive, dapo", "clean", "documented"),
]
from collections import Counter
c = Counter(r[3] for r in rows)
esc = lambda s: s.replace('|', '\\|')
with open('/tmp/bt13/report/report.md', 'w') as f:
    f.write("# Break-test bt13: verl example scripts and algorithm recipes on verlpp\n\n")
    f.write("Binary: /tmp/bt13/verlpp (copy). Machine: 2 CPU cores, trainer.device=cpu. Model: tiny random Qwen3 (hidden 16, 2 layers, Qwen3 tokenizer). Data: `verlpp data gsm8k` of /work/shared/data/gsm8k (parquet), SFT: 32-row messages JSONL built from it.\n\n")
    f.write("Scripts: verbatim copies of verl-project/verl@1dda039b9 (2026-08-22, the commit verlpp's reference digest names) `examples/*` and verl-project/verl-recipe@48ea0a7 `dapo/`, `entropy/` under /tmp/bt13/scripts, run through a `python3`/`torchrun` shim on PATH (/tmp/bt13/shim) that turns `python3 -m verl.trainer.main_ppo ARGS` into `verlpp ppo ARGS` (or `check`, or `launch --nproc-per-node N`). Tiny settings go in through the scripts' own env knobs (MODEL_PATH, TRAIN_BATCH_SIZE=2, PPO_MINI_BATCH_SIZE=2, ROLLOUT_N=2/4, MAX_RESPONSE_LENGTH=16/32, NGPUS_PER_NODE=1, ROLLOUT_TP=1, ...) and appended overrides (data files, train_max_samples 8, val_max_samples 2, trainer.device=cpu, logger [console,file], total_training_steps 2, default_local_dir); everything else is the script's. `REWARD=1` adds a custom C reward (rw/myreward.c: a hash of the response mod 7 / 6) so that advantages are non-zero, plus trainer.rollout_data_dir; adv_check.py / gdpo_check.py recompute verl's estimator (core_algos.py formulas) from that dump and compare critic/advantages/{max,min,mean}.\n\n")
    f.write("Helpers: rs.sh (one script), case.sh (rs.sh + record), sft.sh, rr.sh (recipe scripts without \"$@\", overrides via $TAIL), kill_resume.sh; copies in this folder. run_cases.sh re-runs every non-clean case (30 s); its output is run_cases.out.\n\n")
    f.write("Counts: " + ", ".join("%s %d" % (k, v) for k, v in sorted(c.items(), key=lambda x: -x[1])) + " (total %d)\n\n" % len(rows))
    f.write("| name | command | what happened | verdict | why (non-clean) |\n|---|---|---|---|---|\n")
    for r in rows:
        f.write("| %s |\n" % " | ".join(esc(x) for x in r))
print(c, len(rows))
