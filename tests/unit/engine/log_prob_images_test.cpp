// The actor's log-prob pass over a batch whose rows hold images (per-row tensors pixel_values and
// image_grid_thw, as the dataset and the rollout leave them) against transformers on the Qwen3.5
// vision-language fixture (tests/fixtures/model/qwen3_5_vl_images, tools/make_vl_fixtures.py):
// each fixture sequence becomes a row (prompt up to its last image, response after), the rows
// left-/right-padded and micro-batched; the response log-probs (temperature 0.7) equal
// transformers' within 1.5 x its own fp32 distance from float64, with and without
// use_remove_padding (rows with images always take the packed forward), and the M-RoPE streams
// are recomputed from the tokens (position_ids of such rows are not read).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "verlpp/core/error.h"
#include "verlpp/engine/log_prob.h"
#include "verlpp/model/safetensors.h"

namespace verlpp::engine {
namespace {

const std::string kDir = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model/";

struct Fixture {
  std::map<std::string, at::Tensor> ref;
  nlohmann::json meta;
  data::Batch batch;
  std::vector<int64_t> prompt_lengths, starts;
};

Fixture make_fixture() {
  Fixture f;
  const model::SafetensorsFile file(kDir + "qwen3_5_vl_images.reference.safetensors");
  for (const auto& n : file.names()) f.ref[n] = file.tensor(n).clone();
  std::ifstream in(kDir + "qwen3_5_vl_images.json");
  f.meta = nlohmann::json::parse(in);
  const at::Tensor ids = f.ref.at("input_ids"), cu = f.ref.at("cu_seqlens").to(at::kLong);
  const at::Tensor grids = f.ref.at("image_grid_thw"), pixels = f.ref.at("pixel_values");
  const int64_t B = cu.size(0) - 1, image_token = f.meta["image_token_id"];
  std::vector<at::Tensor> rows_pixels, rows_grids;
  int64_t image = 0, pixel_row = 0, P = 0, R = 0;
  std::vector<at::Tensor> seqs;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t start = cu[b].item<int64_t>(), length = cu[b + 1].item<int64_t>() - start;
    const at::Tensor seq = ids.narrow(0, start, length);
    const at::Tensor pads = seq.eq(image_token).nonzero();
    const int64_t prompt = pads.numel() == 0 ? length / 2 : pads.max().item<int64_t>() + 2;
    const int64_t images = f.meta["images_per_sequence"][b].size();
    const at::Tensor g = grids.narrow(0, image, images);
    const int64_t patches = images == 0 ? 0 : g.prod(1).sum().item<int64_t>();
    rows_grids.push_back(g.clone());
    rows_pixels.push_back(pixels.narrow(0, pixel_row, patches).clone());
    image += images;
    pixel_row += patches;
    seqs.push_back(seq);
    f.prompt_lengths.push_back(prompt);
    f.starts.push_back(start);
    P = std::max(P, prompt);
    R = std::max(R, length - prompt);
  }
  at::Tensor input_ids = at::zeros({B, P + R}, at::kLong), mask = at::zeros({B, P + R}, at::kLong);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t p = f.prompt_lengths[b], r = seqs[b].size(0) - p;
    input_ids[b].narrow(0, P - p, p + r).copy_(seqs[b]);
    mask[b].narrow(0, P - p, p + r).fill_(1);
  }
  f.batch.set_tensor("input_ids", input_ids);
  f.batch.set_tensor("attention_mask", mask);
  f.batch.set_tensor("responses", input_ids.narrow(1, P, R).clone());
  f.batch.set_tensor("position_ids", (mask.cumsum(1) - 1).clamp_min(0));
  f.batch.set_row_tensors("pixel_values", rows_pixels);
  f.batch.set_row_tensors("image_grid_thw", rows_grids);
  return f;
}

TEST(LogProbImages, ResponseLogProbsMatchTransformers) {
  const Fixture f = make_fixture();
  const model::CausalLM m = model::CausalLM::from_pretrained(kDir + "qwen3_5_vl_images", at::kFloat,
                                                             at::kCPU, /*with_vision=*/true);
  const double tolerance =
      std::max(1e-5, 1.5 * f.meta["fp32_vs_float64_logits_max_abs"].get<double>());
  const at::Tensor want = f.ref.at("logprobs");
  const int64_t P = f.batch.tensor("input_ids").size(1) - f.batch.tensor("responses").size(1);
  for (const bool remove_padding : {true, false}) {
    ForwardSettings forward;
    forward.remove_padding = remove_padding;
    forward.temperature = f.meta["temperature"];
    const LogProbOutput out = compute_log_prob(m, f.batch, MicroBatching{2, std::nullopt}, forward,
                                               /*with_entropy=*/false);
    double worst = 0.0;
    int64_t scored = 0;
    const at::Tensor mask = f.batch.tensor("attention_mask");
    for (int64_t b = 0; b < f.batch.size(); ++b) {
      for (int64_t t = 0; t < out.log_probs.size(1); ++t) {
        if (mask[b][P + t].item<int64_t>() == 0) continue;
        // Response token t of row b is token prompt + t of its sequence, predicted from the one
        // before it: the fixture's log-prob of that position's target.
        const int64_t at = f.starts[b] + f.prompt_lengths[b] + t - 1;
        worst =
            std::max(worst, std::abs(out.log_probs[b][t].item<double>() - want[at].item<double>()));
        ++scored;
      }
    }
    EXPECT_EQ(scored,
              55 - 3 - (f.prompt_lengths[0] + f.prompt_lengths[1] + f.prompt_lengths[2]) + 3);
    EXPECT_LE(worst, tolerance) << (remove_padding ? "packed" : "padded") << " request";
  }
}

TEST(LogProbImages, ImagesWithoutAVisionTowerAreAnError) {
  const Fixture f = make_fixture();
  const model::CausalLM text_only =
      model::CausalLM::from_pretrained(kDir + "qwen3_5_vl_images", at::kFloat, at::kCPU);
  try {
    compute_log_prob(text_only, f.batch, {}, ForwardSettings{}, false);
    FAIL() << "images were scored without a vision tower";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no vision tower"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace verlpp::engine
