#include "verlpp/config/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "verlpp/config/custom_chat_template.h"
#include "verlpp/config/hf_model.h"
#include "verlpp/config/home_path.h"
#include "verlpp/config/ignored.h"
#include "verlpp/config/layout.h"
#include "verlpp/config/model_folder.h"
#include "verlpp/config/tokenizer_folder.h"
#include "verlpp/config/unread_keys.h"
#include "verlpp/config/validate.h"
#include "verlpp/model/model_config.h"

namespace verlpp::config {
namespace {

// verl's model-parallel layouts are checked as verl would, but verlpp runs every engine as sharded
// data parallelism over all ranks: a notice (which `ppo` prints too) where the layout asks for
// more.
void note_sharded_layout(const Layout& l, Findings& out) {
  std::string key;
  if (l.actor_megatron) {
    const MegatronLayout& m = *l.actor_megatron;
    if (m.tp * m.pp * m.cp * m.ep * m.etp > 1) key = "actor_rollout_ref.actor.megatron";
  } else if (l.actor_fsdp) {
    const FsdpLayout& f = *l.actor_fsdp;
    if (f.ulysses_sp > 1 || f.turbo_ep > 1 || f.turbo_ulysses > 1) {
      key = "actor_rollout_ref.actor.fsdp_config";
    }
  }
  if (key.empty()) return;
  add_notice(out, key,
             fmt::format("verlpp trains this as sharded data parallelism (FSDP-style) over all "
                         "ranks (dp {}): no tensor, pipeline, context, expert or sequence "
                         "parallelism yet; the layout `check` prints is verl's, checked",
                         l.world));
}

// Data files the run reads at start-up: one not on this machine is a notice (check may run on
// another machine than the run), so that a typo shows before the run is booked. URLs are skipped.
void note_absent_data_files(const std::string& key, const std::vector<std::string>& files,
                            Findings& out) {
  for (const auto& file : files) {
    if (file.find("://") != std::string::npos) continue;
    std::error_code error;
    if (std::filesystem::exists(expand_home(file), error)) continue;
    add_notice(out, key,
               fmt::format("{} is not on this machine (the run reads it at start-up)", file));
  }
}

std::string megatron_lines(const std::string& role, const MegatronLayout& m) {
  std::string out = fmt::format(
      "  {} (megatron): tp {} · pp {} · cp {} → dp {}; experts: ep {} · etp {} → expert-dp {}\n",
      role, m.tp, m.pp, m.cp, m.dp, m.ep, m.etp, m.expert_dp);
  if (m.vpp > 1) out += fmt::format("    virtual pipeline stages: {}\n", m.vpp);
  if (!m.layers_per_stage.empty()) {
    std::int64_t total = 0;
    for (const auto layers : m.layers_per_stage) total += layers;
    out += fmt::format("    layers per pipeline stage ({} layers): {}\n", total,
                       format_stages(m.layers_per_stage));
  }
  if (m.ep <= 1) return out;
  out += m.folding_valid ? fmt::format(
                               "    expert layout, MoE parallel folding (world % (etp·ep·pp) == "
                               "0): valid, expert-dp {}\n",
                               m.expert_dp)
                         : "    expert layout, MoE parallel folding: invalid (see problems)\n";
  if (m.legacy_valid) {
    out += fmt::format(
        "    expert layout, legacy rule (ep divides dense dp): valid, dp {} / ep {}\n", m.dp, m.ep);
  } else {
    out += fmt::format(
        "    expert layout, legacy rule (ep divides dense dp): INVALID: ep {} does not divide "
        "dense dp {} "
        "(= world / (tp {} · pp {} · cp {})); Megatron-Core versions before MoE parallel folding "
        "reject this "
        "layout; with folding, EP is carved out of the DP×CP×TP ranks, so it needs Megatron-Core "
        "with folding\n",
        m.ep, m.dp, m.tp, m.pp, m.cp);
  }
  return out;
}

std::string inference_line(const std::string& role, const InferenceLayout& i) {
  return fmt::format(
      "  {}: tp {} · dp {} · pp {}{} = {} devices per replica, {} devices → {} replicas\n", role,
      i.tp, i.dp, i.pp, i.ep > 1 ? fmt::format(" (ep {})", i.ep) : "", i.per_replica, i.pool,
      i.replicas);
}

// verl's defaults for the request's config name (the built-in config of that name, else
// ppo_trainer's), without the user's file or overrides.
Node default_tree(const ConfigRequest& request) {
  ConfigRequest plain;
  plain.config_name = request.config_name;
  try {
    return compose_config(plain).root;
  } catch (const Error&) {
    plain.config_name = "ppo_trainer";
    return compose_config(plain).root;
  }
}

// The models that embed the tokenizer's ids, with their config.json vocab_size where readable.
std::vector<VocabReader> vocab_readers(const std::optional<model::ModelShape>& actor,
                                       const std::optional<model::ModelShape>& critic) {
  std::vector<VocabReader> readers;
  if (actor && actor->vocab_size) readers.push_back({"the model", *actor->vocab_size});
  if (critic && critic->vocab_size) readers.push_back({"the critic", *critic->vocab_size});
  return readers;
}

// A Python reward function (verl's custom_reward_function.path) cannot be loaded: verlpp loads a
// shared library (reward/verlpp_reward_abi.h). bt13: refused only after the model had loaded.
void check_custom_reward_path(const Node& root, Findings& out) {
  const std::string key = "reward.custom_reward_function.path";
  const Node* path = find_path(root, key);
  if (path == nullptr || path->kind() != Node::Kind::string ||
      !path->as_string().ends_with(".py")) {
    return;
  }
  add_error(out, key,
            fmt::format("'{}' is a Python file; verlpp loads custom rewards from a shared library "
                        "(.so) exporting an extern \"C\" function (reward/verlpp_reward_abi.h)",
                        path->as_string()),
            "build the reward function as a shared library and give its path");
}

}  // namespace

void refuse_unread_keys(const ComposedConfig& composed, const KeyReads& reads,
                        const ConfigRequest& request, Findings& findings,
                        std::vector<std::string>& ignored) {
  const Node defaults = default_tree(request);
  for (const auto& mismatch : ignored_key_mismatches(composed.user_keys, composed.root, defaults)) {
    add_error(findings, mismatch.key,
              "verlpp ignores this setting, but verl would refuse its value: " + mismatch.message,
              "remove it, or give it a value of its default's kind");
  }
  const auto unread =
      unread_keys(composed.user_keys, reads_through_interpolations(reads, composed.interpolations),
                  composed.root, defaults);
  for (const auto& u : unread) {
    if (u.engine_setting) {
      ignored.push_back(u.key);
      continue;
    }
    add_error(findings, u.key,
              fmt::format("verlpp does not implement this setting: {} would have no effect "
                          "(verl's default: {})",
                          u.value, u.default_value),
              "remove it, or set it to verl's default");
  }
}

bool CheckReport::valid() const { return no_errors(findings); }

CheckReport check_config(const ConfigRequest& request) {
  return check_config(request, compose_config(request));
}

CheckReport check_config(const ConfigRequest& request, ComposedConfig composed) {
  CheckReport report;
  report.composed = std::move(composed);
  KeyReads reads;
  report.config = bind_config(report.composed.root, &reads);
  const ModelConfig& model = report.config.model;
  const model::ModelShapeRead read =
      check_hf_model(model, "actor_rollout_ref.model", report.findings);
  const std::optional<model::ModelShape>& shape = read.shape;
  if (read.absent) report.model_note = read.why_not;  // only an absent config.json is unchecked
  std::optional<model::ModelShape> critic;
  if (need_critic(report.config)) {
    critic = check_hf_model(report.config.critic.model, "critic.model", report.findings).shape;
  }
  check_model_folder("actor_rollout_ref.model.path", model.path, "actor", report.findings);
  if (model.tokenizer_path) {
    check_model_folder("actor_rollout_ref.model.tokenizer_path", *model.tokenizer_path, "actor",
                       report.findings);
  }
  check_tokenizer_folder(model.tokenizer_path ? "actor_rollout_ref.model.tokenizer_path"
                                              : "actor_rollout_ref.model.path",
                         model.tokenizer_path.value_or(model.path), vocab_readers(shape, critic),
                         report.findings);
  check_custom_chat_template("actor_rollout_ref.model.custom_chat_template",
                             model.custom_chat_template, report.findings);
  if (need_critic(report.config)) {
    check_model_folder("critic.model.path", report.config.critic.model.path, "critic",
                       report.findings);
  }
  check_custom_reward_path(report.composed.root, report.findings);
  note_absent_data_files("data.train_files", report.config.data.train_files, report.findings);
  note_absent_data_files("data.val_files", report.config.data.val_files, report.findings);
  report.layout = plan_layout(report.config, shape, report.findings);
  note_sharded_layout(report.layout, report.findings);
  validate_config(report.config, report.layout, report.findings);
  report.ignored = ignored_keys(report.composed.user_keys);
  refuse_unread_keys(report.composed, reads, request, report.findings, report.ignored);
  return report;
}

std::string format_report(const CheckReport& r) {
  const Layout& l = r.layout;
  const TrainerConfig& t = r.config.trainer;
  std::string out = fmt::format(
      "== layout: {} devices = trainer.nnodes {} × trainer.n_gpus_per_node {} (trainer.device "
      "{})\n",
      l.world, t.nnodes, t.n_gpus_per_node, t.device);
  out += fmt::format("  config: {}\n", r.composed.origin);
  if (l.model) {
    const model::ModelShape& m = *l.model;
    const std::string mix =
        m.linear_attention_layers > 0
            ? fmt::format(" ({} linear attention, {} full attention)", m.linear_attention_layers,
                          m.num_hidden_layers - m.linear_attention_layers)
            : "";
    const std::string linear_heads =
        m.linear_attention_layers > 0
            ? fmt::format(", {}/{} linear-attention key/value heads", m.linear_num_key_heads,
                          m.linear_num_value_heads)
            : "";
    out += fmt::format("  model: {} ({}): {} layers{}, {} attention heads, {} KV heads{}{}\n",
                       m.architecture, m.source, m.num_hidden_layers, mix, m.num_attention_heads,
                       m.num_key_value_heads, linear_heads,
                       m.num_experts ? fmt::format(", {} experts", *m.num_experts) : "");
  } else {
    out += "  model: " + r.model_note + "; layer and head checks skipped\n";
  }
  if (l.actor_fsdp) {
    const FsdpLayout& f = *l.actor_fsdp;
    out += fmt::format("  actor ({}): dp {} · ulysses sp {}, fsdp_size {}\n", f.strategy, f.dp,
                       f.ulysses_sp, f.fsdp_size);
    if (f.strategy == "fsdp_turbo") {
      out += fmt::format("    fsdp_turbo: fully_shard {} · ep {} · ulysses {}\n",
                         f.turbo_fully_shard, f.turbo_ep, f.turbo_ulysses);
    }
  }
  if (l.actor_megatron) out += megatron_lines("actor", *l.actor_megatron);
  if (l.ref_megatron) out += megatron_lines("ref", *l.ref_megatron);
  out += fmt::format("  reference policy: {}; critic: {}\n",
                     need_reference_policy(r.config) ? "yes" : "no",
                     need_critic(r.config) ? "yes" : "no");
  out += inference_line(fmt::format("rollout ({})", r.config.rollout.name), l.rollout);
  for (const auto& teacher : l.teachers) out += inference_line("teacher " + teacher.name, teacher);
  return out + format_ignored(r.ignored) + format_findings(r.findings);
}

std::string format_ignored(const std::vector<std::string>& ignored) {
  if (ignored.empty()) return "";
  std::string out =
      "== accepted but ignored by verlpp (Python-only machinery, inference-server and engine "
      "implementation settings):\n";
  for (const auto& key : ignored) out += "  " + key + "\n";
  return out;
}

std::string format_findings(const Findings& findings) {
  std::string out;
  std::size_t errors = 0;
  std::string problems, notices;
  for (const auto& f : findings) {
    if (f.severity == Finding::Severity::notice) {
      notices += fmt::format("  note: {}: {}{}\n", f.key, f.message,
                             f.fix.empty() ? "" : "; to change it: " + f.fix);
      continue;
    }
    ++errors;
    problems += fmt::format("  ✗ {}: {}\n      fix: {}\n", f.key, f.message, f.fix);
  }
  if (!notices.empty()) out += "== notices\n" + notices;
  if (errors == 0) return out + "== result: valid\n";
  return out + fmt::format("== result: {} problem{}\n", errors, errors == 1 ? "" : "s") + problems;
}

}  // namespace verlpp::config
