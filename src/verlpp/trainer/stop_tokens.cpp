#include "verlpp/trainer/stop_tokens.h"

#include <set>

#include "verlpp/tokenizer/tokenizer_config.h"

namespace verlpp::trainer {
namespace {

// eos_token_id of DIR/generation_config.json (absent file or key: none).
void add_generation_config_eos(const std::string& model_dir, std::set<std::int32_t>& ids) {
  if (const auto eos = tokenizer::read_generation_eos_ids(model_dir)) {
    ids.insert(eos->begin(), eos->end());
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
