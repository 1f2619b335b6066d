// CUDA: decode attention over the KV cache (verlpp's kernel where built, else flash attention)
// against the eager formula, the bf16 figure for rollout-vs-trainer log-prob agreement (printed),
// fp32 CUDA greedy = fp32 CPU greedy (the CPU through the engine, CUDA through static batches), and
// the engine on CUDA. Skipped without a GPU.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "rollout_test_util.h"
#include "verlpp/core/cuda_graph.h"
#include "verlpp/core/device.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/model/layers/attention.h"
#include "verlpp/model/logprob.h"
#include "verlpp/rollout/engine.h"
#include "verlpp/rollout/kv_cache.h"
#include "verlpp/rollout/rollout.h"

namespace verlpp::rollout {
namespace {

const at::Device kCuda(at::kCUDA, 0);

TEST(RolloutGpu, FlashDecodeMatchesEagerFp32Reference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  if (!compat::has_flash_attention_kvcache()) GTEST_SKIP() << "LibTorch without seqused_k";
  const std::vector<model::LayerStateSpec> layers = {{model::LayerStateKind::kv_cache, 2, 128}};
  KVCache cache(layers, 4, 40, at::kBFloat16, kCuda);
  at::Generator gen = at::detail::createCPUGenerator(3);
  model::KVCacheView& layer = cache.view().layers[0];
  const auto rows = layer.keys.size(0);
  const at::Tensor k = at::randn({rows, 2, 128}, gen, at::kFloat);
  const at::Tensor v = at::randn({rows, 2, 128}, gen, at::kFloat);
  layer.keys.copy_(k.to(kCuda, at::kBFloat16));
  layer.values.copy_(v.to(kCuda, at::kBFloat16));
  const at::Tensor q = at::randn({3, 8, 128}, gen, at::kFloat);
  model::DecodeView view;
  const at::Tensor slots = at::tensor(std::vector<int64_t>{2, 0, 3}, at::kLong).to(kCuda);
  view.slot_starts = slots * 40;
  view.lengths = at::tensor(std::vector<int64_t>{5, 37, 1}, at::kLong).to(kCuda);
  view.max_length = 37;
  const at::Tensor eager =
      model::decode_attention(q.to(kCuda, at::kBFloat16), layer, 40, view, 0.1);
  view.cu_starts_i32 =
      at::cat({view.slot_starts, at::full({1}, rows, slots.options())}).to(at::kInt);
  view.lengths_i32 = view.lengths.to(at::kInt);
  const at::Tensor flash =
      model::decode_attention(q.to(kCuda, at::kBFloat16), layer, 40, view, 0.1);
  // fp32 CPU reference with the cache contents as stored (bf16-rounded).
  const model::KVCacheView cpu{k.to(at::kBFloat16).to(at::kFloat),
                               v.to(at::kBFloat16).to(at::kFloat)};
  model::DecodeView cpu_view;
  cpu_view.slot_starts = view.slot_starts.cpu();
  cpu_view.lengths = view.lengths.cpu();
  cpu_view.max_length = 37;
  const at::Tensor ref =
      model::decode_attention(q.to(at::kBFloat16).to(at::kFloat), cpu, 40, cpu_view, 0.1);
  const double flash_err = (flash.cpu().to(at::kFloat) - ref).abs().max().item<double>();
  const double eager_err = (eager.cpu().to(at::kFloat) - ref).abs().max().item<double>();
  std::cout << "decode attention bf16 vs fp32: CUDA path max|diff| " << flash_err << ", eager "
            << eager_err << "\n";
  EXPECT_LE(flash_err, 2e-2);
  EXPECT_LE(eager_err, 2e-2);
}

// Trainer log-probs as verl computes them with use_remove_padding: the real tokens of each row
// packed, forward_packed (flash varlen on CUDA bf16), log-probs at the temperature.
at::Tensor packed_forward_logprobs(const model::CausalLM& m, const data::Batch& out, double T) {
  c10::AutoGradMode no_grad(false);
  const at::Tensor ids = out.tensor("input_ids").cpu();
  const at::Tensor mask = out.tensor("attention_mask").cpu().ne(0);
  const at::Tensor pos = out.tensor("position_ids").cpu();
  const int64_t B = ids.size(0);
  const int64_t R = out.tensor("responses").size(1);
  const int64_t P = ids.size(1) - R;
  std::vector<int64_t> cu = {0};
  for (int64_t b = 0; b < B; ++b) cu.push_back(cu.back() + mask[b].sum().item<int64_t>());
  const at::Tensor hidden =
      m.forward_packed(ids.masked_select(mask), pos.masked_select(mask), at::tensor(cu, at::kLong));
  at::Tensor result = at::zeros({B, R}, at::kFloat);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t prompt_len = mask[b].narrow(0, 0, P).sum().item<int64_t>();
    const int64_t len = mask[b].narrow(0, P, R).sum().item<int64_t>();
    if (len == 0) continue;
    const at::Tensor h = hidden.narrow(0, cu[static_cast<size_t>(b)] + prompt_len - 1, len);
    const auto lp = model::chunked_logprob_entropy(
        h, m.lm_head_weight(), out.tensor("responses")[b].narrow(0, 0, len), T, false);
    result[b].narrow(0, 0, len).copy_(lp.logprobs.cpu());
  }
  return result;
}

// A small Qwen3 shape (head_dim 128 as Qwen3-0.6B).
model::ModelConfig small_qwen3_config() {
  model::ModelConfig c;
  c.architecture = model::Architecture::qwen3;
  c.vocab_size = 2048;
  c.hidden_size = 512;
  c.intermediate_size = 1024;
  c.num_hidden_layers = 4;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 4;
  c.head_dim = 128;
  c.qk_norm = true;
  c.tie_word_embeddings = true;
  c.rope_theta = 1e6;
  c.max_position_embeddings = 4096;
  return c;
}

// A small random Qwen3 in bf16 on the GPU.
model::CausalLM small_qwen3_bf16() {
  model::CausalLM m = model::CausalLM::random_init(small_qwen3_config(), 1, 0.05, at::kBFloat16);
  m.to(at::kBFloat16, kCuda);
  return m;
}

// The same shape as a Qwen3-MoE (8 experts, top-2, layer 0 dense, untied), bf16 on the GPU.
model::CausalLM small_qwen3_moe_bf16() {
  model::ModelConfig c = small_qwen3_config();
  c.architecture = model::Architecture::qwen3_moe;
  c.tie_word_embeddings = false;
  c.moe.num_experts = 8;
  c.moe.num_experts_per_tok = 2;
  c.moe.moe_intermediate_size = 256;
  c.moe.norm_topk_prob = true;
  c.moe.mlp_only_layers = {0};
  return model::CausalLM::random_init(c, 1, 0.05, at::kBFloat16, kCuda);
}

// `rows` random prompts of 20..76 tokens, left-padded to 80.
data::Batch random_prompts(int64_t rows) {
  std::vector<std::vector<int64_t>> prompts;
  at::Generator gen = at::detail::createCPUGenerator(9);
  for (int64_t b = 0; b < rows; ++b) {
    const at::Tensor ids = at::randint(1, 2048, {20 + 7 * (b % 9)}, gen, at::kLong);
    prompts.emplace_back(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
  }
  return testing::left_padded(prompts, 80, 0);
}

// Mean |rollout_log_probs - trainer forward| over response tokens.
double mean_logprob_gap(const model::CausalLM& m, const data::Batch& out, double T) {
  const at::Tensor mask = out.tensor("response_mask").cpu().to(at::kFloat);
  const at::Tensor diff =
      (out.tensor("rollout_log_probs").cpu() - packed_forward_logprobs(m, out, T)).abs() * mask;
  return (diff.sum() / mask.sum()).item<double>();
}

// The fraction of response positions where two rollouts of the same prompts hold the same token.
double equal_token_fraction(const data::Batch& a, const data::Batch& b) {
  return a.tensor("responses").eq(b.tensor("responses")).to(at::kFloat).mean().item<double>();
}

TEST(RolloutGpu, Bf16RolloutLogProbsAgainstTrainerForward) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const model::CausalLM m = small_qwen3_bf16();
  SamplingParams p;
  p.temperature = 1.0;
  p.max_response_length = 96;
  p.eos_token_ids = {5, 6, 7};
  p.use_cuda_graph = false;
  const data::Batch out = generate_sequences(m, random_prompts(32), p, 2);
  const at::Tensor mask = out.tensor("response_mask").cpu().to(at::kFloat);
  const at::Tensor diff =
      (out.tensor("rollout_log_probs").cpu() - packed_forward_logprobs(m, out, 1.0)).abs() * mask;
  const double mean = (diff.sum() / mask.sum()).item<double>();
  std::cout << "bf16 CUDA: mean |rollout - trainer forward| log-prob = " << mean
            << ", max = " << diff.max().item<double>() << " over " << mask.sum().item<double>()
            << " response tokens (flash kv-cache decode: "
            << (compat::has_flash_attention_kvcache() ? "yes" : "no") << ")\n";
  EXPECT_LE(mean, 2e-2);
}

TEST(RolloutGpu, CudaGraphDecodeAgreesWithEagerDecode) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  if (!compat::CudaGraph::available() || !compat::has_flash_attention_kvcache()) {
    GTEST_SKIP() << "no CUDA graphs or flash kv-cache attention in this build";
  }
  const model::CausalLM m = small_qwen3_bf16();
  const data::Batch prompts = random_prompts(24);  // buckets 24, 16, 8, ... as rows finish
  SamplingParams p;
  p.static_batches = true;  // the static path's graphs (the engine's: the test further down)
  p.do_sample = false;
  p.max_response_length = 64;
  p.ignore_eos = true;
  p.use_cuda_graph = false;
  const data::Batch eager = generate_sequences(m, prompts, p, 0);
  p.use_cuda_graph = true;
  const data::Batch graphed = generate_sequences(m, prompts, p, 0);
  const double same = equal_token_fraction(eager, graphed);
  const double gap = mean_logprob_gap(m, graphed, 1.0);
  const double eager_gap = mean_logprob_gap(m, eager, 1.0);
  std::cout << "CUDA graph decode: greedy tokens equal to eager decode " << same
            << ", mean |rollout - forward| log-prob " << gap << " (eager decode " << eager_gap
            << ")\n";
  // bf16 greedy decoding of a random model meets many near-ties, and the graphs' attention bound
  // (the cache capacity) changes the decode attention's split of the keys and so the rounding: a
  // token flips and the row continues differently (on the H200, 0.755 of the tokens equal with
  // flash attention, 0.952 with verlpp's kernel: bench/results/decode_kernel_run1). What must
  // hold is that the graphed rollout's log-probs agree with the trainer's forward as well as the
  // eager rollout's do.
  EXPECT_GE(same, 0.5);
  EXPECT_LE(gap, std::max(2.0 * eager_gap, 5e-3));
  // With eos: rows leave the batch, the graphs switch buckets; the layout stays right and the
  // log-probs still agree with the trainer's.
  p.do_sample = true;
  p.ignore_eos = false;
  p.eos_token_ids = {5, 6, 7, 8, 9, 10, 11, 12};
  const data::Batch stopped = generate_sequences(m, prompts, p, 4);
  const at::Tensor mask = stopped.tensor("response_mask").cpu();
  const at::Tensor lengths = mask.sum(1);
  EXPECT_TRUE(mask.eq(at::arange(64).unsqueeze(0).lt(lengths.unsqueeze(1))).all().item<bool>());
  EXPECT_TRUE(stopped.tensor("responses").cpu().masked_select(mask.eq(0)).eq(0).all().item<bool>());
  EXPECT_LT(lengths.min().item<int64_t>(), 64) << "no row stopped early: the test needs eos hits";
  EXPECT_LE(mean_logprob_gap(m, stopped, 1.0), 2e-2);
}

