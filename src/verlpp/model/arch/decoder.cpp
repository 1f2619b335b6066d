#include "verlpp/model/arch/decoder.h"

#include "verlpp/core/error.h"
#include "verlpp/model/arch/dense_decoder.h"
#include "verlpp/model/arch/qwen3_5.h"
#include "verlpp/model/arch/qwen3_moe.h"
#include "verlpp/model/layers/rms_norm.h"

namespace verlpp::model {

std::vector<LayerStateSpec> Decoder::generation_state() const {
  return std::vector<LayerStateSpec>(
      static_cast<size_t>(config_.num_hidden_layers),
      {LayerStateKind::kv_cache, config_.num_key_value_heads, config_.head_dim});
}

void Decoder::declare_embedding() {
  table_.add({"model.embed_tokens.weight",
              {config_.vocab_size, config_.hidden_size},
              WeightInit::normal,
              -1,
              0,
              "vocab_size, hidden_size",
              {},
              &embed_tokens});
}

at::Tensor Decoder::final_norm(const at::Tensor& x) const {
  return rms_norm(x, norm, config_.rms_norm_eps);
}

void Decoder::declare_head(WeightInit norm_init) {
  table_.add(
      {"model.norm.weight", {config_.hidden_size}, norm_init, -1, 0, "hidden_size", {}, &norm});
  if (!config_.tie_word_embeddings) {
    table_.add({"lm_head.weight",
                {config_.vocab_size, config_.hidden_size},
                WeightInit::normal,
                -1,
                0,
                "vocab_size, hidden_size",
                {},
                &lm_head});
  }
}

std::unique_ptr<Decoder> make_decoder(const ModelConfig& config) {
  switch (config.architecture) {
    case Architecture::qwen2:
    case Architecture::qwen3:
    case Architecture::llama:
      return std::make_unique<DenseDecoder>(config);
    case Architecture::qwen3_moe:
      return std::make_unique<Qwen3MoeDecoder>(config);
    case Architecture::qwen3_5:
    case Architecture::qwen3_5_moe:
      return std::make_unique<Qwen3_5Decoder>(config);
  }
  throw Error("internal: no decoder for architecture " + architecture_class(config.architecture));
}

}  // namespace verlpp::model
