#include "verlpp/trainer/sft_trainer.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/config/hf_model.h"
#include "verlpp/config/home_path.h"
#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/core/gpu_name.h"
#include "verlpp/core/log.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/data/dataloader.h"
#include "verlpp/data/sft_dataset.h"
#include "verlpp/engine/micro_batches.h"
#include "verlpp/engine/optimizer.h"
#include "verlpp/engine/training_state.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/model_config.h"
#include "verlpp/tokenizer/tokenizer.h"
#include "verlpp/trainer/adamw_settings.h"
#include "verlpp/trainer/checkpoint_dir.h"
#include "verlpp/trainer/checkpoint_dir_lock.h"
#include "verlpp/trainer/data_parallel.h"
#include "verlpp/trainer/flops.h"
#include "verlpp/trainer/hf_model_loader.h"
#include "verlpp/trainer/placement.h"
#include "verlpp/trainer/progress.h"
#include "verlpp/trainer/run_inputs.h"
#include "verlpp/trainer/sft_loss.h"
#include "verlpp/trainer/signals.h"
#include "verlpp/trainer/tracking.h"
#include "verlpp/trainer/train_checkpoint.h"

namespace verlpp::trainer {
namespace {

namespace fs = std::filesystem;
using Batch = std::vector<const data::SftExample*>;

std::vector<std::string> expand_all(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& path : paths) out.push_back(config::expand_home(path));
  return out;
}

data::SftDatasetConfig dataset_config(const config::SftDataConfig& d,
                                      const std::vector<std::string>& files,
                                      std::int64_t max_samples) {
  data::SftDatasetConfig c;
  c.files = expand_all(files);
  c.messages_key = d.messages_key;
  c.prompt_key = d.prompt_key;
  c.response_key = d.response_key;
  c.prompt_dict_keys = d.prompt_dict_keys;
  c.response_dict_keys = d.response_dict_keys;
  c.tools_key = d.tools_key;
  c.enable_thinking_key = d.enable_thinking_key;
  c.enable_thinking_default = d.enable_thinking_default;
  c.max_length = d.max_length;
  c.truncation = d.truncation;
  c.max_samples = max_samples;
  c.ignore_input_ids_mismatch = d.ignore_input_ids_mismatch;
  c.apply_chat_template_kwargs = d.apply_chat_template_kwargs;
  return c;
}

// Rows without a token to learn are kept, as verl keeps them; the user hears of them once.
void warn_unlearnable(const data::SftDataset& dataset, const std::string& key) {
  if (dataset.unlearnable_rows() == 0) return;
  log_warning(fmt::format(
      "{}: {} of {} rows have no assistant/response token to learn (none in the row, or none "
      "left within data.max_length; the first: {}); they are kept and add nothing to the loss, "
      "as in verl",
      key, dataset.unlearnable_rows(), dataset.size(), dataset.first_unlearnable()));
}

// Each sequence's token count (prompt and response), verl's batch_seqlens.
std::vector<std::int64_t> sequence_lengths(const Batch& batch) {
  std::vector<std::int64_t> out;
  for (const auto* example : batch)
    out.push_back(static_cast<std::int64_t>(example->input_ids.size()));
  return out;
}

// Micro-batches of a step: fixed sequence counts, or verl's token-budget partition
// (use_dynamic_bsz; engine::micro_batch_indices, as many micro-batches on every rank of `dp`).
std::vector<Batch> micro_batches(const Batch& batch, const config::SftDataConfig& d,
                                 const dist::Communicator& dp) {
  engine::MicroBatching how;
  if (d.use_dynamic_bsz) {
    how.max_tokens = d.max_token_len_per_gpu;
  } else {
    how.rows = d.micro_batch_size_per_gpu;
  }
  std::vector<Batch> out;
  for (const auto& piece : engine::micro_batch_indices(sequence_lengths(batch), how, dp)) {
    Batch& micro = out.emplace_back();
    for (const std::int64_t row : piece) micro.push_back(batch[static_cast<std::size_t>(row)]);
  }
  return out;
}

std::int64_t count_learned(const Batch& batch) {
  std::int64_t n = 0;
  for (const auto* example : batch) n += learned_tokens(*example);
  return n;
}

// This rank's contiguous share of `rows` (rank_rows): a training batch must split evenly
// (`exact`), a validation set need not.
Batch rank_share(const Batch& rows, const dist::Communicator& dp, bool exact) {
  const auto n = static_cast<std::int64_t>(rows.size());
  if (exact) check_even_split(n, dp, "data.train_batch_size");
  const RowRange range = rank_rows(n, dp);
  return Batch(rows.begin() + range.begin, rows.begin() + range.end);
}

struct Run {
  const config::SftConfig& config;
  dist::Communicator world;
  at::Device device;
  std::string tokenizer_dir;
  tokenizer::Tokenizer tokenizer;
  model::CausalLM model;
  data::SftDataset train;
  std::optional<data::SftDataset> val;
  data::StatefulDataLoader loader;
  std::int64_t total_steps = 0;  // trainer.total_training_steps: the LR schedule's horizon
  std::int64_t last_step = 0;    // total_steps, or sooner when trainer.total_epochs end first
  engine::TrainingState state;
  CheckpointRotation checkpoints{"trainer.max_ckpt_to_keep", config.trainer.max_ckpt_to_keep, {}};

