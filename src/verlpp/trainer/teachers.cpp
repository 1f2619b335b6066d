#include "verlpp/trainer/teachers.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>

#include "verlpp/algo/distillation.h"
#include "verlpp/config/home_path.h"
#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/trainer/data_parallel.h"
#include "verlpp/trainer/hf_model_loader.h"

namespace verlpp::trainer {
namespace {

constexpr const char* kSingleTeacher = "teacher_model";

at::Device teacher_device(const at::Device& student, const dist::LaunchEnv& env,
                          std::int64_t pool) {
  if (!student.is_cuda() || pool <= 0) return student;
  const auto visible = static_cast<std::int64_t>(torch::cuda::device_count());
  if (visible < env.local_world_size + pool) return student;
  return at::Device(at::kCUDA,
                    static_cast<c10::DeviceIndex>(env.local_world_size + env.local_rank % pool));
}

// The teachers score the student's batch: its image tokens, pixel values (cut into the student's
// patches) and M-RoPE positions, so a teacher needs the same image preprocessing.
void check_teacher_vision(const std::string& section, const std::filesystem::path& path,
                          const model::VisionConfig& student) {
  const auto teacher = model::load_model_config(path.string()).vision;
  if (!teacher) {
    throw Error(fmt::format(
        "{}.model_path: the data has images (data.image_key) but {} has no vision_config (the "
        "teacher needs a Qwen3.5 vision-language checkpoint)",
        section, path.string()));
  }
  const std::pair<const char*, std::pair<int64_t, int64_t>> fields[] = {
      {"patch_size", {teacher->patch_size, student.patch_size}},
      {"temporal_patch_size", {teacher->temporal_patch_size, student.temporal_patch_size}},
      {"spatial_merge_size", {teacher->spatial_merge_size, student.spatial_merge_size}},
      {"in_channels", {teacher->in_channels, student.in_channels}},
      {"image_token_id", {teacher->image_token_id, student.image_token_id}}};
  for (const auto& [field, values] : fields) {
    if (values.first != values.second) {
      throw Error(fmt::format(
          "{}.model_path: the teacher's vision_config {} is {} but the student's is {}; the "
          "teacher scores the student's image patches and tokens, so they must agree",
          section, field, values.first, values.second));
    }
  }
}

model::CausalLM load_teacher(const std::string& section, const config::TeacherModelConfig& t,
                             const at::Device& device, std::int64_t student_vocab,
                             const model::VisionConfig* images, model::WeightLoading loading) {
  if (!t.model_path) throw Error(section + ".model_path: the teacher model path is not set");
  const std::filesystem::path path = config::expand_home(*t.model_path);
  if (!std::filesystem::exists(path / "config.json")) {
    throw Error(fmt::format("{}.model_path: {} is not a model folder (no config.json there)",
                            section, path.string()));
  }
  const at::ScalarType inference_dtype = parse_dtype(
      t.inference.dtype.empty() ? "bfloat16" : t.inference.dtype, section + ".inference.dtype");
  const at::ScalarType dtype = device.is_cuda() ? inference_dtype : at::kFloat;
  if (images != nullptr) check_teacher_vision(section, path, *images);
  std::optional<model::CausalLM> teacher;
  try {
    teacher.emplace(model::CausalLM::from_pretrained(model::load_model_config(path.string()),
                                                     path.string(), dtype, device,
                                                     images != nullptr, loading));
  } catch (const Error& e) {  // bt17: a checkpoint error did not name the teacher's key
    throw Error(fmt::format("{}.model_path={}: {}", section, path.string(), e.what()));
  }
  const std::int64_t vocab = teacher->config().vocab_size;
  if (vocab != student_vocab) {
    throw Error(fmt::format(
        "{}.model_path: the teacher's vocabulary has {} tokens but the student's has {}; "
        "distillation compares their log-probs token by token, so they must share a tokenizer",
        section, vocab, student_vocab));
  }
  return std::move(*teacher);
}

// `out`[name] rows `rows` = values (allocating batch_rows rows of `fill` at first use).
void place_rows(std::vector<std::pair<std::string, at::Tensor>>& out, std::size_t i,
                const std::string& name, const at::Tensor& values,
                const std::vector<std::int64_t>& rows, std::int64_t batch_rows, double fill = 0.0) {
  if (out.size() <= i) {
    std::vector<std::int64_t> shape = values.sizes().vec();
    shape[0] = batch_rows;
    out.emplace_back(name, at::full(shape, fill, values.options()));
  }
  out[i].second.index_copy_(0, at::tensor(rows, at::kLong).to(values.device()), values);
}

}  // namespace

Teachers::Teachers(const config::Config& config, std::int64_t student_vocab,
                   const model::VisionConfig* images, const at::Device& student,
                   const dist::LaunchEnv& env, const dist::Communicator& world)
    : teacher_key_(config.distillation.teacher_key), student_device_(student) {
  const config::DistillationConfig& d = config.distillation;
  if (algo::distillation_uses_topk(d.distillation_loss.loss_mode)) {
    topk_ = d.distillation_loss.topk;
    if (topk_ < 1 || topk_ > student_vocab) {
      throw Error(fmt::format(
          "distillation.distillation_loss.topk: {} must be between 1 and the vocabulary size {}",
          topk_, student_vocab));
    }
  }
  const at::Device device = teacher_device(student, env, d.n_gpus_per_node);
  // verl's rule: with keyed entries the teacher_model entry is dropped; the teachers left are
  // routed by key when there are several, and a lone one scores every row whatever its key
  // (AsyncTeacherLLMServerManager._resolve_teacher_key).
  std::vector<std::pair<std::string, const config::TeacherModelConfig*>> chosen;
  for (const auto& [name, t] : d.teacher_models) {
    if (d.teacher_models.size() > 1 && name == kSingleTeacher) {
      if (t.model_path || t.key) {
        log_note(
            "distillation: teacher_models.teacher_model is not used: keyed teachers are "
            "given (as verl drops it)");
      }
      continue;
    }
    chosen.emplace_back(name, &t);
  }
  keyed_ = chosen.size() > 1;
  if (chosen.size() == 1 && chosen.front().first != kSingleTeacher) {
    log_note("distillation: the one keyed teacher " + chosen.front().first +
             " scores every row, whatever its " + teacher_key_ + " (as verl)");
  }
  for (const auto& [name, entry] : chosen) {
    const config::TeacherModelConfig& t = *entry;
    const std::string section = "distillation.teacher_models." + name;
    if (keyed_ && !t.key) throw Error(section + ".key: each of several teachers needs a key");
    engine::ScorerSettings settings;
    settings.forward.remove_padding = config.model.use_remove_padding;
    settings.micro.max_tokens = t.inference.max_num_batched_tokens;
    if (!keyed_ && device == student && world.size() > 1) {
      settings.sharding = engine::fsdp::FsdpSettings{};
    }
    model::CausalLM teacher = load_teacher(section, t, device, student_vocab, images,
                                           weight_loading(settings.sharding.has_value()));
    log_note(fmt::format("distillation: teacher {} ({}, {}) on {}{} in {}", name, *t.model_path,
                         model::model_type(teacher.config().architecture), device.str(),
                         device == student ? " (colocated with the student)" : "",
                         c10::toString(teacher.dtype())));
    entries_.push_back({keyed_ ? *t.key : "default",
                        std::make_unique<engine::Scorer>("teacher " + name, std::move(teacher),
                                                         std::move(settings), world)});
  }
  if (entries_.empty()) throw Error("distillation.teacher_models: no teacher is configured");
}

std::vector<std::vector<std::int64_t>> Teachers::route(const data::Batch& batch,
                                                       bool every_row) const {
  std::vector<std::vector<std::int64_t>> rows(entries_.size());
  if (!keyed_) {
    for (std::int64_t r = 0; r < batch.size(); ++r) rows[0].push_back(r);
    return rows;
  }
  if (!batch.has_non_tensor(teacher_key_)) {
    throw Error(
        fmt::format("distillation.teacher_key: the data rows have no field '{}' to route "
                    "them to the teachers by",
                    teacher_key_));
  }
  const auto& values = batch.non_tensor(teacher_key_);
  std::string keys;
  for (std::size_t e = 0; e < entries_.size(); ++e) keys += (e ? ", " : "") + entries_[e].key;
  for (std::int64_t r = 0; r < batch.size(); ++r) {
    const nlohmann::json& v = values[static_cast<std::size_t>(r)];
    const std::string value = v.is_string() ? v.get<std::string>() : v.dump();
    const auto match = std::find_if(entries_.begin(), entries_.end(),
                                    [&](const Entry& e) { return e.key == value; });
    if (match != entries_.end()) {
      rows[static_cast<std::size_t>(match - entries_.begin())].push_back(r);
    } else if (every_row) {
      const std::string uid =
          batch.has_non_tensor("uid")
              ? " (uid " + batch.non_tensor("uid")[static_cast<std::size_t>(r)].dump() + ")"
              : "";
      throw Error(fmt::format(
          "distillation.teacher_key: a row{} has {} {}, which matches no teacher key ({})", uid,
          teacher_key_, v.is_null() ? "missing" : "'" + value + "'", keys));
    }
  }
  return rows;
}

std::vector<std::pair<std::string, at::Tensor>> Teachers::query(const data::Batch& batch) const {
  const auto rows = route(batch, true);
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    if (rows[e].empty()) continue;
    const data::Batch part = batch.select(rows[e]);
    const engine::Scorer& scorer = *entries_[e].scorer;
    if (topk_ > 0) {
      const engine::ResponseTopk top = scorer.topk(part, topk_);
      place_rows(out, 0, "teacher_topk_ids", top.ids.to(student_device_), rows[e], batch.size());
      place_rows(out, 1, "teacher_topk_log_probs", top.log_probs.to(student_device_), rows[e],
                 batch.size());
    } else {
      place_rows(out, 0, "teacher_log_prob", scorer.log_probs(part).to(student_device_), rows[e],
                 batch.size());
    }
  }
  return out;
}

void Teachers::score(data::Batch& batch, const dist::Communicator& world) const {
  for (const auto& [name, values] : query(local_rows(batch, world, "teacher"))) {
    batch.set_tensor(name, world.all_gather(values));
  }
}

at::Tensor Teachers::reverse_kl(const data::Batch& batch, const model::CausalLM& student,
                                double temperature) const {
  const auto rows = route(batch, false);
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    if (rows[e].empty()) continue;
    const at::Tensor kl =
        entries_[e].scorer->reverse_kl(batch.select(rows[e]), student, temperature);
    place_rows(out, 0, "reverse_kl", kl.to(student_device_), rows[e], batch.size(), NAN);
  }
  if (!out.empty()) return out.front().second;
  const at::Tensor responses = batch.tensor("responses");
  return at::full(responses.sizes(), NAN,
                  responses.options().dtype(at::kFloat).device(student_device_));
}

}  // namespace verlpp::trainer
