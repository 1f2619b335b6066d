#include "verlpp/config/ignored.h"

#include <algorithm>
#include <array>

#include "verlpp/config/node.h"

namespace verlpp::config {
namespace {

constexpr std::array kPatterns = {
    "hydra",  // Hydra's own settings (hydra.run.dir, ...), not applied to the tree (compose.cpp)
    "ray_kwargs",
    "transfer_queue",
    "global_profiler",
    "profiler",
    "use_torch_compile",
    "engine_kwargs",
    "turbo_config.distributed.fsdp_plan",
    "turbo_config.distributed.ep_plan",
    "turbo_config.distributed.cp_plan",
    "turbo_config.memory",
    "turbo_config.module_patches",
    "override_transformer_config.use_flash_attn",
    "override_transformer_config.use_fused_rmsnorm",
    "override_transformer_config.use_fused_swiglu",
    "use_mbridge",
    "vanilla_mbridge",
    "use_liger",
    "trust_remote_code",
    "use_shm",
    "dataloader_num_workers",
    "filter_overlong_prompts_workers",
    "ray_wait_register_center_timeout",
    "agent.num_workers",
    "checkpoint_engine",
    // vLLM's own scheduling and loading: verlpp's engine captures powers-of-two batch sizes,
    // schedules first come first served and reads the actor's weights in place.
    "rollout.cudagraph_capture_sizes",
    "rollout.scheduling_policy",
    "rollout.load_format",
    "rollout.layered_summon",
    "rollout.disable_log_stats",
    "rollout.skip_tokenizer_init",
    // The distillation teacher is scored by verlpp's own forward pass, not an inference server:
    // these serve vLLM/SGLang only (verl ignores inference.temperature too, with a warning).
    "teacher_models.*.inference.gpu_memory_utilization",
    "teacher_models.*.inference.enforce_eager",
    "teacher_models.*.inference.cudagraph_capture_sizes",
    "teacher_models.*.inference.free_cache_engine",
    "teacher_models.*.inference.max_num_seqs",
    "teacher_models.*.inference.load_format",
    "teacher_models.*.inference.enable_chunked_prefill",
    "teacher_models.*.inference.enable_prefix_caching",
    "teacher_models.*.inference.disable_log_stats",
    "teacher_models.*.inference.skip_tokenizer_init",
    "teacher_models.*.inference.temperature",
    "teacher_models.*.inference.seed",
    "teacher_models.*.inference.limit_images",
};

// Whether `pattern`'s parts occur consecutively in `key`'s; a pattern part "*" matches any one
// part.
bool contains_run(const std::vector<std::string>& key, const std::vector<std::string>& pattern) {
  if (pattern.size() > key.size()) return false;
  const auto matches = [](const std::string& want, const std::string& part) {
    return want == "*" || part == want;
  };
  for (std::size_t start = 0; start + pattern.size() <= key.size(); ++start) {
    if (std::equal(pattern.begin(), pattern.end(), key.begin() + static_cast<long>(start), matches))
      return true;
  }
  return false;
}

// Whether `value` may stand where verl's default is `fallback` (ignored_key_mismatches' rule).
bool kind_fits(const Node& value, const Node& fallback) {
  using Kind = Node::Kind;
  if (value.is_null()) return true;
  switch (fallback.kind()) {
    case Kind::boolean:
      return value.kind() == Kind::boolean;
    case Kind::integer:
      return value.kind() == Kind::integer;
    case Kind::real:
      return value.kind() == Kind::real || value.kind() == Kind::integer;
    case Kind::list:
    case Kind::map:
      return value.kind() == fallback.kind();
    default:
      return true;
  }
}

}  // namespace

bool is_ignored_key(const std::string& key) {
  const auto parts = split_path(key);
  return std::any_of(kPatterns.begin(), kPatterns.end(),
                     [&](const char* pattern) { return contains_run(parts, split_path(pattern)); });
}

std::vector<std::string> ignored_keys(const std::vector<std::string>& user_keys) {
  std::vector<std::string> out;
  for (const auto& key : user_keys) {
    if (is_ignored_key(key) && std::find(out.begin(), out.end(), key) == out.end())
      out.push_back(key);
  }
  return out;
}

std::vector<IgnoredKeyMismatch> ignored_key_mismatches(const std::vector<std::string>& user_keys,
                                                       const Node& root, const Node& defaults) {
  std::vector<IgnoredKeyMismatch> out;
  for (const std::string& key : ignored_keys(user_keys)) {
    const Node* value = find_path(root, key);
    const Node* fallback = find_path(defaults, key);
    if (value == nullptr || fallback == nullptr) continue;
    if (!kind_fits(*value, *fallback)) {
      out.push_back(
          {key, "got " + value->describe() + " where verl's default is " + fallback->describe()});
    } else if (key.ends_with("workers") && value->kind() == Node::Kind::integer &&
               value->as_int() < 0) {
      out.push_back({key, "got " + value->describe() +
                              " where verl needs a worker count >= 0 (torch's DataLoader and "
                              "verl's pools refuse a negative one)"});
    }
  }
  return out;
}

}  // namespace verlpp::config
