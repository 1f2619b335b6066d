#include "verlpp/trainer/stop_tokens.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "verlpp/core/error.h"
#include "verlpp/core/json_file.h"

namespace verlpp::trainer {
namespace {

// eos_token_id of DIR/generation_config.json (absent file: none).
void add_generation_config_eos(const std::string& model_dir, std::set<std::int32_t>& ids) {
  const std::string path = model_dir + "/generation_config.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  const nlohmann::json j = read_json_file(path, "generation config");
  const nlohmann::json eos = j.is_object() ? j.value("eos_token_id", nlohmann::json()) : nullptr;
  if (eos.is_number_integer()) ids.insert(eos.get<std::int32_t>());
  if (!eos.is_array()) return;
  for (const auto& e : eos) {
    if (!e.is_number_integer()) throw Error(path + ": eos_token_id must hold integers");
    ids.insert(e.get<std::int32_t>());
  }
}

}  // namespace

std::vector<std::int32_t> stop_token_ids(const tokenizer::Tokenizer* tok,
                                         const std::string& model_dir,
                                         const model::ModelConfig& config) {
  std::set<std::int32_t> ids;
  if (tok != nullptr) {
    const tokenizer::SpecialTokens& special = tok->special_tokens();
    ids.insert(special.eos_token_ids.begin(), special.eos_token_ids.end());
    if (special.eos_id) ids.insert(*special.eos_id);
  }
  if (config.eos_token_id >= 0) ids.insert(static_cast<std::int32_t>(config.eos_token_id));
  add_generation_config_eos(model_dir, ids);
  return {ids.begin(), ids.end()};
}

std::int32_t pad_token_id(const tokenizer::Tokenizer* tok) {
  if (tok == nullptr) return 0;
  const tokenizer::SpecialTokens& special = tok->special_tokens();
  if (special.pad_id) return *special.pad_id;
  return special.eos_id.value_or(0);
}

}  // namespace verlpp::trainer
