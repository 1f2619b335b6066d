#include "verlpp/config/layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "verlpp/config/home_path.h"

namespace verlpp::config {
namespace {

const std::string kWorld = "trainer.nnodes × trainer.n_gpus_per_node";

// The smallest number of nodes whose device count is a multiple of `unit`.
std::int64_t nodes_for(std::int64_t unit, std::int64_t per_node) {
  return std::lcm(unit, per_node) / per_node;
}

// The largest divisor d of `size` with world % (others × d) == 0: a smaller parallel size that
// fits.
std::int64_t largest_fitting(std::int64_t size, std::int64_t others, std::int64_t world) {
  for (std::int64_t d = size; d >= 1; --d) {
    if (size % d == 0 && world % (others * d) == 0) return d;
  }
  return 1;
}

void check_heads(const std::optional<model::ModelShape>& model, std::int64_t tp,
                 const std::string& key, bool replicate_kv, Findings& out) {
  if (!model || tp <= 1) return;
  if (model->num_attention_heads % tp != 0) {
    add_error(
        out, key,
        fmt::format("tensor parallel size {} does not divide the model's {} attention heads ({})",
                    tp, model->num_attention_heads, model->source),
        fmt::format("{}={}", key, std::gcd(tp, model->num_attention_heads)));
  }
  for (const auto& [heads, what] :
       {std::pair{model->linear_num_key_heads, "linear-attention key heads (linear_num_key_heads)"},
        {model->linear_num_value_heads, "linear-attention value heads (linear_num_value_heads)"}}) {
    if (model->linear_attention_layers > 0 && heads > 0 && heads % tp != 0) {
      add_error(out, key,
                fmt::format("tensor parallel size {} does not divide the model's {} {} ({})", tp,
                            heads, what, model->source),
                fmt::format("{}={}", key, std::gcd(tp, heads)));
    }
  }
  const std::int64_t kv = model->num_key_value_heads;
  const bool kv_ok = kv % tp == 0 || (replicate_kv && tp % kv == 0);
  if (!kv_ok) {
    add_error(
        out, key,
        fmt::format("tensor parallel size {} does not divide the model's {} KV heads{} ({})", tp,
                    kv, replicate_kv ? " (nor is it a multiple of them)" : "", model->source),
        fmt::format("{}={}", key, std::gcd(tp, kv)));
  }
}

// Megatron's pipeline split: even, or uneven with num_layers_in_first/last_pipeline_stage.
std::vector<std::int64_t> plan_stages(const MegatronConfig& m, const MegatronLayout& layout,
                                      const std::optional<model::ModelShape>& model,
                                      Findings& out) {
  const std::string key = layout.section + ".override_transformer_config";
  const auto& first = m.num_layers_in_first_pipeline_stage;
  const auto& last = m.num_layers_in_last_pipeline_stage;
  if (!model) {
    if (first || last) {
      add_notice(
          out, key,
          "uneven pipeline stages are set but the model's layer count is unknown; not checked",
          "make actor_rollout_ref.model.path point at a directory with config.json");
    }
    return {};
  }
  const std::int64_t layers = model->num_hidden_layers;
  const std::int64_t pp = layout.pp;
  if (!first && !last) {
    if (layers % pp != 0) {
      add_error(
          out, layout.section + ".pipeline_model_parallel_size",
          fmt::format("{} layers do not split evenly over pipeline_model_parallel_size {}", layers,
                      pp),
          fmt::format(
              "+{}.num_layers_in_first_pipeline_stage and _last_ so that the rest divides by the "
              "middle stages, or {}.pipeline_model_parallel_size={}",
              key, layout.section, std::gcd(layers, pp)));
      return {};
    }
    if (layout.vpp > 1 && (layers / pp) % layout.vpp != 0) {
      add_error(out, layout.section + ".virtual_pipeline_model_parallel_size",
                fmt::format("{} layers per pipeline stage do not split over {} virtual stages",
                            layers / pp, layout.vpp),
                fmt::format("{}.virtual_pipeline_model_parallel_size={}", layout.section,
                            std::gcd(layers / pp, layout.vpp)));
    }
    return std::vector<std::int64_t>(static_cast<std::size_t>(pp), layers / pp);
  }
  for (const auto& [value, name] : {std::pair{first, "first"}, std::pair{last, "last"}}) {
    if (value && *value <= 0) {
      add_error(out, fmt::format("{}.num_layers_in_{}_pipeline_stage", key, name),
                fmt::format("the {} pipeline stage needs at least one layer, got {}", name, *value),
                "remove it (an even split) or set it to a positive layer count");
      return {};
    }
  }
  const std::int64_t f = first.value_or(0), l = last.value_or(0);
  const std::int64_t middle = pp - (first ? 1 : 0) - (last ? 1 : 0);
  const std::int64_t left_over = layers - f - l;
  const std::string numbers = fmt::format(
      "{} layers − first stage {} − last stage {} = {} left-over layers over pp {} − {} = {} "
      "left-over stages",
      layers, f, l, left_over, pp, pp - middle, middle);
  if (middle < 0 || left_over < 0 || (middle == 0 && left_over != 0) ||
      (middle > 0 && (left_over % middle != 0 || left_over / middle == 0))) {
    std::string fix;
    if (middle > 0) {
      for (std::int64_t delta = 1; delta < layers && fix.empty(); ++delta) {
        for (std::int64_t candidate : {f + delta, f - delta}) {
          const std::int64_t rest = layers - candidate - l;
          if (first && candidate > 0 && rest > 0 && rest % middle == 0) {
            fix = fmt::format("++{}.num_layers_in_first_pipeline_stage={} ({} + {}×{} + {})", key,
                              candidate, candidate, middle, rest / middle, l);
            break;
          }
        }
      }
    }
    add_error(out, key, "left-over layers must be divisible by left-over stages: " + numbers,
              fix.empty()
                  ? "change num_layers_in_first/last_pipeline_stage so the rest divides evenly"
                  : fix);
    return {};
  }
  std::vector<std::int64_t> stages;
  if (first) stages.push_back(f);
  for (std::int64_t i = 0; i < middle; ++i) stages.push_back(left_over / middle);
  if (last) stages.push_back(l);
  return stages;
}

MegatronLayout plan_megatron(const MegatronConfig& m, const std::string& section,
                             std::int64_t world, std::int64_t per_node,
                             const std::optional<model::ModelShape>& model, Findings& out) {
  MegatronLayout layout;
  layout.section = section;
  for (const std::string& key : m.unapplied_moe_overrides) {
    add_error(out, section + ".override_transformer_config." + key,
              "changes the MoE router or its loss, which verlpp takes from the model's config.json "
              "(num_experts, num_experts_per_tok, norm_topk_prob) and does not apply",
              "remove it (or change the model's config.json)");
  }
  layout.tp = m.tensor_model_parallel_size;
  layout.pp = m.pipeline_model_parallel_size;
  layout.cp = m.context_parallel_size;
  layout.ep = m.expert_model_parallel_size;
  layout.etp = m.expert_tensor_parallel_size.value_or(layout.tp);
  layout.vpp = m.virtual_pipeline_model_parallel_size.value_or(1);
  for (const auto& [name, value] : {std::pair{"tensor_model_parallel_size", layout.tp},
                                    {"pipeline_model_parallel_size", layout.pp},
                                    {"context_parallel_size", layout.cp},
                                    {"expert_model_parallel_size", layout.ep},
                                    {"expert_tensor_parallel_size", layout.etp}}) {
    if (value < 1) {
      add_error(out, section + "." + name, fmt::format("must be at least 1, got {}", value),
                section + "." + name + "=1");
      return layout;
    }
  }
  const std::int64_t model_parallel = layout.tp * layout.pp * layout.cp;
  if (world % model_parallel != 0) {
    add_error(
        out, kWorld,
        fmt::format("world size {} is not divisible by tp {} × pp {} × cp {} = {} ({})", world,
                    layout.tp, layout.pp, layout.cp, model_parallel, section),
        fmt::format("trainer.nnodes={} (a multiple of {} devices), or {}.context_parallel_size={}",
                    nodes_for(model_parallel, per_node), model_parallel, section,
                    largest_fitting(layout.cp, layout.tp * layout.pp, world)));
  } else {
    layout.dp = world / model_parallel;
  }
  const std::int64_t expert_parallel = layout.etp * layout.ep * layout.pp;
  layout.folding_valid = world % expert_parallel == 0;
  if (layout.folding_valid) {
    layout.expert_dp = world / expert_parallel;
  } else {
    add_error(
        out, section + ".expert_model_parallel_size",
        fmt::format(
            "world size {} is not divisible by etp {} × ep {} × pp {} = {} (MoE parallel folding)",
            world, layout.etp, layout.ep, layout.pp, expert_parallel),
        fmt::format("{}.expert_model_parallel_size={}", section,
                    largest_fitting(layout.ep, layout.etp * layout.pp, world)));
  }
  layout.legacy_valid = layout.dp > 0 && layout.dp % layout.ep == 0;
  if (model && model->num_experts && layout.ep > 1 && *model->num_experts % layout.ep != 0) {
    add_error(out, section + ".expert_model_parallel_size",
              fmt::format("expert parallel size {} does not divide the model's {} experts",
                          layout.ep, *model->num_experts),
              fmt::format("{}.expert_model_parallel_size={}", section,
                          std::gcd(layout.ep, *model->num_experts)));
  }
  check_heads(model, layout.tp, section + ".tensor_model_parallel_size", false, out);
  if (m.dtype != "bfloat16" && m.dtype != "float16") {
    add_error(out, section + ".dtype", "must be bfloat16 or float16, got '" + m.dtype + "'",
              section + ".dtype=bfloat16");
  }
  if (m.dynamic_context_parallel && m.max_seqlen_per_dp_cp_rank.value_or(0) <= 0) {
    add_error(out, section + ".max_seqlen_per_dp_cp_rank",
              "dynamic_context_parallel needs a positive max_seqlen_per_dp_cp_rank",
              "+" + section + ".max_seqlen_per_dp_cp_rank=<tokens per DP×CP rank>");
  }
  if (layout.tp == 1 && m.sequence_parallel) {
    add_notice(
        out, section + ".sequence_parallel",
        "tensor_model_parallel_size is 1, so sequence_parallel is turned off (as verl does)");
  }
  layout.layers_per_stage = plan_stages(m, layout, model, out);
  return layout;
}

// Whether a Ulysses size `sp` divides the world; an error on `key` (with the gcd as the fix) when
// it does not.
bool ulysses_divides_world(const std::string& key, std::int64_t sp, std::int64_t world,
                           Findings& out) {
  if (sp >= 1 && world % sp == 0) return true;
  add_error(
      out, key,
      fmt::format("ulysses sequence parallel size {} does not divide the world size {}", sp, world),
      fmt::format("{}={}", key, std::gcd(std::max<std::int64_t>(sp, 1), world)));
  return false;
}

void check_fsdp_size(const std::string& section, std::int64_t fsdp_size, std::int64_t world,
                     Findings& out) {
  if (const auto problem = fsdp_size_problem(fsdp_size, world)) {
    add_error(out, section + ".fsdp_size", problem->message,
              fmt::format("{}.fsdp_size={}", section, problem->fix));
  }
}

// The FSDP engines beside the actor's, when the run has them: the reference policy's fsdp_size
// (sharded as the actor is) and the critic's fsdp_size and Ulysses size.
void check_other_fsdp_engines(const Config& config, std::int64_t world, Findings& out) {
  if (need_reference_policy(config) && config.ref.engine.fsdp) {
    check_fsdp_size("actor_rollout_ref.ref.fsdp_config", config.ref.engine.fsdp->sharding.fsdp_size,
                    world, out);
  }
  if (need_critic(config) && config.critic.engine.fsdp) {
    const FsdpConfig& f = *config.critic.engine.fsdp;
    check_fsdp_size("critic.fsdp", f.sharding.fsdp_size, world, out);
    // bt12: the critic's Ulysses size was not judged at all (3 on 2 ranks passed).
    const std::string key = "critic.ulysses_sequence_parallel_size";
    const std::int64_t sp =
        std::max(config.critic.ulysses_sequence_parallel_size, f.ulysses_sequence_parallel_size);
    if (ulysses_divides_world(key, sp, world, out) && sp > 1) {
      add_notice(out, key,
                 fmt::format("verlpp trains the critic as sharded data parallelism over all {} "
                             "ranks: no sequence parallelism yet",
                             world));
    }
  }
}

FsdpLayout plan_fsdp(const Config& config, std::int64_t world,
                     const std::optional<model::ModelShape>& model, Findings& out) {
  const FsdpConfig& f = *config.actor.engine.fsdp;
  const std::string section = "actor_rollout_ref.actor.fsdp_config";
  FsdpLayout layout;
  layout.strategy = config.actor.strategy;
  layout.ulysses_sp =
      std::max(f.ulysses_sequence_parallel_size, config.actor.ulysses_sequence_parallel_size);
  layout.fsdp_size = fsdp_group_size(f.fsdp_size, world);
  if (ulysses_divides_world(section + ".ulysses_sequence_parallel_size", layout.ulysses_sp, world,
                            out)) {
    layout.dp = world / layout.ulysses_sp;
  }
  check_fsdp_size(section, f.fsdp_size, world, out);
  if (model && layout.ulysses_sp > 1 && model->num_attention_heads % layout.ulysses_sp != 0) {
    add_error(out, section + ".ulysses_sequence_parallel_size",
              fmt::format("Ulysses size {} does not divide the model's {} attention heads",
                          layout.ulysses_sp, model->num_attention_heads),
              fmt::format("{}.ulysses_sequence_parallel_size={}", section,
                          std::gcd(layout.ulysses_sp, model->num_attention_heads)));
  }
  if (layout.strategy == "fsdp_turbo") {
    layout.turbo_fully_shard = f.turbo_fully_shard_parallel_size;
    layout.turbo_ep = f.turbo_expert_parallel_size;
    layout.turbo_ulysses = f.turbo_ulysses_parallel_size;
    // The expert mesh as Megatron's is checked: it splits the ranks and the experts evenly (a
    // break-test's ep 3 over 2 ranks and 4 experts was "valid").
    const std::string ep_key = section + ".turbo_config.distributed.expert_parallel_size";
    const std::int64_t ep = layout.turbo_ep;
    if (ep < 1 || world % ep != 0) {
      add_error(out, ep_key,
                fmt::format("expert parallel size {} does not divide the world size {}", ep, world),
                fmt::format("{}={}", ep_key, std::gcd(std::max<std::int64_t>(ep, 1), world)));
    } else if (model && model->num_experts && *model->num_experts % ep != 0) {
      add_error(out, ep_key,
                fmt::format("expert parallel size {} does not divide the model's {} experts", ep,
                            *model->num_experts),
                fmt::format("{}={}", ep_key, std::gcd(ep, *model->num_experts)));
    }
    if (layout.turbo_ulysses > 1 && layout.ulysses_sp > 1) {
      add_error(
          out, section + ".turbo_config.distributed.ulysses_parallel_size",
          fmt::format(
              "FSDP-Turbo context parallel ({}) cannot be combined with verl's Ulysses SP ({})",
              layout.turbo_ulysses, layout.ulysses_sp),
          section + ".ulysses_sequence_parallel_size=1");
    }
  }
  return layout;
}

// vLLM/SGLang-style inference replicas (rollout or a teacher) inside a pool of devices.
InferenceLayout plan_inference(const std::string& name, const std::string& section,
                               const std::string& engine, std::int64_t tp, std::int64_t dp,
                               std::int64_t pp, std::int64_t ep, std::int64_t pool,
                               const std::string& pool_key, Findings& out) {
  InferenceLayout layout{name, tp, dp, pp, ep, tp * dp * pp, pool, 0};
  if (layout.per_replica < 1) {
    add_error(out, section + ".tensor_model_parallel_size", "parallel sizes must be at least 1",
              section + ".tensor_model_parallel_size=1");
    return layout;
  }
  if (pool % layout.per_replica != 0) {
    add_error(out, section + ".tensor_model_parallel_size",
              fmt::format(
                  "{} devices ({}) are not divisible by tp {} × dp {} × pp {} = {} per {} replica",
                  pool, pool_key, tp, dp, pp, layout.per_replica, name),
              fmt::format("{}.tensor_model_parallel_size={}", section, std::gcd(tp, pool)));
  } else {
    layout.replicas = pool / layout.per_replica;
  }
  if (engine != "trtllm" && ep > 1 && ep != tp * dp) {
    add_error(out, section + ".expert_parallel_size",
              fmt::format("expert_parallel_size {} must equal tensor_model_parallel_size {} × "
                          "data_parallel_size {} = {}",
                          ep, tp, dp, tp * dp),
              fmt::format("{}.expert_parallel_size={}", section, tp * dp));
  }
  if (pp > 1 && (engine == "vllm" || engine == "sglang" || engine == "trtllm")) {
    add_error(out, section + ".pipeline_model_parallel_size",
              fmt::format("pipeline parallel rollout ({}) is not implemented for {}", pp, engine),
              section + ".pipeline_model_parallel_size=1");
  }
  return layout;
}

// The teacher's config.json against the student's: a vocabulary of another size is an error (the
// losses compare the two models token by token); an absent teacher is a notice, like an absent
// student (check judges a launch script for another machine), one that is there but unreadable an
// error.
void check_teacher_model(const std::string& section, const std::string& path,
                         const std::optional<model::ModelShape>& student, Findings& out) {
  const model::ModelShapeRead read = model::read_model_shape(path);
  const std::optional<model::ModelShape>& teacher = read.shape;
  if (read.absent) {
    add_notice(out, section + ".model_path", "teacher not checked: " + read.why_not,
               "`verlpp ppo` needs it there");
    return;
  }
  if (!teacher) {
    add_error(out, section + ".model_path", "teacher: " + read.why_not,
              "fix or replace the teacher's config.json");
    return;
  }
  if (student && student->vocab_size && teacher->vocab_size &&
      *student->vocab_size != *teacher->vocab_size) {
    add_error(out, section + ".model_path",
              fmt::format("the teacher's vocabulary has {} tokens but the student's has {}; the "
                          "models must share a tokenizer",
                          *teacher->vocab_size, *student->vocab_size),
              "a teacher of the student's tokenizer");
  }
}

void plan_teachers(const Config& config, Layout& layout, Findings& out) {
  const DistillationConfig& d = config.distillation;
  const std::int64_t pool = d.n_gpus_per_node * d.nnodes;
  if (d.n_gpus_per_node <= 0 || d.nnodes <= 0) {
    add_error(
        out, "distillation.n_gpus_per_node × distillation.nnodes",
        fmt::format("the teacher pool needs devices, got {} × {}", d.n_gpus_per_node, d.nnodes),
        "distillation.n_gpus_per_node=8 distillation.nnodes=1");
    return;
  }
  const DistillationLossConfig& loss = d.distillation_loss;
  const std::optional<std::int64_t> vocab =
      layout.model ? layout.model->vocab_size : std::optional<std::int64_t>();
  if (loss.loss_mode == "forward_kl_topk" && vocab && loss.topk > *vocab) {
    add_error(
        out, "distillation.distillation_loss.topk",
        fmt::format("{} must be between 1 and the vocabulary size {}", loss.topk, *vocab),
        fmt::format("distillation.distillation_loss.topk={}", std::min<std::int64_t>(32, *vocab)));
  }
  std::map<std::string, TeacherModelConfig> teachers = d.teacher_models;
  const bool multiple = teachers.size() > 1;
  if (multiple) teachers.erase("teacher_model");
  std::int64_t used = 0;
  std::set<std::string> keys;
  for (const auto& [name, t] : teachers) {
    const std::string section = "distillation.teacher_models." + name;
    const auto& inf = t.inference;
    InferenceLayout teacher =
        plan_inference(name, section + ".inference", inf.name, inf.tensor_model_parallel_size,
                       inf.data_parallel_size, inf.pipeline_model_parallel_size,
                       inf.expert_parallel_size, pool, "distillation pool", out);
    if (multiple) {
      teacher.replicas = t.num_replicas;
      used += t.num_replicas * teacher.per_replica;
      for (const char* field : {"key", "model_path"}) {
        const bool missing = std::string(field) == "key" ? !t.key : !t.model_path;
        if (missing)
          add_error(out, section + "." + field, "each of several teachers needs one",
                    "+" + section + "." + field + "=...");
      }
      if (t.num_replicas <= 0)
        add_error(out, section + ".num_replicas", "each of several teachers needs num_replicas > 0",
                  section + ".num_replicas=1");
      if (t.key && t.key->empty()) {
        add_error(out, section + ".key",
                  "must be a non-empty string (the value of "
                  "distillation.teacher_key that selects this teacher's rows)",
                  "+" + section + ".key=<data_source value>");
      }
      if (t.key && !keys.insert(*t.key).second)
        add_error(out, section + ".key", "teacher key '" + *t.key + "' is used twice",
                  "give each teacher its own key");
    } else {
      used = teacher.replicas * teacher.per_replica;
      if (!t.model_path)
        add_error(out, section + ".model_path", "the teacher model path is not set",
                  section + ".model_path=<teacher model>");
    }
    if (t.model_path) check_teacher_model(section, expand_home(*t.model_path), layout.model, out);
    const std::int64_t needed = inf.prompt_length + inf.response_length + 1;
    if (inf.max_model_len && needed > *inf.max_model_len) {
      add_error(
          out, section + ".inference.max_model_len",
          fmt::format(
              "the teacher scores prompt {} + response {} + 1 = {} tokens but max_model_len is {}",
              inf.prompt_length, inf.response_length, needed, *inf.max_model_len),
          fmt::format("{}.inference.max_model_len={}", section, needed));
    }
    layout.teachers.push_back(teacher);
  }
  if (multiple && used != pool) {
    add_error(
        out, "distillation.teacher_models",
        fmt::format("teachers use Σ num_replicas × per-replica devices = {} but the pool has {}",
                    used, pool),
        "make the replicas add up to distillation.n_gpus_per_node × distillation.nnodes");
  }
}

}  // namespace

bool need_reference_policy(const Config& config) {
  return config.algorithm.use_kl_in_reward || config.actor.use_kl_loss;
}

bool need_critic(const Config& config) {
  return config.critic.enable.value_or(config.algorithm.adv_estimator == "gae");
}

std::string format_stages(const std::vector<std::int64_t>& stages) {
  std::string out;
  for (std::size_t i = 0; i < stages.size();) {
    std::size_t j = i;
    while (j < stages.size() && stages[j] == stages[i]) ++j;
    const std::size_t run = j - i;
    out += (out.empty() ? "" : " + ") +
           (run == 1 ? std::to_string(stages[i]) : fmt::format("{}×{}", run, stages[i]));
    i = j;
  }
  return out;
}

std::optional<FsdpSizeProblem> fsdp_size_problem(std::int64_t fsdp_size, std::int64_t world) {
  if (fsdp_size == 0) {
    return FsdpSizeProblem{
        "fsdp_size 0 is not a size: verl builds its device mesh as (world / fsdp_size, "
        "fsdp_size) and fails; -1 shards over all ranks",
        -1};
  }
  if (fsdp_size < 0 || fsdp_size >= world || fsdp_size == 1) return std::nullopt;
  if (world % fsdp_size != 0) {
    return FsdpSizeProblem{fmt::format("fsdp_size {} does not divide the world size {} (HSDP mesh "
                                       "world/fsdp_size × fsdp_size)",
                                       fsdp_size, world),
                           std::gcd(fsdp_size, world)};
  }
  return std::nullopt;
}

std::int64_t fsdp_group_size(std::int64_t fsdp_size, std::int64_t world) {
  return fsdp_size < 0 || fsdp_size >= world ? world : fsdp_size;
}

Layout plan_layout(const Config& config, const std::optional<model::ModelShape>& model,
                   Findings& out) {
  Layout layout;
  layout.model = model;
  const TrainerConfig& t = config.trainer;
  layout.world = t.nnodes * t.n_gpus_per_node;
  if (t.nnodes < 1 || t.n_gpus_per_node < 1) {
    add_error(out, kWorld,
              fmt::format("need at least one device, got {} × {}", t.nnodes, t.n_gpus_per_node),
              "trainer.nnodes=1 trainer.n_gpus_per_node=1");
    return layout;
  }
  if (config.actor.engine.megatron) {
    layout.actor_megatron =
        plan_megatron(*config.actor.engine.megatron, "actor_rollout_ref.actor.megatron",
                      layout.world, t.n_gpus_per_node, model, out);
    layout.actor_dp = layout.actor_megatron->dp;
    if (need_reference_policy(config) && config.ref.engine.megatron) {
      Findings ref_findings;
      layout.ref_megatron =
          plan_megatron(*config.ref.engine.megatron, "actor_rollout_ref.ref.megatron", layout.world,
                        t.n_gpus_per_node, model, ref_findings);
      for (auto& f : ref_findings) {
        if (f.severity == Finding::Severity::error) out.push_back(std::move(f));
      }
    }
  } else if (config.actor.engine.fsdp) {
    layout.actor_fsdp = plan_fsdp(config, layout.world, model, out);
    layout.actor_dp = layout.actor_fsdp->dp;
  }
  check_other_fsdp_engines(config, layout.world, out);
  const RolloutConfig& r = config.rollout;
  layout.rollout =
      plan_inference("rollout", "actor_rollout_ref.rollout", r.name, r.tensor_model_parallel_size,
                     r.data_parallel_size, r.pipeline_model_parallel_size, r.expert_parallel_size,
                     layout.world, kWorld, out);
  check_heads(model, r.tensor_model_parallel_size,
              "actor_rollout_ref.rollout.tensor_model_parallel_size", true, out);
  if (r.moe_tensor_parallel_size > 1 && r.name != "trtllm") {
    add_error(out, "actor_rollout_ref.rollout.moe_tensor_parallel_size",
              fmt::format("moe_tensor_parallel_size {} is only supported with rollout.name=trtllm",
                          r.moe_tensor_parallel_size),
              "actor_rollout_ref.rollout.moe_tensor_parallel_size=1");
  }
  if (config.distillation.enabled) plan_teachers(config, layout, out);
  return layout;
}

}  // namespace verlpp::config