  engine::Optimizer& optimizer() { return *state.optimizer; }

  Batch take(const std::vector<std::int64_t>& indices) const {
    Batch batch;
    for (const auto index : indices) batch.push_back(&train.example(index));
    return batch;
  }

  // Accumulates this rank's share of the step's gradient (its contiguous slice of the batch, each
  // micro-batch's loss divided by the whole batch's learned tokens); returns the step's loss
  // (global token mean, summed over the ranks).
  double accumulate(const Batch& batch) {
    const auto tokens = static_cast<double>(count_learned(batch));
    double loss = 0;
    // Every rank runs as many passes (the sharded model's collectives): the ranks hold equal rows,
    // and token-budget counts are equalised over them.
    for (const Batch& piece : micro_batches(rank_share(batch, world, true), config.data, world)) {
      const PackedSft packed = pack_sft(piece, device);
      if (count_learned(piece) == 0) {
        // Nothing to learn; a sharded model still runs the pass (its collectives).
        if (!state.sharded) continue;
        (model.forward_packed(packed.input_ids, packed.position_ids, packed.cu_seqlens).sum() * 0)
            .backward();
      } else {
        const at::Tensor micro_loss = sft_micro_loss(model, packed, tokens);
        micro_loss.backward();
        loss += micro_loss.item<double>();
      }
      if (state.sharded) state.sharded->finish_backward();
    }
    return world.all_reduce(loss, dist::ReduceOp::sum);
  }

  // The ranks' shares of the validation set may differ in size: a sharded model is gathered whole
  // for it, so that no rank waits for another's per-layer collectives.
  // The loss over the validation rows; none when a rank received a stop signal during the pass.
  // Before each micro-batch the ranks agree on whether any of them was asked to stop (every rank
  // takes as many turns, its share's end padded with empty ones), so that a signal reaching one
  // rank stops them all at once (bt18 B2: the others finished their shares first).
  std::optional<double> validation_loss(const StopRequest& stop) const {
    c10::AutoGradMode no_grad(false);
    Batch all;
    for (std::int64_t i = 0; i < val->size(); ++i) all.push_back(&val->example(i));
    const auto tokens = static_cast<double>(count_learned(all));
    if (state.sharded) state.sharded->gather_all();
    const std::vector<Batch> micros =
        micro_batches(rank_share(all, world, false), config.data, dist::Communicator());
    const auto turns = static_cast<std::size_t>(
        world.all_reduce(static_cast<double>(micros.size()), dist::ReduceOp::max));
    double loss = 0;
    bool stopped = false;
    for (std::size_t i = 0; i < turns; ++i) {
      stopped = world.all_reduce(stop.requested() ? 1.0 : 0.0, dist::ReduceOp::max) > 0;
      if (stopped) break;
      if (i >= micros.size() || count_learned(micros[i]) == 0) continue;
      loss += sft_micro_loss(model, pack_sft(micros[i], device), tokens).item<double>();
    }
    if (state.sharded) state.sharded->reshard();
    if (stopped) return std::nullopt;
    return world.all_reduce(loss, dist::ReduceOp::sum);
  }

