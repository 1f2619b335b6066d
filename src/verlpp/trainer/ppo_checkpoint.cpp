#include "verlpp/trainer/ppo_checkpoint.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cstdio>
#include <mutex>
#include <string>

#include "verlpp/core/error.h"
#include "verlpp/trainer/checkpoint_dir.h"
#include "verlpp/trainer/train_checkpoint.h"

namespace verlpp::trainer {
namespace {

std::string hex_of(const at::Tensor& bytes) {
  const at::Tensor b = bytes.contiguous();
  const auto* p = b.data_ptr<std::uint8_t>();
  std::string out;
  char digits[3];
  for (std::int64_t i = 0; i < b.numel(); ++i) {
    std::snprintf(digits, sizeof(digits), "%02x", p[i]);
    out += digits;
  }
  return out;
}

at::Tensor bytes_of(const std::string& hex, const std::string& where) {
  if (hex.size() % 2 != 0) throw Error(where + ": 'rng' is not a hex string");
  at::Tensor out = at::empty({static_cast<std::int64_t>(hex.size() / 2)}, at::kByte);
  auto* p = out.data_ptr<std::uint8_t>();
  for (std::size_t i = 0; i < hex.size() / 2; ++i) {
    p[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}

at::Generator default_generator() { return at::detail::getDefaultCPUGenerator(); }

nlohmann::json trainer_state(const PpoContext& ctx, std::int64_t global_step) {
  at::Generator gen = default_generator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return {{"global_step", global_step},
          {"dataloader", ctx.loader->state().to_json()},
          {"kl_coef", ctx.kl_ctrl->value()},
          {"rng", hex_of(gen.get_state())}};
}

void restore_trainer_state(PpoContext& ctx, const std::filesystem::path& folder) {
  const nlohmann::json state = read_trainer_state(folder);
  const std::string where = (folder / "trainer_state.json").string();
  try {
    ctx.loader->load_state(data::DataLoaderState::from_json(state.at("dataloader")));
    ctx.kl_ctrl->set_value(state.at("kl_coef").get<double>());
    at::Generator gen = default_generator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(bytes_of(state.at("rng").get<std::string>(), where));
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": " + e.what());
  } catch (const c10::Error& e) {
    throw Error(where + ": 'rng' is not a CPU generator state");
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
}

}  // namespace

namespace {

namespace fs = std::filesystem;

void write_checkpoint(PpoContext& ctx, std::int64_t global_step, const fs::path& folder) {
  save_model_state(folder / "actor", ctx.actor->model(), ctx.actor->optimizer(),
                   {ctx.tokenizer_dir, ctx.config.model.custom_chat_template}, ctx.world,
                   ctx.actor->sharded());
  if (ctx.critic) {
    engine::Critic& critic = *ctx.critic;
    save_model_state(folder / "critic", critic.trunk(), critic.optimizer(), {}, ctx.world,
                     critic.sharded(), [&] { critic.save_head(folder / "critic"); });
  }
  if (ctx.world.is_main()) write_trainer_state(folder, trainer_state(ctx, global_step));
}

}  // namespace

std::filesystem::path save_ppo_checkpoint(PpoContext& ctx, std::int64_t global_step) {
  const config::TrainerConfig& t = ctx.config.trainer;
  return write_checkpoint_on_ranks(
      ctx.world, t.default_local_dir, global_step, ctx.checkpoints,
      [&](const fs::path& folder) { write_checkpoint(ctx, global_step, folder); });
}

std::optional<std::int64_t> resume_ppo_checkpoint(PpoContext& ctx) {
  const config::TrainerConfig& t = ctx.config.trainer;
  if (ctx.world.is_main()) recover_checkpoint_dir(t.default_local_dir);
  ctx.world.barrier();
  const std::optional<ResumePoint> point =
      resolve_resume(t.resume_mode, t.default_local_dir, t.resume_from_path);
  if (!point) return std::nullopt;
  load_model_state(point->folder / "actor", ctx.actor->model(), ctx.actor->optimizer(),
                   ctx.actor->sharded() != nullptr);
  if (ctx.critic) {
    const bool sharded = ctx.critic->sharded() != nullptr;
    load_model_state(point->folder / "critic", ctx.critic->trunk(), ctx.critic->optimizer(),
                     sharded);
    if (!sharded) ctx.critic->load_head(point->folder / "critic");
  }
  restore_trainer_state(ctx, point->folder);
  return point->global_step;
}

}  // namespace verlpp::trainer