TEST(RolloutGpu, Fp32CudaGreedyEqualsCpu) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const model::CausalLM cpu = testing::load_fp32("qwen2");
  const model::CausalLM gpu =
      model::CausalLM::from_pretrained(testing::model_dir("qwen2"), at::kFloat, kCuda);
  const data::Batch prompts = testing::left_padded({{4, 8, 15}, {16, 23, 42, 108, 7}, {9}}, 6, 0);
  SamplingParams p;
  p.do_sample = false;
  p.max_response_length = 20;
  p.eos_token_ids = {3, 11, 19, 27};
  const data::Batch a = generate_sequences(cpu, prompts, p, 0);
  const data::Batch b = generate_sequences(gpu, prompts, p, 0);
  for (const char* key : {"responses", "response_mask", "attention_mask", "position_ids"}) {
    EXPECT_TRUE(a.tensor(key).equal(b.tensor(key).cpu())) << key;
  }
  EXPECT_LE((a.tensor("rollout_log_probs") - b.tensor("rollout_log_probs").cpu())
                .abs()
                .max()
                .item<double>(),
            1e-4);
}

// A Qwen3-MoE rollout on CUDA (grouped GEMM experts): its log-probs agree with the trainer's
// forward as a dense model's do, eager and with CUDA graphs (the grouped-GEMM block has no host
// synchronisation, so its decode is captured: a failed capture throws); greedy tokens of the
// graphed decode follow the eager ones as the dense model's do.
TEST(RolloutGpu, MoeRolloutLogProbsAgainstTrainerForward) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  if (!compat::has_grouped_mm()) GTEST_SKIP() << "LibTorch without at::_grouped_mm";
  const model::CausalLM m = small_qwen3_moe_bf16();
  EXPECT_TRUE(m.decode_capturable());
  const data::Batch prompts = random_prompts(24);
  SamplingParams p;
  p.temperature = 1.0;
  p.max_response_length = 48;
  p.eos_token_ids = {5, 6, 7};
  p.use_cuda_graph = false;
  const double eager_gap = mean_logprob_gap(m, generate_sequences(m, prompts, p, 3), 1.0);
  p.use_cuda_graph = true;
  const double graph_gap = mean_logprob_gap(m, generate_sequences(m, prompts, p, 3), 1.0);
  p.do_sample = false;
  p.ignore_eos = true;
  p.static_batches = true;
  p.use_cuda_graph = false;
  const data::Batch eager = generate_sequences(m, prompts, p, 0);
  p.use_cuda_graph = true;
  const data::Batch graphed = generate_sequences(m, prompts, p, 0);
  const double same = equal_token_fraction(eager, graphed);
  std::cout << "bf16 CUDA MoE rollout: mean |rollout - trainer forward| log-prob " << eager_gap
            << " eager, " << graph_gap << " with CUDA graphs; greedy tokens equal " << same << "\n";
  EXPECT_LE(eager_gap, 2e-2);
  EXPECT_LE(graph_gap, std::max(2.0 * eager_gap, 5e-3));
  EXPECT_GE(same, 0.5);
}

