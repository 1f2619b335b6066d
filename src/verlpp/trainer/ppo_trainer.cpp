#include "verlpp/trainer/ppo_trainer.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include "verlpp/config/home_path.h"
#include "verlpp/config/layout.h"
#include "verlpp/core/host_memory.h"
#include "verlpp/core/log.h"
#include "verlpp/dist/collective_time.h"
#include "verlpp/trainer/checkpoint_dir.h"
#include "verlpp/trainer/checkpoint_dir_lock.h"
#include "verlpp/trainer/phase_timer.h"
#include "verlpp/trainer/plot.h"
#include "verlpp/trainer/ppo_checkpoint.h"
#include "verlpp/trainer/ppo_context.h"
#include "verlpp/trainer/ppo_step.h"
#include "verlpp/trainer/ppo_validation.h"
#include "verlpp/trainer/progress.h"
#include "verlpp/trainer/run_inputs.h"
#include "verlpp/trainer/signals.h"
#include "verlpp/trainer/step_metrics.h"

namespace verlpp::trainer {
namespace {

struct Loop {
  PpoContext& ctx;
  Tracking& tracking;
  PpoRunSummary& summary;
  std::vector<StepMetrics> history;
};

bool every(std::int64_t freq, std::int64_t step, bool last) {
  return freq > 0 && (last || step % freq == 0);
}

void record_validation(Loop& loop, const Metrics& metrics) {
  if (!loop.summary.first_validation) loop.summary.first_validation = metrics;
  loop.summary.last_validation = metrics;
}

// The step's validation, left unfinished when a stop is requested before or during it (a note
// says so; the step is logged without val-* metrics).
void validate_step(Loop& loop, std::int64_t step, const StopRequest& stop, PhaseTimer& timer,
                   Metrics& metrics) {
  const std::optional<Metrics> val =
      timer.time("testing", [&] { return validate(loop.ctx, step, stop); });
  if (!val) {
    log_note(fmt::format("validation of step {} left unfinished by a stop signal", step));
    return;
  }
  record_validation(loop, *val);
  metrics.insert(val->begin(), val->end());
}

// One step with its checkpoint and validation; returns its metrics (verl's order of §7.3).
Metrics run_one_step(Loop& loop, std::int64_t step, bool last, bool stopping,
                     const StopRequest& stop) {
  PpoContext& ctx = loop.ctx;
  const config::TrainerConfig& t = ctx.config.trainer;
  const auto start = std::chrono::steady_clock::now();
  const double collectives_before = dist::collective_seconds();
  PhaseTimer timer(ctx.device);
  const std::vector<std::int64_t> rows = ctx.loader->next();
  const std::int64_t epoch = ctx.loader->epoch();  // after next(): the epoch these rows are from
  StepOutput out = train_step(ctx, step, rows, timer);
  if (every(t.save_freq, step, last) || stopping) {
    const auto folder =
        timer.time("save_checkpoint", [&] { return save_ppo_checkpoint(ctx, step); });
    log_note("saved checkpoint " + folder.string());
  }
  if (ctx.val_data && every(t.test_freq, step, last)) {
    validate_step(loop, step, stop, timer, out.metrics);
  }
  timer.set("step",
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  // Within the phases above: the time this rank's collectives took (dist/collective_time.h).
  if (ctx.world.size() > 1) {
    timer.set("collectives", dist::collective_seconds() - collectives_before);
  }
  Metrics& m = out.metrics;
  m["training/global_step"] = static_cast<double>(step);
  m["training/epoch"] = static_cast<double>(epoch);
  for (const Metrics& part :
       {compute_data_metrics(out.batch), compute_timing_metrics(out.batch, timer.seconds()),
        compute_throughput_metrics(out.batch, timer.seconds(), ctx.world.size()),
        compute_num_turns_metrics("training")}) {
    m.insert(part.begin(), part.end());
  }
  return m;
}

void write_plot(const Loop& loop) {
  if (loop.history.empty() || !loop.ctx.world.is_main()) return;
  const auto path =
      std::filesystem::path(loop.ctx.config.trainer.default_local_dir) / "training_curves.png";
  std::filesystem::create_directories(path.parent_path());
  if (write_metric_plot(path, loop.history, default_plot_panels())) {
    log_note("plot written to " + path.string());
  } else {
    log_note("this build has no cairo; no plot written");
  }
}

void train(Loop& loop, std::int64_t start_step, const StopRequest& stop) {
  PpoContext& ctx = loop.ctx;
  ProgressBar bar(start_step + 1, ctx.last_step);
  for (std::int64_t step = start_step + 1; step <= ctx.last_step; ++step) {
    const bool last = step == ctx.last_step;
    const int signal_before = stop.agreed_signal(ctx.world);
    const Metrics metrics = run_one_step(loop, step, last, signal_before != 0, stop);
    loop.tracking.log(metrics, step);
    loop.history.push_back({step, metrics});
    loop.summary.last_step = step;
    bar.step_done(step);
    const int signal = signal_before != 0 ? signal_before : stop.agreed_signal(ctx.world);
    if (signal != 0) {
      if (signal_before == 0 && !every(ctx.config.trainer.save_freq, step, last)) {
        save_ppo_checkpoint(ctx, step);
      }
      loop.summary.stop_signal = signal;
      log_note(fmt::format("stopped by signal {} after step {} (checkpoint saved); exit status {}",
                           signal, step, stopped_exit_code(signal)));
      return;
    }
  }
}

// The files the run read stay where they are: none may sit in a checkpoint folder of
// default_local_dir that the run's saves would replace (models, tokenizer, configs, data files).
void protect_inputs(const config::Config& c, std::int64_t start, std::int64_t last) {
  std::vector<RunInput> inputs = model_inputs("actor_rollout_ref.model", c.model);
  const auto append = [&](std::vector<RunInput> more) {
    inputs.insert(inputs.end(), more.begin(), more.end());
  };
  if (config::need_critic(c)) append(model_inputs("critic.model", c.critic.model));
  if (c.distillation.enabled) {
    for (const auto& [name, teacher] : c.distillation.teacher_models) {
      if (teacher.model_path) {
        inputs.push_back({"distillation.teacher_models." + name + ".model_path",
                          config::expand_home(*teacher.model_path)});
      }
    }
  }
  append(data_inputs(c.data.train_files, c.data.val_files));
  refuse_inputs_in_replaceable_checkpoints(c.trainer.default_local_dir, start, last, inputs);
}

}  // namespace

PpoRunSummary run_ppo(const config::CheckReport& report) {
  const config::Config& c = report.config;
  require_batch_memory(
      static_cast<double>(c.data.train_batch_size) * static_cast<double>(c.rollout.n),
      c.data.max_prompt_length + c.data.max_response_length,
      fmt::format("data.train_batch_size {} × actor_rollout_ref.rollout.n {}",
                  c.data.train_batch_size, c.rollout.n));
  const RunPlacement placement = place_run(c.trainer.device, c.trainer.n_gpus_per_node,
                                           c.trainer.nnodes, std::chrono::seconds(c.nccl_timeout));
  const CheckpointDirLock lock(config::expand_home(c.trainer.default_local_dir), placement.world);
  PpoContext ctx = make_ppo_context(report, placement);
  const config::TrainerConfig& t = ctx.config.trainer;
  Tracking tracking(t.project_name, t.experiment_name, t.logger);
  PpoRunSummary summary;
  Loop loop{ctx, tracking, summary, {}};
  const std::int64_t start = resume_ppo_checkpoint(ctx).value_or(0);
  protect_inputs(ctx.config, start, ctx.last_step);
  summary.last_step = start;
  if (start > 0) log_note("resumed from global step " + std::to_string(start));
  // verl's fit: val_only returns after the validation before training, and only there.
  if (ctx.val_data && t.val_before_train) {
    const Metrics val = validate(ctx, start);
    record_validation(loop, val);
    tracking.log(val, start);
    if (t.val_only) return summary;
  }
  // The handlers stay through the end plot: a signal there lets its temporary file become the plot
  // (or go) before the run stops with the signal's exit status.
  const StopRequest stop;
  train(loop, start, stop);
  write_plot(loop);
  if (summary.stop_signal == 0 && stop.signal() != 0) {
    summary.stop_signal = stop.signal();
    log_note(fmt::format("signal {} came after the last step; exit status {}", stop.signal(),
                         stopped_exit_code(stop.signal())));
  }
  return summary;
}

}  // namespace verlpp::trainer
