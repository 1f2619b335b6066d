#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "verlpp/config/check.h"
#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/demo/demo.h"
#include "verlpp/reward/arithmetic.h"
#include "verlpp/trainer/ppo_trainer.h"

namespace verlpp::demo {
namespace {

namespace fs = std::filesystem;

// The headline validation reward (val-core/verlpp/arithmetic/reward/mean@N) of a metrics map.
double val_reward(const std::optional<trainer::Metrics>& metrics, const char* which) {
  const std::string prefix = "val-core/" + std::string(reward::kArithmeticDataSource) + "/";
  if (metrics) {
    for (const auto& [key, value] : *metrics) {
      if (key.starts_with(prefix) && key.find("/mean@") != std::string::npos) return value;
    }
  }
  throw Error(fmt::format("the GRPO run reported no {} validation reward ({}...)", which, prefix));
}

}  // namespace

DemoResult run_demo(const fs::path& root, const DemoSettings& s) {
  const auto start = std::chrono::steady_clock::now();
  // The model is tiny: per-operation overhead dominates and a second thread only adds
  // synchronisation (and collapses when the cores are shared), so one thread unless the user says.
  ::setenv("OMP_NUM_THREADS", "1", /*overwrite=*/0);
  compat::set_cpu_threads(0);
  const DemoPaths paths(root);
  std::cerr << "verlpp demo: writing the task, tokenizer and model into " << paths.root.string()
            << "\n";
  prepare_demo(paths, s);
  std::cerr << "verlpp demo: SFT warm start (" << s.sft_steps << " steps)\n";
  const fs::path sft_model = run_demo_sft(paths, s);
  std::cerr << "verlpp demo: GRPO from " << sft_model.string() << " (" << s.grpo_steps
            << " steps)\n";
  config::ConfigRequest request;
  request.overrides = demo_grpo_overrides(paths, sft_model, s);
  const config::CheckReport report = config::check_config(request);
  if (!report.valid()) throw Error("demo GRPO config:\n" + config::format_report(report));
  const trainer::PpoRunSummary summary = trainer::run_ppo(report);
  DemoResult result;
  result.sft_val_reward = val_reward(summary.first_validation, "first");
  result.final_val_reward = val_reward(summary.last_validation, "last");
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format(
      "verlpp demo: validation reward after SFT {:.3f}, after GRPO {:.3f}, gain {:+.3f} "
      "({:.0f} s in all; files in {})\n",
      result.sft_val_reward, result.final_val_reward,
      result.final_val_reward - result.sft_val_reward, result.seconds, paths.root.string());
  return result;
}

}  // namespace verlpp::demo