// A small Qwen3.5 (Gated DeltaNet layers 0, 2, 3, gated attention layer 1; head_dim 256 as the
// real models, partial rotary 0.25), bf16 on the GPU; with `moe`, the Qwen3.5-MoE block.
model::CausalLM small_qwen3_5_bf16(bool moe) {
  model::ModelConfig c = small_qwen3_config();
  c.architecture = moe ? model::Architecture::qwen3_5_moe : model::Architecture::qwen3_5;
  c.head_dim = 256;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.partial_rotary_factor = 0.25;
  c.layer_types = {model::LayerType::linear_attention, model::LayerType::full_attention,
                   model::LayerType::linear_attention, model::LayerType::linear_attention};
  c.linear_attention = {4, 8, 128, 128, 4};
  if (moe) {
    c.moe.num_experts = 8;
    c.moe.num_experts_per_tok = 2;
    c.moe.moe_intermediate_size = 256;
    c.moe.norm_topk_prob = true;
    c.moe.shared_expert_intermediate_size = 256;
  }
  return model::CausalLM::random_init(c, 1, 0.05, at::kBFloat16, kCuda);
}

// Qwen3.5 rollouts on CUDA keep each row's conv window and delta-rule state beside the attention
// layers' KV cache: log-probs agree with the trainer's forward (the chunked delta rule) as the
// dense models' do, with CUDA graphs (which capture the recurrent step too) and without, and when
// rows stop at eos and leave the batch.
TEST(RolloutGpu, Qwen3_5RolloutLogProbsAgainstTrainerForward) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const bool moe : {false, true}) {
    const model::CausalLM m = small_qwen3_5_bf16(moe);
    EXPECT_EQ(m.decode_capturable(), !moe || compat::has_grouped_mm());
    const data::Batch prompts = random_prompts(24);
    SamplingParams p;
    p.temperature = 1.0;
    p.max_response_length = 80;
    p.eos_token_ids = {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    p.use_cuda_graph = false;
    const data::Batch eager = generate_sequences(m, prompts, p, 3);
    p.use_cuda_graph = true;
    const data::Batch graphed = generate_sequences(m, prompts, p, 3);
    const double eager_gap = mean_logprob_gap(m, eager, 1.0);
    const double graph_gap = mean_logprob_gap(m, graphed, 1.0);
    const at::Tensor lengths = graphed.tensor("response_mask").sum(1);
    std::cout << "bf16 CUDA Qwen3.5" << (moe ? "-MoE" : "")
              << " rollout: mean |rollout - trainer forward| log-prob " << eager_gap << " eager, "
              << graph_gap << " with CUDA graphs; response lengths "
              << lengths.min().item<int64_t>() << ".." << lengths.max().item<int64_t>() << "\n";
    // bf16 moves these random models' log-probs far (the fixtures' bf16 gap,
    // reference_qwen3_5.json): on the H200 the MoE's eager gap was 0.019 and 0.021
    // (bench/results/qwen3_5_run3).
    EXPECT_LE(eager_gap, moe ? 3e-2 : 2e-2);
    EXPECT_LE(graph_gap, std::max(2.0 * eager_gap, 5e-3));
    EXPECT_LT(lengths.min().item<int64_t>(), 80) << "no row stopped early: the test needs eos hits";
  }
}

