#include "verlpp/model/weight_table.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/core/tensor_storage.h"
#include "verlpp/model/checkpoint.h"

namespace verlpp::model {
namespace {

std::string shape_string(at::IntArrayRef shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

std::string expert_part_name(const PerExpertLayout& layout, int64_t expert,
                             const std::string& part) {
  return fmt::format("{}{}.{}.weight", layout.prefix, expert, part);
}

void check_shape(const CheckpointReader& reader, const std::string& name,
                 const std::vector<int64_t>& want, const std::string& shape_from) {
  const TensorInfo& info = reader.info(name);
  if (info.shape != want) {
    throw Error(
        fmt::format("checkpoint {}: tensor '{}' has shape {} but config.json implies {} ({})",
                    reader.dir(), name, shape_string(info.shape), shape_string(want), shape_from));
  }
}

// The stored name of each part of expert e, in order, each checked against its share of the
// fused shape.
std::vector<std::string> expert_parts(const CheckpointReader& reader, const WeightSpec& spec,
                                      int64_t expert, const std::string& needed_by) {
  const PerExpertLayout& layout = *spec.per_expert;
  std::vector<int64_t> part_shape(spec.shape.begin() + 1, spec.shape.end());
  part_shape[0] /= static_cast<int64_t>(layout.parts.size());
  std::vector<std::string> names;
  for (const std::string& part : layout.parts) {
    const std::string name = expert_part_name(layout, expert, part);
    if (!reader.contains(name)) {
      throw Error(fmt::format(
          "checkpoint {} has no tensor '{}' (needed by {}; nor the fused '{}', and config.json "
          "says {})",
          reader.dir(), name, needed_by, spec.name, spec.shape_from));
    }
    check_shape(reader, name, part_shape, spec.shape_from);
    names.push_back(name);
  }
  return names;
}

// Experts [begin, begin + count) with their parts stacked: [count, rows, cols] from the
// per-expert tensors of [rows / parts, cols].
at::Tensor read_per_expert(const CheckpointReader& reader, const WeightSpec& spec,
                           const std::string& needed_by, int64_t begin, int64_t count) {
  std::vector<at::Tensor> per_expert;
  for (int64_t e = begin; e < begin + count; ++e) {
    std::vector<at::Tensor> parts;
    for (const std::string& name : expert_parts(reader, spec, e, needed_by)) {
      parts.push_back(reader.tensor(name));
    }
    per_expert.push_back(parts.size() == 1 ? parts[0] : at::cat(parts, 0));
  }
  if (!per_expert.empty()) return at::stack(per_expert, 0);
  std::vector<int64_t> shape = spec.shape;
  shape[0] = 0;
  const std::string first = expert_parts(reader, spec, 0, needed_by).front();
  return at::empty(shape, at::TensorOptions().dtype(reader.info(first).dtype));
}

// When `name` is a layer's attention tensor of one kind (linear_attn / self_attn) and the
// checkpoint holds that layer's other kind: the hint that config.json's layer types disagree with
// the weights (a break-test's config without layer_types got them from full_attention_interval).
std::string layer_type_hint(const CheckpointReader& reader, const std::string& name) {
  for (const auto& [mine, other] :
       {std::pair<std::string, std::string>{".linear_attn.", ".self_attn."},
        {".self_attn.", ".linear_attn."}}) {
    const std::size_t at = name.find(mine);
    if (at == std::string::npos) continue;
    const std::string layer = name.substr(0, at);  // "model.layers.1"
    for (const std::string& held : reader.names()) {
      if (held.rfind(layer + other, 0) == 0) {
        return fmt::format(
            "; the checkpoint's {} is {} attention: config.json's layer_types (derived from "
            "full_attention_interval when absent) disagree with the weights",
            layer, other == ".self_attn." ? "full" : "linear");
      }
    }
  }
  return "";
}

// Where `spec` is stored: its own name (checked against the spec's shape), or per expert (each
// part is checked as it is read, expert_parts). Throws verlpp::Error when neither is there.
void check_stored(const CheckpointReader& reader, const WeightSpec& spec,
                  const std::string& needed_by) {
  if (reader.contains(spec.name)) {
    check_shape(reader, spec.name, spec.shape, spec.shape_from);
    return;
  }
  if (spec.per_expert) return;
  throw Error("checkpoint " + reader.dir() + " has no tensor '" + spec.name + "' (needed by " +
              needed_by + ")" + layer_type_hint(reader, spec.name));
}

struct RowRange {
  int64_t begin = 0;
  int64_t count = 0;
};

// `spec` as the checkpoint stores it (CPU, the stored dtype, owning its bytes; read whole where no
// stacking is needed): rows [begin, begin + count) of dim 0 when `rows` is given (experts, for a
// fused expert tensor stored per expert), else all of it.
at::Tensor read_spec(const CheckpointReader& reader, const WeightSpec& spec,
                     const std::string& needed_by, std::optional<RowRange> rows = std::nullopt) {
  check_stored(reader, spec, needed_by);
  if (!reader.contains(spec.name)) {
    const RowRange all{0, spec.shape[0]};
    return read_per_expert(reader, spec, needed_by, rows.value_or(all).begin,
                           rows.value_or(all).count);
  }
  return rows ? reader.rows(spec.name, rows->begin, rows->count) : reader.tensor(spec.name);
}

// Whether the table reads experts of the layer of expert tensor `name`
// ("...layers.N.mlp.experts...").
bool layer_has_experts(const std::vector<WeightSpec>& specs, const std::string& name) {
  const std::size_t at = name.find(".mlp.experts.");
  const std::size_t start = name.rfind('.', at - 1);
  const std::string digits = name.substr(start + 1, at - start - 1);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit)) return true;
  const int64_t layer = std::stoll(digits);
  return std::any_of(specs.begin(), specs.end(), [&](const WeightSpec& spec) {
    return spec.per_expert.has_value() && spec.layer == layer;
  });
}

// An expert tensor of the checkpoint that no spec covers: more experts on disk than config.json's
// num_experts.
void reject_unknown_experts(const CheckpointReader& reader, const std::vector<WeightSpec>& specs) {
  const bool experts = std::any_of(specs.begin(), specs.end(), [](const WeightSpec& spec) {
    return spec.per_expert.has_value();
  });
  if (!experts) return;  // a table without experts (e.g. the vision tower) reads none
  std::unordered_set<std::string> known;
  for (const WeightSpec& spec : specs) {
    known.insert(spec.name);
    if (!spec.per_expert) continue;
    for (int64_t e = 0; e < spec.shape[0]; ++e) {
      for (const std::string& part : spec.per_expert->parts) {
        known.insert(expert_part_name(*spec.per_expert, e, part));
      }
    }
  }
  for (const std::string& name : reader.names()) {
    if (name.find(".mlp.experts.") == std::string::npos || known.count(name) != 0) continue;
    throw Error(fmt::format(
        "checkpoint {}: tensor '{}' is not a parameter of the model config.json describes ({})",
        reader.dir(), name,
        layer_has_experts(specs, name)
            ? "more experts in the checkpoint than num_experts?"
            : "config.json makes that layer dense: mlp_only_layers or decoder_sparse_step "
              "disagree with the weights"));
  }
}

}  // namespace

