// One on-policy distillation step at the seed script's shapes (verl PR #7605: Qwen3.5-2B student,
// Qwen3.5-35B-A3B teacher; verl.md §9.3), both models random-init on one GPU (the teacher
// colocated with the student, bf16), run by the components `verlpp ppo` runs it with: the rollout
// (rollout::generate_sequences), the teacher as an engine::Scorer (log-probs of the student's
// tokens, micro-batched by the teacher's max_num_batched_tokens), the actor's old_log_prob pass and
// its update with the seed's objective (loss_mode k1 through the PPO clip, use_task_rewards False,
// loss_max_clamp 10; gradient checkpointing, fp32 AdamW masters, lr 1e-6).
//
//   verlpp_distill_step_bench [--student qwen3.5-2b] [--teacher qwen3.5-35b-a3b] [--prompts 64]
//       [--prompt-length 256] [--response-length 1024] [--teacher-tokens 8192]
//       [--update-tokens 24576] [--loss-mode k1] [--topk 64] [--baseline teacher_hf.json]
//
// Prompts are random ids, responses response-length tokens (ignore_eos: random weights rarely
// stop). Prints one JSON line: seconds, tokens and peak CUDA memory allocated (GB, 10^9 bytes; the
// peak of each phase, and of the whole step) for gen, teacher, old_log_prob and update_actor, the
// teacher's tokens/s (prompt + response tokens scored per second) and, with --baseline (a
// bench/baselines/train_step_hf.py --mode logprob result of the teacher's shape), its ratio.
#include <ATen/ATen.h>
#include <torch/cuda.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "verlpp/core/device.h"
#include "verlpp/core/device_memory.h"
#include "verlpp/core/error.h"
#include "verlpp/engine/actor.h"
#include "verlpp/engine/scorer.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/presets.h"
#include "verlpp/rollout/rollout.h"

namespace {

struct Options {
  std::string student = "qwen3.5-2b", teacher = "qwen3.5-35b-a3b";
  std::int64_t prompts = 64, prompt_length = 256, response_length = 1024;
  std::int64_t teacher_tokens = 8192, update_tokens = 24576, topk = 64;
  std::string loss_mode = "k1", baseline;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) throw verlpp::Error("option " + key + " needs a value");
    const std::string value = argv[i + 1];
    if (key == "--student")
      o.student = value;
    else if (key == "--teacher")
      o.teacher = value;
    else if (key == "--prompts")
      o.prompts = std::stoll(value);
    else if (key == "--prompt-length")
      o.prompt_length = std::stoll(value);
    else if (key == "--response-length")
      o.response_length = std::stoll(value);
    else if (key == "--teacher-tokens")
      o.teacher_tokens = std::stoll(value);
    else if (key == "--update-tokens")
      o.update_tokens = std::stoll(value);
    else if (key == "--loss-mode")
      o.loss_mode = value;
    else if (key == "--topk")
      o.topk = std::stoll(value);
    else if (key == "--baseline")
      o.baseline = value;
    else
      throw verlpp::Error("unknown option " + key);
  }
  return o;
}

verlpp::data::Batch random_prompts(std::int64_t B, std::int64_t P, std::int64_t vocab) {
  at::Generator gen = at::detail::createCPUGenerator(7);
  verlpp::data::Batch batch;
  batch.set_tensor("input_ids", at::randint(0, vocab, {B, P}, gen, at::kLong));
  batch.set_tensor("attention_mask", at::ones({B, P}, at::kLong));
  batch.set_tensor("position_ids", at::arange(P, at::kLong).unsqueeze(0).repeat({B, 1}));
  return batch;
}

double peak_gb(const at::Device& device) {
  const auto peak = verlpp::device_memory_peak(device);
  return peak ? peak->max_allocated_gib * (1024.0 * 1024.0 * 1024.0) / 1e9 : 0.0;
}

// Runs `phase`, waiting for the device; records its seconds and peak memory under `name`.
void timed(const std::string& name, const at::Device& device, nlohmann::json& out,
           const std::function<void()>& phase) {
  verlpp::reset_device_memory_peak(device);
  const auto t0 = std::chrono::steady_clock::now();
  phase();
  torch::cuda::synchronize();
  out["seconds"][name] =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out["peak_memory_gb"][name] = peak_gb(device);
}