// The engine (engine.h) on CUDA, whose decode reads block tables (the paged mode of verlpp's decode
// kernel for bf16, the eager gather for fp32): bf16 Qwen3 and Qwen3.5 rollouts with rows stopping
// at eos agree with the trainer's forward as the static batches' do; with a cache too small for
// the batch (preemption, recompute) as well; and an fp32 engine run equals the CPU's greedy tokens.
TEST(RolloutGpu, EngineOnCudaAgreesWithTheTrainerForward) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const bool hybrid : {false, true}) {
    const model::CausalLM m = hybrid ? small_qwen3_5_bf16(false) : small_qwen3_bf16();
    const data::Batch prompts = random_prompts(24);
    SamplingParams p;
    p.temperature = 1.0;
    p.max_response_length = 80;
    p.eos_token_ids = {5, 6, 7, 8, 9};
    const double roomy = mean_logprob_gap(m, generate_with_engine(m, prompts, p, 3, 0), 1.0);
    p.kv_cache_blocks = 40;  // 24 rows of up to 80 + 80 tokens need far more
    const double tight = mean_logprob_gap(m, generate_with_engine(m, prompts, p, 3, 0), 1.0);
    p.kv_cache_blocks = 0;
    p.max_num_batched_tokens = 48;  // prompts of 20 to 76 tokens: chunked prefill
    EngineStats stats;
    const double chunked =
        mean_logprob_gap(m, generate_with_engine(m, prompts, p, 3, 0, &stats), 1.0);
    std::cout << "bf16 CUDA engine" << (hybrid ? " (Qwen3.5)" : "")
              << ": mean |rollout - trainer forward| log-prob " << roomy << ", with 40 blocks "
              << tight << ", 48 tokens a step " << chunked << " (largest step "
              << stats.max_step_tokens << " tokens)\n";
    EXPECT_LE(roomy, 2e-2);
    EXPECT_LE(tight, 2e-2);
    EXPECT_LE(chunked, 2e-2);
    EXPECT_EQ(stats.max_step_tokens, 48);
  }
  const model::CausalLM cpu = testing::load_fp32("qwen3_5");
  const model::CausalLM gpu =
      model::CausalLM::from_pretrained(testing::model_dir("qwen3_5"), at::kFloat, kCuda);
  const data::Batch prompts = testing::left_padded({{4, 8, 15}, {16, 23, 42, 108, 7}, {9}}, 6, 0);
  SamplingParams p;
  p.do_sample = false;
  p.max_response_length = 20;
  p.kv_cache_blocks = 4;
  const data::Batch a = generate_sequences(cpu, prompts, p, 0);
  const data::Batch b = generate_with_engine(gpu, prompts, p, 0, 0);
  EXPECT_TRUE(a.tensor("responses").equal(b.tensor("responses").cpu()));
}

