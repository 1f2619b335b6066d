# Keyed teachers.
source /tmp/bt15/scripts/lib.sh
M=/tmp/bt15/models; DD=/tmp/bt15/data
TM=distillation.teacher_models
k() { echo "+$TM.$1.key=$2" "+$TM.$1.model_path=${3:-$TEA}" "+$TM.$1.num_replicas=${4:-1}"; }
show() { tail -1 log/summary.txt; grep -vE '^step:|^verlpp: (plot|actor_rollout|engine)|note:' log/$1.out | grep -iE 'error|✗|what|abort|terminat|teacher|warn' | head -4 | cut -c1-300; m $1 'distillation/(loss)$' | tail -1; }
c K01_one_keyed_match $(k gsm verlpp/arithmetic) >/dev/null; show K01_one_keyed_match
c K02_one_keyed_nomatch $(k other other/data) >/dev/null; show K02_one_keyed_nomatch
c K03_two_keyed_pool1 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) $(k b B $M/q35) >/dev/null; show K03_two_keyed_pool1
c K04_two_keyed_pool2 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk distillation.n_gpus_per_node=2 $(k a A) $(k b B $M/q35) >/dev/null; show K04_two_keyed_pool2
c K05_dup_keys distillation.n_gpus_per_node=2 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) $(k b A $M/q35) >/dev/null; show K05_dup_keys
c K06_missing_field distillation.n_gpus_per_node=2 data.train_files=$DD/keyed_missing.jsonl distillation.teacher_key=tk $(k a A) $(k b B $M/q35) >/dev/null; show K06_missing_field
c K07_num_values distillation.n_gpus_per_node=2 data.train_files=$DD/keyed_num.jsonl distillation.teacher_key=tk $(k a 1) $(k b 2 $M/q35) >/dev/null; show K07_num_values
c K08_null_values distillation.n_gpus_per_node=2 data.train_files=$DD/keyed_null.jsonl distillation.teacher_key=tk $(k a A) $(k b B $M/q35) >/dev/null; show K08_null_values
c K09_list_values distillation.n_gpus_per_node=2 data.train_files=$DD/keyed_list.jsonl distillation.teacher_key=tk $(k a A) $(k b B $M/q35) >/dev/null; show K09_list_values
c K10_no_model_path distillation.n_gpus_per_node=2 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) +$TM.b.key=B +$TM.b.num_replicas=1 >/dev/null; show K10_no_model_path
c K11_no_key distillation.n_gpus_per_node=2 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) +$TM.b.model_path=$TEA +$TM.b.num_replicas=1 >/dev/null; show K11_no_key
c K12_no_num_replicas distillation.n_gpus_per_node=2 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) +$TM.b.key=B +$TM.b.model_path=$TEA >/dev/null; show K12_no_num_replicas
c K13_teacher_key_nofield distillation.n_gpus_per_node=2 distillation.teacher_key=nosuch $(k a A) $(k b B) >/dev/null; show K13_teacher_key_nofield
c K14_keyed_vocab32 distillation.n_gpus_per_node=2 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) $(k b B $M/vocab32) >/dev/null; show K14_keyed_vocab32
c K15_keyed_badpath distillation.n_gpus_per_node=2 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) $(k b B /tmp/bt15/nope) >/dev/null; show K15_keyed_badpath
c K16_teacher_model_plus_keyed $T.key=A distillation.n_gpus_per_node=1 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k b B $M/q35) >/dev/null; show K16_teacher_model_plus_keyed
c K17_val_unmatched trainer.val_before_train=true data.val_files=$DD/keyed.jsonl data.val_max_samples=8 distillation.n_gpus_per_node=1 data.train_files=$DD/keyed.jsonl distillation.teacher_key=tk $(k a A) >/dev/null; show K17_val_unmatched
c K18_num_replicas_neg distillation.n_gpus_per_node=1 $(k a verlpp/arithmetic $TEA -1) $(k b B $TEA 2) >/dev/null; show K18_num_replicas_neg
c K19_key_empty distillation.n_gpus_per_node=1 "+$TM.a.key=" +$TM.a.model_path=$TEA +$TM.a.num_replicas=1 >/dev/null; show K19_key_empty
