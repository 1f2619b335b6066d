#include "verlpp/config/sft_sections.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "verlpp/config/check.h"
#include "verlpp/config/custom_chat_template.h"
#include "verlpp/config/hf_model.h"
#include "verlpp/config/layout.h"
#include "verlpp/config/model_folder.h"
#include "verlpp/config/node_json.h"
#include "verlpp/config/section.h"
#include "verlpp/config/tokenizer_folder.h"
#include "verlpp/config/validate.h"
#include "verlpp/model/model_config.h"

namespace verlpp::config {
namespace {

SftDataConfig bind_sft_data(const Section& s) {
  SftDataConfig d;
  d.train_files = s.strings("train_files");
  d.val_files = s.strings("val_files");
  d.train_batch_size = s.integer("train_batch_size");
  d.micro_batch_size_per_gpu = s.integer("micro_batch_size_per_gpu");
  d.max_token_len_per_gpu = s.integer("max_token_len_per_gpu");
  d.use_dynamic_bsz = s.boolean("use_dynamic_bsz");
  d.train_max_samples = s.integer("train_max_samples");
  d.val_max_samples = s.integer("val_max_samples");
  d.messages_key = s.string("messages_key");
  d.prompt_key = s.opt_string("prompt_key");
  d.response_key = s.opt_string("response_key");
  if (s.has("prompt_dict_keys")) d.prompt_dict_keys = s.strings("prompt_dict_keys");
  if (s.has("response_dict_keys")) d.response_dict_keys = s.strings("response_dict_keys");
  d.tools_key = s.opt_string("tools_key");
  d.enable_thinking_key = s.opt_string("enable_thinking_key");
  d.enable_thinking_default = s.opt_boolean_or_none("enable_thinking_default");
  d.max_length = s.integer("max_length");
  d.truncation = s.string("truncation");
  d.pad_mode = s.string("pad_mode");
  d.ignore_input_ids_mismatch = s.boolean("ignore_input_ids_mismatch");
  d.apply_chat_template_kwargs = node_to_json(s.child("apply_chat_template_kwargs").node());
  return d;
}

SftTrainerConfig bind_sft_trainer(const Section& s) {
  SftTrainerConfig t;
  t.project_name = s.string("project_name");
  t.experiment_name = s.string("experiment_name");
  t.default_local_dir = s.string("default_local_dir");
  t.resume_mode = s.string("resume_mode");
  t.resume_from_path = s.opt_string("resume_from_path");
  t.device = s.string("device");
  t.logger = s.strings("logger");
  t.total_epochs = s.integer("total_epochs");
  t.total_training_steps = s.opt_integer("total_training_steps");
  t.save_freq = s.integer("save_freq");
  t.test_freq = s.integer("test_freq");
  t.seed = s.integer("seed");
  t.max_ckpt_to_keep = s.opt_integer("max_ckpt_to_keep");
  t.nnodes = s.integer("nnodes");
  t.n_gpus_per_node = s.integer("n_gpus_per_node");
  return t;
}

void check_positive(const std::string& key, std::int64_t value, Findings& out) {
  if (value < 1) {
    add_error(out, key, fmt::format("must be at least 1, got {}", value), key + "=1");
  }
}

void validate_data(const SftDataConfig& d, Findings& out) {
  if (d.train_files.empty()) {
    add_error(out, "data.train_files", "no training file given",
              "data.train_files=/path/to/train.jsonl");
  }
  check_positive("data.train_batch_size", d.train_batch_size, out);
  check_positive("data.micro_batch_size_per_gpu", d.micro_batch_size_per_gpu, out);
  check_positive("data.max_length", d.max_length, out);
  if (d.use_dynamic_bsz && d.max_token_len_per_gpu < d.max_length) {
    add_error(out, "data.max_token_len_per_gpu",
              fmt::format("{} is smaller than data.max_length={}: a sequence of max_length tokens "
                          "would fit in no micro-batch",
                          d.max_token_len_per_gpu, d.max_length),
              fmt::format("data.max_token_len_per_gpu={}", d.max_length));
  }
  if (d.truncation != "error" && d.truncation != "left" && d.truncation != "right") {
    add_error(out, "data.truncation",
              fmt::format("unknown value '{}'; valid: error, left, right", d.truncation),
              "data.truncation=error");
  }
  if (d.pad_mode != "no_padding") {
    add_error(out, "data.pad_mode",
              fmt::format("'{}' is not supported; verlpp packs sequences (no_padding)", d.pad_mode),
              "data.pad_mode=no_padding");
  }
  if (d.prompt_key.has_value() != d.response_key.has_value()) {
    add_error(out, "data.prompt_key/data.response_key",
              "single-turn rows need both keys (or neither, for data.messages_key rows)",
              "data.prompt_key=prompt data.response_key=response");
  }
  // Keys of the other row format are accepted by verl and do nothing; say so.
  const bool single_turn = d.prompt_key && d.response_key;
  if (!single_turn && (!d.prompt_dict_keys.empty() || !d.response_dict_keys.empty())) {
    add_notice(out, "data.prompt_dict_keys/data.response_dict_keys",
               "read only with data.prompt_key and data.response_key (single-turn rows); the "
               "data.messages_key rows ignore them");
  }
  if (single_turn && d.enable_thinking_default) {
    add_notice(out, "data.enable_thinking_default",
               "applies to data.messages_key rows only (as the tools and enable_thinking columns "
               "do); single-turn rows render without it (data.apply_chat_template_kwargs reaches "
               "them)");
  }
  if (!d.apply_chat_template_kwargs.is_object()) {
    add_error(out, "data.apply_chat_template_kwargs", "expected a map",
              "data.apply_chat_template_kwargs={}");
  }
}

void validate_optim(const OptimConfig& o, Findings& out) {
  check_optim("optim", o, "fsdp", out);
  if (o.betas.empty()) {
    add_error(out, "optim.betas", "expected two numbers in [0, 1), got []",
              "optim.betas=[0.9,0.999]");
  }
  const std::string scheduler = o.warmup_style.value_or(o.lr_scheduler_type);
  if (scheduler != "constant" && scheduler != "cosine") {
    add_error(out, "optim.lr_scheduler_type",
              fmt::format("unknown value '{}'; valid: constant, cosine", scheduler),
              "optim.lr_scheduler_type=cosine");
  }
}

void validate_trainer(const SftTrainerConfig& t, Findings& out) {
  check_positive("trainer.total_epochs", t.total_epochs, out);
  if (t.total_training_steps)
    check_positive("trainer.total_training_steps", *t.total_training_steps, out);
  if (t.resume_mode != "auto" && t.resume_mode != "disable" && t.resume_mode != "resume_path") {
    add_error(out, "trainer.resume_mode",
              fmt::format("unknown value '{}'; valid: auto, disable, resume_path", t.resume_mode),
              "trainer.resume_mode=auto");
  }
  if (t.resume_mode == "resume_path" && !t.resume_from_path) {
    add_error(out, "trainer.resume_from_path", "resume_mode=resume_path needs a checkpoint folder",
              "trainer.resume_from_path=checkpoints/.../global_step_N");
  }
  check_positive("trainer.nnodes", t.nnodes, out);
  check_positive("trainer.n_gpus_per_node", t.n_gpus_per_node, out);
  if (t.save_freq == 0) {
    add_error(out, "trainer.save_freq", "0 is not a frequency", "trainer.save_freq=-1");
  }
  if (t.test_freq == 0) {
    add_error(out, "trainer.test_freq", "0 is not a frequency", "trainer.test_freq=-1");
  }
}

// The run's ranks: trainer.nnodes × trainer.n_gpus_per_node.
std::int64_t ranks_of(const SftConfig& c) { return c.trainer.nnodes * c.trainer.n_gpus_per_node; }

// verl's SFT trainer divides data.train_batch_size over the data-parallel ranks (nnodes ×
// n_gpus_per_node, every rank a data-parallel rank) and asserts it splits evenly; the run would
// stop there on every rank.
void check_data_parallel_split(const SftConfig& c, Findings& out) {
  const std::int64_t ranks = ranks_of(c);
  if (c.data.train_batch_size < 1 || ranks < 1 || c.data.train_batch_size % ranks == 0) return;
  add_error(out, "data.train_batch_size",
            fmt::format("{} rows cannot be split evenly over {} data-parallel ranks "
                        "(trainer.nnodes {} × trainer.n_gpus_per_node {}{})",
                        c.data.train_batch_size, ranks, c.trainer.nnodes, c.trainer.n_gpus_per_node,
                        c.ulysses_sequence_parallel_size > 1
                            ? "; verlpp trains every rank data parallel whatever "
                              "engine.ulysses_sequence_parallel_size"
                            : ""),
            fmt::format("data.train_batch_size={}", (c.data.train_batch_size / ranks + 1) * ranks));
}

// Ulysses sequence parallelism as verl checks it (it divides the ranks); verlpp then trains
// sharded data parallel over every rank, as ppo does with verl's model-parallel layouts.
void check_ulysses(const SftConfig& c, Findings& out) {
  const std::string key = "engine.ulysses_sequence_parallel_size";
  const std::int64_t sp = c.ulysses_sequence_parallel_size;
  const std::int64_t ranks = ranks_of(c);
  if (sp < 1 || (ranks > 0 && ranks % sp != 0)) {
    add_error(out, key,
              fmt::format("{} does not divide the {} ranks (trainer.nnodes × "
                          "trainer.n_gpus_per_node)",
                          sp, ranks),
              key + "=1");
  } else if (sp > 1) {
    add_notice(out, key,
               fmt::format("verlpp does not split sequences; it trains sharded data parallel "
                           "over all {} ranks (the same step; activations are not divided by {})",
                           ranks, sp),
               key + "=1");
  }
}

}  // namespace

SftConfig bind_sft_config(const Node& root, KeyReads* reads) {
  const Section top(&root, "", reads);
  SftConfig c;
  c.data = bind_sft_data(top.child("data"));
  c.model = bind_model(top.child("model"));
  c.optim = bind_optim(top.child("optim"));
  const Section engine = top.child("engine");
  c.engine_strategy = engine.string("strategy");
  c.engine_dtype = engine.string("dtype");
  c.engine_sharding = bind_sharding(engine);
  c.ulysses_sequence_parallel_size = engine.integer("ulysses_sequence_parallel_size");
  c.trainer = bind_sft_trainer(top.child("trainer"));
  c.checkpoint = bind_checkpoint_contents(top);
  return c;
}

Findings validate_sft_config(const SftConfig& config) {
  Findings out;
  validate_data(config.data, out);
  validate_optim(config.optim, out);
  check_no_lora("model", config.model.lora.rank, out);
  validate_trainer(config.trainer, out);
  check_checkpoint_contents("checkpoint", config.checkpoint, out);
  check_data_parallel_split(config, out);
  check_ulysses(config, out);
  // As the trainer reads it (bt12: fsdp_size 0 was refused only at run time, by every rank).
  if (const auto problem = fsdp_size_problem(config.engine_sharding.fsdp_size, ranks_of(config))) {
    add_error(out, "engine.fsdp_size", problem->message,
              fmt::format("engine.fsdp_size={}", problem->fix));
  }
  if (config.engine_dtype != "bfloat16" && config.engine_dtype != "float16" &&
      config.engine_dtype != "float32") {
    add_error(
        out, "engine.dtype",
        fmt::format("unknown value '{}'; valid: bfloat16, float16, float32", config.engine_dtype),
        "engine.dtype=bfloat16");
  }
  return out;
}

SftCheckReport check_sft_config(const ConfigRequest& request) {
  return check_sft_config(request, compose_config(request));
}

SftCheckReport check_sft_config(const ConfigRequest& request, ComposedConfig composed) {
  SftCheckReport report;
  report.composed = std::move(composed);
  KeyReads reads;
  report.config = bind_sft_config(report.composed.root, &reads);
  report.findings = validate_sft_config(report.config);
  check_model_folder("model.path", report.config.model.path, "actor", report.findings);
  if (report.config.model.tokenizer_path) {
    check_model_folder("model.tokenizer_path", *report.config.model.tokenizer_path, "actor",
                       report.findings);
  }
  std::vector<VocabReader> readers;
  const auto model = check_hf_model(report.config.model, "model", report.findings).shape;
  if (model && model->vocab_size) readers.push_back({"the model", *model->vocab_size});
  check_tokenizer_folder(report.config.model.tokenizer_path ? "model.tokenizer_path" : "model.path",
                         report.config.model.tokenizer_path.value_or(report.config.model.path),
                         readers, report.findings);
  check_custom_chat_template("model.custom_chat_template", report.config.model.custom_chat_template,
                             report.findings);
  refuse_unread_keys(report.composed, reads, request, report.findings, report.ignored);
  return report;
}

bool is_sft_config(const ComposedConfig& composed) {
  return find_path(composed.root, "actor_rollout_ref") == nullptr;
}

}  // namespace verlpp::config