// Prefix-cache hits on CUDA (bf16 Qwen3, flash attention over the cached keys): 16 rows whose
// prompts share their first 32 tokens (two blocks), 4 at a time; every row after the first four
// reuses the first row's two blocks, and the rollout agrees with the trainer's forward as the
// other engine runs do.
TEST(RolloutGpu, EnginePrefixCacheHitsAgreeWithTheTrainerForward) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const model::CausalLM m = small_qwen3_bf16();
  at::Generator gen = at::detail::createCPUGenerator(5);
  const at::Tensor head = at::randint(1, 2048, {32}, gen, at::kLong);
  std::vector<std::vector<int64_t>> rows;
  for (int64_t b = 0; b < 16; ++b) {
    std::vector<int64_t> row(head.data_ptr<int64_t>(), head.data_ptr<int64_t>() + 32);
    const at::Tensor tail = at::randint(1, 2048, {3 + b % 7}, gen, at::kLong);
    row.insert(row.end(), tail.data_ptr<int64_t>(), tail.data_ptr<int64_t>() + tail.numel());
    rows.push_back(std::move(row));
  }
  SamplingParams p;
  p.temperature = 1.0;
  p.max_response_length = 40;
  p.max_num_seqs = 4;
  EngineStats stats;
  const double gap = mean_logprob_gap(
      m, generate_with_engine(m, testing::left_padded(rows, 41, 0), p, 3, 0, &stats), 1.0);
  std::cout << "bf16 CUDA engine with prefix-cache hits (" << stats.prefix_cache_hit_tokens
            << " tokens): mean |rollout - trainer forward| log-prob " << gap << "\n";
  EXPECT_EQ(stats.prefix_cache_hit_tokens, 12 * 32);
  EXPECT_LE(gap, 2e-2);
}