void WeightTable::add(WeightSpec spec) { specs_.push_back(std::move(spec)); }

std::vector<at::Tensor> WeightTable::layer_tensors(int64_t layer) const {
  std::vector<at::Tensor> out;
  for (const WeightSpec& spec : specs_) {
    if (spec.layer == layer && spec.tensor->defined()) out.push_back(*spec.tensor);
  }
  return out;
}

void WeightTable::load(const CheckpointReader& reader, at::ScalarType dtype,
                       const at::Device& device, const std::string& needed_by) const {
  reject_unknown_experts(reader, specs_);
  for (const WeightSpec& spec : specs_) {
    *spec.tensor = read_spec(reader, spec, needed_by).to(device, dtype);
  }
}

void WeightTable::copy_from(const CheckpointReader& reader, const std::string& needed_by) const {
  reject_unknown_experts(reader, specs_);
  c10::AutoGradMode no_grad(false);
  for (const WeightSpec& spec : specs_) spec.tensor->copy_(read_spec(reader, spec, needed_by));
}

void WeightTable::defer(const CheckpointReader& reader, at::ScalarType dtype,
                        const at::Device& device, const std::string& needed_by) const {
  reject_unknown_experts(reader, specs_);
  for (const WeightSpec& spec : specs_) {
    check_stored(reader, spec, needed_by);
    if (reader.contains(spec.name)) {
      reader.mark_read(spec.name);
    } else {
      for (int64_t e = 0; e < spec.shape[0]; ++e) {
        for (const std::string& name : expert_parts(reader, spec, e, needed_by)) {
          reader.mark_read(name);
        }
      }
    }
    *spec.tensor =
        empty_without_storage(spec.shape, at::TensorOptions().dtype(dtype).device(device));
  }
}

at::Tensor WeightTable::read_rows(const CheckpointReader& reader, std::size_t index, int64_t begin,
                                  int64_t count, const std::string& needed_by) const {
  const WeightSpec& spec = specs_.at(index);
  if (spec.shape.empty() || begin < 0 || count < 0 || begin + count > spec.shape[0]) {
    throw Error(fmt::format("read_rows: rows [{}, {}) of '{}' of shape {}", begin, begin + count,
                            spec.name, shape_string(spec.shape)));
  }
  return read_spec(reader, spec, needed_by, RowRange{begin, count});
}

void WeightTable::init(uint64_t seed, double std, at::ScalarType dtype,
                       const at::Device& device) const {
  at::Generator gen = make_generator(device, seed);
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device);
  for (const WeightSpec& spec : specs_) {
    switch (spec.init) {
      case WeightInit::ones:
        *spec.tensor = at::ones(spec.shape, options.dtype(dtype));
        break;
      case WeightInit::zeros:
        *spec.tensor = at::zeros(spec.shape, options.dtype(dtype));
        break;
      case WeightInit::normal:
        *spec.tensor = at::normal(0.0, std, spec.shape, gen, options).to(dtype);
        break;
      case WeightInit::log_uniform:
        *spec.tensor = at::empty(spec.shape, options).uniform_(0.01, 16.0, gen).log_().to(dtype);
        break;
    }
  }
}

std::vector<std::pair<std::string, at::Tensor>> WeightTable::hub_tensors() const {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const WeightSpec& spec : specs_) {
    if (!spec.per_expert) {
      out.emplace_back(spec.name, *spec.tensor);
      continue;
    }
    const auto parts = static_cast<int64_t>(spec.per_expert->parts.size());
    for (int64_t e = 0; e < spec.shape[0]; ++e) {
      const std::vector<at::Tensor> pieces = spec.tensor->select(0, e).chunk(parts, 0);
      for (int64_t p = 0; p < parts; ++p) {
        out.emplace_back(expert_part_name(*spec.per_expert, e, spec.per_expert->parts[p]),
                         pieces[static_cast<size_t>(p)]);
      }
    }
  }
  return out;
}

}  // namespace verlpp::model