verlpp::engine::ActorSettings actor_settings(const Options& o) {
  verlpp::engine::ActorSettings s;
  s.log_prob_micro.max_tokens = o.update_tokens;
  s.update_micro.max_tokens = o.update_tokens;
  s.mini_batch_rows = o.prompts;  // ppo_mini_batch_size = train_batch_size, rollout.n 1
  verlpp::algo::DistillationLossConfig d;
  d.loss_mode = o.loss_mode;
  d.topk = o.topk;
  d.use_task_rewards = false;
  d.use_policy_gradient = o.loss_mode != "forward_kl_topk";
  d.loss_max_clamp = 10.0;
  d.log_prob_min_clamp = -10.0;
  s.distillation = d;
  return s;
}

int run(const Options& o) {
  if (!verlpp::cuda_available()) throw verlpp::Error("this benchmark needs a CUDA device");
  const at::Device cuda(at::kCUDA, 0);
  const auto student_config = verlpp::model::preset_config(o.student);
  const auto teacher_config = verlpp::model::preset_config(o.teacher);
  verlpp::model::CausalLM student =
      verlpp::model::CausalLM::random_init(student_config, 1, 0.02, at::kBFloat16, cuda);
  student.set_gradient_checkpointing(true);
  verlpp::engine::AdamWConfig optim;
  verlpp::engine::Actor actor(student, actor_settings(o), optim, 10);
  verlpp::engine::ScorerSettings teacher_settings;
  teacher_settings.micro.max_tokens = o.teacher_tokens;
  const verlpp::engine::Scorer teacher(
      "teacher", verlpp::model::CausalLM::random_init(teacher_config, 2, 0.02, at::kBFloat16, cuda),
      teacher_settings);
  torch::cuda::synchronize();
  nlohmann::json out = {{"student", o.student},
                        {"teacher", o.teacher},
                        {"prompts", o.prompts},
                        {"prompt_length", o.prompt_length},
                        {"response_length", o.response_length},
                        {"loss_mode", o.loss_mode},
                        {"weights_peak_memory_gb", peak_gb(cuda)}};

  verlpp::rollout::SamplingParams params;
  params.ignore_eos = true;
  params.max_response_length = o.response_length;
  params.eos_token_ids = {static_cast<std::int32_t>(student_config.eos_token_id)};
  verlpp::data::Batch batch;
  const verlpp::data::Batch prompts =
      random_prompts(o.prompts, o.prompt_length, student_config.vocab_size);
  timed("gen", cuda, out,
        [&] { batch = verlpp::rollout::generate_sequences(actor.model(), prompts, params, 3); });
  verlpp::release_cached_device_memory(cuda);
  timed("teacher", cuda, out, [&] {
    if (o.loss_mode == "forward_kl_topk") {
      const verlpp::engine::ResponseTopk top = teacher.topk(batch, o.topk);
      batch.set_tensor("teacher_topk_ids", top.ids);
      batch.set_tensor("teacher_topk_log_probs", top.log_probs);
    } else {
      batch.set_tensor("teacher_log_prob", teacher.log_probs(batch));
    }
  });
  verlpp::release_cached_device_memory(cuda);
  timed("old_log_prob", cuda, out,
        [&] { batch.set_tensor("old_log_probs", actor.compute_log_prob(batch, false).log_probs); });
  batch.set_tensor("advantages", at::zeros_like(batch.tensor("old_log_probs")));
  nlohmann::json metrics;
  timed("update_actor", cuda, out, [&] {
    for (const auto& [k, v] : actor.update_policy(batch)) metrics[k] = v;
  });
  const double scored = batch.tensor("attention_mask").sum().item<double>();
  out["teacher_tokens"] = scored;
  out["teacher_tokens_per_s"] = scored / out["seconds"]["teacher"].get<double>();
  double step = 0, peak = 0;
  for (const auto& [name, s] : out["seconds"].items()) step += s.get<double>();
  for (const auto& [name, g] : out["peak_memory_gb"].items())
    peak = std::max(peak, g.get<double>());
  out["step_seconds"] = step;
  out["step_peak_memory_gb"] = peak;
  out["metrics"] = metrics;
  if (!o.baseline.empty()) {
    std::ifstream in(o.baseline);
    const nlohmann::json hf = nlohmann::json::parse(in);
    out["baseline_teacher_tokens_per_s"] = hf.at("tokens_per_s");
    out["teacher_ratio_vs_baseline"] =
        out["teacher_tokens_per_s"].get<double>() / hf.at("tokens_per_s").get<double>();
  }
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "verlpp_distill_step_bench: " << e.what() << "\n";
    return 1;
  }
}