// The engine's decode from CUDA graphs over block tables (paged_decode.h GraphedPagedDecoder)
// against its eager decode, on Qwen3, Qwen3.5 (state slots) and their MoE forms: greedy tokens
// mostly equal (bf16 near-ties flip a token where the graphs' key bound changes the kernel's split,
// as for the static path's graphs above) and log-probs as close to the trainer's forward as the
// eager run's; with rows stopping at eos under max_num_seqs 8 (requests come and go, the graphs
// switch buckets) the layout stays right and the log-probs still agree.
TEST(RolloutGpu, EngineCudaGraphsAgreeWithEagerEngine) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  if (!compat::CudaGraph::available()) GTEST_SKIP() << "no CUDA graphs in this build";
  // Dense Qwen3, Qwen3.5, and (with the grouped GEMM) Qwen3-MoE and Qwen3.5-MoE.
  const int kinds = compat::has_grouped_mm() ? 4 : 2;
  for (int kind = 0; kind < kinds; ++kind) {
    const bool hybrid = kind % 2 == 1;
    const model::CausalLM m = kind == 2   ? small_qwen3_moe_bf16()
                              : kind == 3 ? small_qwen3_5_bf16(true)
                              : hybrid    ? small_qwen3_5_bf16(false)
                                          : small_qwen3_bf16();
    const data::Batch prompts = random_prompts(24);
    SamplingParams p;
    p.do_sample = false;
    p.max_response_length = 64;
    p.ignore_eos = true;
    p.use_cuda_graph = false;
    const data::Batch eager = generate_with_engine(m, prompts, p, 0, 0);
    p.use_cuda_graph = true;
    const data::Batch graphed = generate_with_engine(m, prompts, p, 0, 0);
    const double same = equal_token_fraction(eager, graphed);
    const double gap = mean_logprob_gap(m, graphed, 1.0);
    const double eager_gap = mean_logprob_gap(m, eager, 1.0);
    std::cout << "engine CUDA graphs (" << (hybrid ? "Qwen3.5" : "Qwen3")
              << (kind >= 2 ? "-MoE" : "") << "): greedy tokens equal to eager " << same
              << ", mean |rollout - forward| " << gap << " (eager " << eager_gap << ")\n";
    EXPECT_GE(same, 0.5);
    EXPECT_LE(gap, std::max(2.0 * eager_gap, 5e-3));

    p.do_sample = true;
    p.ignore_eos = false;
    p.eos_token_ids = {5, 6, 7, 8, 9, 10, 11, 12};
    p.max_num_seqs = 8;
    const data::Batch stopped = generate_with_engine(m, prompts, p, 4, 0);
    const at::Tensor mask = stopped.tensor("response_mask").cpu();
    const at::Tensor lengths = mask.sum(1);
    EXPECT_TRUE(mask.eq(at::arange(64).unsqueeze(0).lt(lengths.unsqueeze(1))).all().item<bool>());
    EXPECT_LT(lengths.min().item<int64_t>(), 64) << "no row stopped early: the test needs eos hits";
    // The Qwen3.5-MoE's bf16 gap is the largest (0.019-0.021 eager, see the Qwen3.5 test above).
    EXPECT_LE(mean_logprob_gap(m, stopped, 1.0), kind == 3 ? 3e-2 : 2e-2);
  }
}

}  // namespace
}  // namespace verlpp::rollout