  fs::path save(std::int64_t step) {
    return write_checkpoint_on_ranks(
        world, config::expand_home(config.trainer.default_local_dir), step, checkpoints,
        [&](const fs::path& folder) {
          save_model_state(folder / "actor", model, optimizer(),
                           {tokenizer_dir, config.model.custom_chat_template}, world,
                           state.sharded.get());
          if (world.is_main()) {
            write_trainer_state(folder,
                                {{"global_step", step}, {"dataloader", loader.state().to_json()}});
          }
        });
  }

  std::int64_t resume() {
    if (world.is_main())
      recover_checkpoint_dir(config::expand_home(config.trainer.default_local_dir));
    world.barrier();
    const auto point = resolve_resume(config.trainer.resume_mode,
                                      config::expand_home(config.trainer.default_local_dir),
                                      config.trainer.resume_from_path);
    if (!point) return 0;
    load_model_state(point->folder / "actor", model, optimizer(), state.sharded != nullptr);
    const nlohmann::json state = read_trainer_state(point->folder);
    if (!state.contains("dataloader")) {
      throw Error((point->folder / "trainer_state.json").string() + ": no \"dataloader\" state");
    }
    loader.load_state(data::DataLoaderState::from_json(state["dataloader"]));
    log_note("sft: resumed from " + point->folder.string());
    return point->global_step;
  }
};

// verl's SFT trainer has no nccl_timeout key; collectives wait this long for the other ranks.
constexpr std::chrono::seconds kSftCollectiveTimeout{600};

}  // namespace

