#include "verlpp/config/model_shape.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace verlpp::config {
namespace {

std::optional<std::int64_t> integer_field(const nlohmann::json& text, const nlohmann::json& top,
                                          const char* key) {
  for (const auto* object : {&text, &top}) {
    const auto it = object->find(key);
    if (it != object->end() && it->is_number_integer()) return it->get<std::int64_t>();
  }
  return std::nullopt;
}

}  // namespace

std::optional<ModelShape> read_model_shape(const std::string& path, std::string& why_not) {
  namespace fs = std::filesystem;
  const fs::path file = path.ends_with(".json") ? fs::path(path) : fs::path(path) / "config.json";
  std::ifstream in(file);
  if (!in) {
    why_not = file.string() + " is not readable";
    return std::nullopt;
  }
  const nlohmann::json top = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!top.is_object()) {
    why_not = file.string() + " is not a JSON object";
    return std::nullopt;
  }
  const nlohmann::json& text = top.contains("text_config") ? top["text_config"] : top;
  ModelShape shape;
  shape.source = file.string();
  if (top.contains("architectures") && top["architectures"].is_array() &&
      !top["architectures"].empty()) {
    shape.architecture = top["architectures"][0].get<std::string>();
  } else if (top.contains("model_type") && top["model_type"].is_string()) {
    shape.architecture = top["model_type"].get<std::string>();
  }
  const auto layers = integer_field(text, top, "num_hidden_layers");
  const auto heads = integer_field(text, top, "num_attention_heads");
  if (!layers || !heads) {
    why_not = file.string() + " has no integer num_hidden_layers / num_attention_heads";
    return std::nullopt;
  }
  shape.num_hidden_layers = *layers;
  shape.num_attention_heads = *heads;
  shape.num_key_value_heads = integer_field(text, top, "num_key_value_heads").value_or(*heads);
  for (const char* key : {"num_experts", "num_local_experts", "n_routed_experts"}) {
    if (const auto experts = integer_field(text, top, key)) {
      shape.num_experts = experts;
      break;
    }
  }
  return shape;
}

}  // namespace verlpp::config
