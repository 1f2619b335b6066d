# `verlpp check` on configs whose ppo outcome is known (compare with log/<ppo case>.out).
source /tmp/bt15/scripts/lib.sh
M=/tmp/bt15/models; DD=/tmp/bt15/data; TM=distillation.teacher_models
k() { echo "+$TM.$1.key=$2" "+$TM.$1.model_path=${3:-$TEA}" "+$TM.$1.num_replicas=${4:-1}"; }
export CMD=check
show() { tail -1 log/summary.txt; grep -E '✗|error|⚠|notice|teacher' log/$1.out | head -4 | cut -c1-250; }
c C_baseline >/dev/null; show C_baseline
c C_topk17 $L.loss_mode=forward_kl_topk $L.use_policy_gradient=false $L.topk=17 >/dev/null; show C_topk17
c C_vocab32 $T.model_path=$M/vocab32 >/dev/null; show C_vocab32
c C_trunc $T.model_path=$M/trunc >/dev/null; show C_trunc
c C_noweights $T.model_path=$M/noweights >/dev/null; show C_noweights
c C_nonexist $T.model_path=/tmp/bt15/nope >/dev/null; show C_nonexist
c C_afile $T.model_path=$M/afile.safetensors >/dev/null; show C_afile
c C_one_keyed_nomatch $(k other other/data) >/dev/null; show C_one_keyed_nomatch
c C_teacher_key_nofield distillation.n_gpus_per_node=2 distillation.teacher_key=nosuch $(k a A) $(k b B) >/dev/null; show C_teacher_key_nofield
c C_k1_nopg $L.use_policy_gradient=false >/dev/null; show C_k1_nopg
c C_two_keyed_pool1 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) $(k b B $M/q35) >/dev/null; show C_two_keyed_pool1
c C_key_empty "+$TM.a.key=" +$TM.a.model_path=$TEA +$TM.a.num_replicas=1 >/dev/null; show C_key_empty
c C_temp $T.inference.temperature=0.5 >/dev/null; show C_temp
c C_maxlen_short $T.inference.max_model_len=10 >/dev/null; show C_maxlen_short