SftRunSummary run_sft(const config::SftConfig& config) {
  compat::set_cpu_threads(0);
  const RunPlacement placement = place_run(config.trainer.device, config.trainer.n_gpus_per_node,
                                           config.trainer.nnodes, kSftCollectiveTimeout);
  const CheckpointDirLock lock(config::expand_home(config.trainer.default_local_dir),
                               placement.world);
  const at::Device device = placement.device;
  const at::ScalarType dtype =
      trainer_compute_dtype(config.engine_dtype, "engine.dtype", device.is_cuda());
  const std::string model_path = config::expand_home(config.model.path);
  const std::string tokenizer_dir =
      config::expand_home(config.model.tokenizer_path.value_or(model_path));
  auto tok = load_tokenizer({tokenizer_dir, config.model.custom_chat_template});
  data::SftDataset train(
      dataset_config(config.data, config.data.train_files, config.data.train_max_samples), tok);
  warn_unlearnable(train, "data.train_files");
  data::DataLoaderConfig loader_config;
  loader_config.batch_size = config.data.train_batch_size;
  loader_config.seed = config.trainer.seed;
  data::StatefulDataLoader loader(train.size(), loader_config);
  std::optional<data::SftDataset> val;
  if (!config.data.val_files.empty()) {
    val.emplace(dataset_config(config.data, config.data.val_files, config.data.val_max_samples),
                tok);
    warn_unlearnable(*val, "data.val_files");
  }
  // The model last, just before its training state: a sharded model reads its deferred weights
  // there, so its checkpoint is read in one stretch after its checks, as a whole load reads it
  // (bt17: a file cut short while the validation data was tokenized in between ended the run, then
  // reading through a mapping, with SIGBUS).
  const model::ModelConfig model_config = config::load_hf_model_config(config.model, "model");
  const std::optional<engine::fsdp::FsdpSettings> sharding =
      sharding_settings(config.engine_sharding, placement.world.size(), "engine");
  Run run{
      config,
      placement.world,
      device,
      tokenizer_dir,
      std::move(tok),
      load_hf_model(model_config, config.model, "model", dtype, device,
                    model::has_vision_tower(model_config), weight_loading(sharding.has_value())),
      std::move(train),
      std::move(val),
      std::move(loader),
      0,
      0,
      {}};
  const std::int64_t epoch_steps = run.loader.batches_per_epoch() * config.trainer.total_epochs;
  run.total_steps = config.trainer.total_training_steps.value_or(epoch_steps);
  run.last_step = std::min(run.total_steps, epoch_steps);
  run.model.set_gradient_checkpointing(config.model.enable_gradient_checkpointing);
  model::apply_batch_invariant_setting(run.model);
  engine::AdamWConfig optim = adamw_config(config.optim, "optim");
  optim.optimizer_offload = config.engine_sharding.optimizer_offload;
  run.state = engine::make_training_state("sft", run.model, {}, {}, optim, run.total_steps,
                                          run.world, sharding);

  SftRunSummary summary;
  summary.last_step = run.resume();
  std::vector<RunInput> inputs = model_inputs("model", config.model);
  const std::vector<RunInput> data = data_inputs(config.data.train_files, config.data.val_files);
  inputs.insert(inputs.end(), data.begin(), data.end());
  refuse_inputs_in_replaceable_checkpoints(config::expand_home(config.trainer.default_local_dir),
                                           summary.last_step, run.last_step, inputs);
  Tracking tracking(config.trainer.project_name, config.trainer.experiment_name,
                    config.trainer.logger);
  ProgressBar progress(summary.last_step + 1, run.last_step);
  const DecoderShape shape = decoder_shape(run.model.config());
  const std::string device_name = run.device.is_cuda() ? cuda_device_name(run.device.index()) : "";
  double total_tokens = 0.0;  // since this process started, as verl counts
  const StopRequest stop;
  for (std::int64_t step = summary.last_step + 1; step <= run.last_step; ++step) {
    const auto start = std::chrono::steady_clock::now();
    const Batch batch = run.take(run.loader.next());
    Metrics metrics;
    metrics["train/lr"] = run.optimizer().lr();
    metrics["train/loss"] = run.accumulate(batch);
    metrics["train/grad_norm"] = run.optimizer().step().grad_norm;
    run.optimizer().zero_grad();
    run.optimizer().advance_lr();
    // verl's sft_trainer: the step's tokens (every sequence whole), their running sum in billions,
    // and MFU over the step's time.
    const std::vector<std::int64_t> seqlens = sequence_lengths(batch);
    const double tokens = std::accumulate(seqlens.begin(), seqlens.end(), 0.0);
    total_tokens += tokens;
    metrics["train/global_tokens"] = tokens;
    metrics["train/total_tokens(B)"] = total_tokens / 1e9;
    metrics["train/mfu"] =
        mfu(training_flops(shape, seqlens),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
            device_name, run.world.size());
    const bool last = step == run.last_step;
    const auto due = [&](std::int64_t freq) { return freq > 0 && (last || step % freq == 0); };
    if (run.val && (due(config.trainer.test_freq) || last)) {
      if (const std::optional<double> loss = run.validation_loss(stop)) {
        metrics["val/loss"] = *loss;
        summary.last_val_loss = *loss;
      } else {
        log_note(fmt::format("sft: validation of step {} left unfinished by a stop signal", step));
      }
    }
    const int signal = stop.agreed_signal(run.world);
    if (due(config.trainer.save_freq) || last || signal != 0) {
      summary.last_checkpoint = run.save(step);
    }
    tracking.log(metrics, step);
    progress.step_done(step);
    summary.last_step = step;
    summary.last_train_loss = metrics["train/loss"];
    if (signal != 0) {
      summary.stop_signal = signal;
      log_note(
          fmt::format("sft: stopped by signal {} after step {} (checkpoint saved)", signal, step));
      break;
    }
  }
  return summary;
}

}  // namespace verlpp::trainer
