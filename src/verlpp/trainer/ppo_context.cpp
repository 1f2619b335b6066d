#include "verlpp/trainer/ppo_context.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "verlpp/config/hf_model.h"
#include "verlpp/config/home_path.h"
#include "verlpp/config/layout.h"
#include "verlpp/core/error.h"
#include "verlpp/core/gpu_name.h"
#include "verlpp/data/prompt_encoding.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/model_config.h"
#include "verlpp/trainer/hf_model_loader.h"
#include "verlpp/trainer/placement.h"
#include "verlpp/trainer/ppo_settings.h"
#include "verlpp/trainer/sampling_settings.h"
#include "verlpp/trainer/stop_tokens.h"
#include "verlpp/trainer/train_checkpoint.h"

namespace verlpp::trainer {
namespace {

// The policy's model section (the actor, the ref and the rollout share its model).
constexpr const char* kActorModel = "actor_rollout_ref.model";

// transformers' initializer_range default, for the critic's fresh value head.
constexpr double kValueHeadStd = 0.02;
constexpr std::uint64_t kValueHeadSeed = 42;

// The image side of the dataset for the model at `model_path`: its vision tower's patch, frame and
// merge sizes (those of the processor that matches it), the rest Qwen3.5's processor settings.
data::ImageSettings image_settings(const config::DataConfig& d, const model::ModelConfig& config) {
  data::ImageSettings s;
  s.image_key = d.image_key;
  if (!config.vision) return s;
  const model::VisionConfig& v = *config.vision;
  s.processor.patch_size = static_cast<int>(v.patch_size);
  s.processor.temporal_patch_size = static_cast<int>(v.temporal_patch_size);
  s.processor.merge_size = static_cast<int>(v.spatial_merge_size);
  s.fetch = data::fetch_image_bounds(s.processor.patch_size, s.processor.merge_size);
  return s;
}

// A dataset with images needs a vision-language model whose image token is the tokenizer's.
void check_image_tokens(const data::RLHFDataset& dataset, const tokenizer::Tokenizer& tokenizer,
                        const model::ModelConfig& config, const std::string& model_path) {
  if (!dataset.has_images()) return;
  if (!config.vision) {
    throw Error(model_path +
                ": the data has images (data.image_key) but config.json has no vision_config (a "
                "Qwen3.5 vision-language checkpoint is needed)");
  }
  const auto id = tokenizer.token_to_id("<|image_pad|>");
  if (!id || *id != config.vision->image_token_id) {
    throw Error(fmt::format(
        "{}: config.json's image_token_id {} is not the tokenizer's <|image_pad|> ({}): the "
        "tokenizer and the model do not match",
        model_path, config.vision->image_token_id, id ? std::to_string(*id) : "absent"));
  }
}

std::unique_ptr<data::RLHFDataset> make_dataset(const config::DataConfig& d,
                                                const std::vector<std::string>& files,
                                                std::int64_t max_samples, bool shuffle,
                                                const tokenizer::Tokenizer& tokenizer,
                                                const model::ModelConfig& model_config,
                                                const std::string& model_path) {
  data::RLHFDatasetConfig c;
  c.files = files;
  c.prompt_key = d.prompt_key;
  c.max_prompt_length = d.max_prompt_length;
  c.filter_overlong_prompts = d.filter_overlong_prompts;
  c.truncation = data::parse_truncation(d.truncation);
  c.return_raw_chat = d.return_raw_chat;
  c.max_samples = max_samples;
  c.shuffle = shuffle;
  c.seed = d.seed.value_or(1);
  c.images = image_settings(d, model_config);
  c.apply_chat_template_kwargs = d.apply_chat_template_kwargs;
  auto dataset = std::make_unique<data::RLHFDataset>(c, tokenizer);
  check_image_tokens(*dataset, tokenizer, model_config, model_path);
  return dataset;
}

// `model_config`: the policy's config (config/hf_model.h), read once for the context's parts.
void load_data(PpoContext& ctx, const model::ModelConfig& model_config) {
  const config::DataConfig& d = ctx.config.data;
  if (d.train_files.empty()) throw Error("data.train_files: no training data given");
  const std::string model = config::model_weights_dir(ctx.config.model);
  ctx.train_data = make_dataset(d, d.train_files, d.train_max_samples, d.shuffle, *ctx.tokenizer,
                                model_config, model);
  if (!d.val_files.empty()) {
    ctx.val_data =
        make_dataset(d, d.val_files, d.val_max_samples, false, *ctx.tokenizer, model_config, model);
  }
  data::DataLoaderConfig loader;
  loader.batch_size = d.gen_batch_size.value_or(d.train_batch_size);
  loader.shuffle = d.shuffle;
  loader.seed = d.seed.value_or(1);
  ctx.loader = std::make_unique<data::StatefulDataLoader>(ctx.train_data->size(), loader);
  ctx.total_steps = total_training_steps(ctx.config, ctx.loader->batches_per_epoch());
  ctx.last_step =
      std::min(ctx.total_steps, ctx.loader->batches_per_epoch() * ctx.config.trainer.total_epochs);
}

// The FSDP keys of an engine. verlpp runs a Megatron engine sharded over all ranks, its
// param_offload and optimizer_offload applied to the shards.
config::ShardingConfig engine_sharding(const config::EngineConfig& engine) {
  if (engine.fsdp) return engine.fsdp->sharding;
  config::ShardingConfig sharding;
  if (engine.megatron) {
    sharding.param_offload = engine.megatron->param_offload;
    sharding.optimizer_offload = engine.megatron->optimizer_offload;
  }
  return sharding;
}

void load_models(PpoContext& ctx, const model::ModelConfig& model_config,
                 const dist::LaunchEnv& env) {
  const config::Config& c = ctx.config;
  const at::ScalarType dtype = compute_dtype(c, ctx.device);
  // Image data: the vision tower is loaded and trained with the text model (verl trains the whole
  // model; actor.freeze_vision_tower has no reader at verl's HEAD, multimodal.md §7.3). A
  // vision-language checkpoint keeps its tower on text-only data too: it gets no gradient, so the
  // optimizer leaves it as it is, and the saved checkpoint still has it (nothing lost).
  const bool vision = ctx.train_data->has_images() || (ctx.val_data && ctx.val_data->has_images());
  const bool keep_tower = model::has_vision_tower(model_config);
  const config::ShardingConfig actor_sharding = engine_sharding(c.actor.engine);
  engine::ActorSettings actor = actor_settings(c);
  actor.dp = ctx.world;
  actor.sharding =
      sharding_settings(actor_sharding, ctx.world.size(), "actor_rollout_ref.actor.fsdp_config");
  model::CausalLM policy =
      load_hf_model(model_config, c.model, kActorModel, dtype, ctx.device, vision || keep_tower,
                    weight_loading(actor.sharding.has_value()));
  model::apply_batch_invariant_setting(policy);
  policy.set_gradient_checkpointing(c.model.enable_gradient_checkpointing);
  ctx.shape = decoder_shape(policy.config());
  engine::AdamWConfig actor_optim = adamw_config(c.actor.optim, "actor_rollout_ref.actor.optim");
  actor_optim.optimizer_offload = actor_sharding.optimizer_offload;
  // The actor shards (and so reads) its deferred weights at once, before the teachers load: its
  // checkpoint is read in one stretch after its checks, as a whole load reads it (bt17: a file cut
  // short in between ended the run, then reading through a mapping, with SIGBUS).
  ctx.actor = std::make_unique<engine::Actor>(policy, actor, actor_optim, ctx.total_steps);
  if (c.distillation.enabled) {
    const model::VisionConfig* images = vision ? &*policy.config().vision : nullptr;
    ctx.teachers = std::make_unique<Teachers>(c, policy.config().vocab_size, images, ctx.device,
                                              env, ctx.world);
  }
  if (config::need_reference_policy(c)) {
    // Sharded as the actor is, with the ref's own fsdp_config (verl wraps the ref in FSDP too).
    engine::ScorerSettings ref{actor.forward, ref_micro_batching(c),
                               sharding_settings(engine_sharding(c.ref.engine), ctx.world.size(),
                                                 "actor_rollout_ref.ref.fsdp_config")};
    model::CausalLM reference = load_hf_model(model_config, c.model, kActorModel, dtype, ctx.device,
                                              vision, weight_loading(ref.sharding.has_value()));
    ctx.ref =
        std::make_unique<engine::Scorer>("ref", std::move(reference), std::move(ref), ctx.world);
  }
  if (config::need_critic(c)) {
    engine::CriticSettings critic = critic_settings(c);
    critic.dp = ctx.world;
    const config::ShardingConfig critic_sharding = engine_sharding(c.critic.engine);
    critic.sharding = sharding_settings(critic_sharding, ctx.world.size(), "critic.fsdp");
    model::CausalLM trunk = load_hf_model(
        config::load_hf_model_config(c.critic.model, "critic.model"), c.critic.model,
        "critic.model", dtype, ctx.device, vision, weight_loading(critic.sharding.has_value()));
    trunk.set_gradient_checkpointing(c.critic.model.enable_gradient_checkpointing);
    engine::ValueHead head = engine::init_value_head(trunk.config().hidden_size, kValueHeadStd,
                                                     kValueHeadSeed, dtype, ctx.device);
    engine::AdamWConfig critic_optim = adamw_config(c.critic.optim, "critic.optim");
    critic_optim.optimizer_offload = critic_sharding.optimizer_offload;
    ctx.critic =
        std::make_unique<engine::Critic>(trunk, head, critic, critic_optim, ctx.total_steps);
  }
}

void make_sampling(PpoContext& ctx, const model::ModelConfig& model_config) {
  const std::vector<std::int32_t> eos = stop_token_ids(
      ctx.tokenizer.get(), config::model_weights_dir(ctx.config.model), model_config);
  const std::int32_t pad = pad_token_id(ctx.tokenizer.get());
  ctx.train_sampling = sampling_settings(ctx.config.rollout, false, eos, pad);
  ctx.val_sampling = sampling_settings(ctx.config.rollout, true, eos, pad);
}

}  // namespace

PpoContext make_ppo_context(const config::CheckReport& report, const RunPlacement& placement) {
  PpoContext ctx;
  ctx.config = report.config;
  // One folder for the lock, the saves, the resume and the plot (bt16: `~/ck` locked $HOME/ck but
  // saved into ./~/ck); sft expands it the same way.
  ctx.config.trainer.default_local_dir = config::expand_home(ctx.config.trainer.default_local_dir);
  ctx.device = placement.device;
  ctx.world = placement.world;
  ctx.checkpoints = {
      "trainer.max_actor_ckpt_to_keep", ctx.config.trainer.max_actor_ckpt_to_keep, {}};
  if (ctx.device.is_cuda()) ctx.device_name = cuda_device_name(ctx.device.index());
  ctx.tokenizer_dir =
      config::expand_home(ctx.config.model.tokenizer_path.value_or(ctx.config.model.path));
  ctx.tokenizer = std::make_unique<tokenizer::Tokenizer>(
      load_tokenizer({ctx.tokenizer_dir, ctx.config.model.custom_chat_template,
                      "actor_rollout_ref.model.custom_chat_template"}));
  const model::ModelConfig model_config =
      config::load_hf_model_config(ctx.config.model, kActorModel);
  load_data(ctx, model_config);
  load_models(ctx, model_config, placement.env);
  ctx.kl_ctrl = algo::make_kl_controller(kl_control_config(ctx.config));
  ctx.reward = reward::reward_settings(report.composed.root);
  make_sampling(ctx, model_config);
  return ctx;
}

}  // namespace verlpp::trainer
