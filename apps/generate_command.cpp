// `verlpp generate`: rollouts from a checkpoint for users who only want generations or an
// evaluation of a checkpoint on a dataset: prompts from a verl RL data file (or --prompt texts,
// rendered with the chat template), sampled with verl's rollout keys, written as JSON lines with
// the prompt, the response and, when the row has data_source and reward_model.ground_truth, its
// score. With --input, token ids in and token ids out (no tokenizer): lines {"prompt_ids": [...]}
// give lines {"index", "sample", "response_ids", "response_log_probs"}.
#include <ATen/ATen.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "commands.h"
#include "verlpp/core/device.h"
#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/data/prompt_encoding.h"
#include "verlpp/data/rl_dataset.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/score.h"
#include "verlpp/reward/dispatch.h"
#include "verlpp/rollout/rollout.h"
#include "verlpp/tokenizer/tokenizer.h"
#include "verlpp/trainer/sampling_settings.h"

namespace verlpp::apps {

namespace {

struct GenerateOptions {
  std::string model;
  std::string tokenizer;  // default: the model directory
  std::string data;
  std::vector<std::string> prompts;
  std::string input;  // JSONL of {"prompt_ids": [...]}
  bool no_kv_cache = false;
  std::string prompt_key = "prompt";
  int64_t max_prompt_length = 1024;
  int64_t max_samples = -1;
  double temperature = 1.0;
  int64_t top_k = -1;
  double top_p = 1.0;
  int64_t n = 1;
  int64_t response_length = 512;
  uint64_t seed = 0;
  bool ignore_eos = false;
  bool greedy = false;
  std::string dtype;  // default: bfloat16 on cuda, float32 on cpu
  std::string device = "cuda";
  int64_t batch_size = 64;
  std::string output;
  int threads = 0;
};

// eos ids of the tokenizer (its generation_config.json included; none without a tokenizer), of
// the model's config.json and of the model directory's generation_config.json (eos_token_id: an
// id or a list), without repeats.
std::vector<int32_t> eos_ids(const tokenizer::Tokenizer* tok, const std::string& model_dir,
                             const model::ModelConfig& config) {
  std::set<int32_t> ids;
  if (tok != nullptr) {
    ids.insert(tok->special_tokens().eos_token_ids.begin(),
               tok->special_tokens().eos_token_ids.end());
  }
  if (config.eos_token_id >= 0) ids.insert(static_cast<int32_t>(config.eos_token_id));
  const std::string path = model_dir + "/generation_config.json";
  std::ifstream in(path);
  if (in) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw Error(path + ": invalid JSON: " + e.what());
    }
    const nlohmann::json eos = j.value("eos_token_id", nlohmann::json());
    if (eos.is_number_integer()) ids.insert(eos.get<int32_t>());
    if (eos.is_array()) {
      for (const auto& e : eos) {
        if (!e.is_number_integer()) throw Error(path + ": eos_token_id must hold integers");
        ids.insert(e.get<int32_t>());
      }
    }
  }
  return {ids.begin(), ids.end()};
}

// The tokenizer's pad id (else its eos id); 0 without a tokenizer (only response padding and
// masked prompt padding carry it).
int32_t pad_id(const tokenizer::Tokenizer* tok) {
  if (tok == nullptr) return 0;
  const auto& s = tok->special_tokens();
  if (s.pad_id) return *s.pad_id;
  if (s.eos_id) return *s.eos_id;
  return 0;
}

// Prompts of token ids, left-padded to the longest (the layout of data::RLHFDataset::collate).
data::Batch left_padded_batch(const std::vector<std::vector<int32_t>>& encoded, int32_t pad,
                              const std::string& where) {
  int64_t width = 1;
  for (const auto& ids : encoded)
    width = std::max<int64_t>(width, static_cast<int64_t>(ids.size()));
  const auto B = static_cast<int64_t>(encoded.size());
  at::Tensor ids = at::empty({B, width}, at::kLong);
  at::Tensor mask = at::empty({B, width}, at::kLong);
  at::Tensor pos = at::empty({B, width}, at::kLong);
  for (int64_t b = 0; b < B; ++b) {
    const data::PaddedPrompt p =
        data::left_pad(encoded[static_cast<size_t>(b)], width, pad, data::Truncation::error, where);
    ids[b].copy_(at::tensor(p.input_ids, at::kLong));
    mask[b].copy_(at::tensor(p.attention_mask, at::kLong));
    pos[b].copy_(at::tensor(p.position_ids, at::kLong));
  }
  data::Batch batch;
  batch.set_tensor("input_ids", ids);
  batch.set_tensor("attention_mask", mask);
  batch.set_tensor("position_ids", pos);
  return batch;
}

// The --prompt texts as user messages, chat-templated, left-padded to the longest.
data::Batch prompt_batch(const std::vector<std::string>& texts, const tokenizer::Tokenizer& tok) {
  std::vector<std::vector<int32_t>> encoded;
  tokenizer::ChatTemplateOptions options;
  options.add_generation_prompt = true;
  for (const auto& text : texts) {
    const tokenizer::OrderedJson messages =
        tokenizer::OrderedJson::array({{{"role", "user"}, {"content", text}}});
    encoded.push_back(tok.encode_chat(messages, options));
  }
  return left_padded_batch(encoded, pad_id(&tok), "--prompt");
}

// Lines [start, end) of --input as a prompt batch.
data::Batch id_batch(const std::vector<model::ScoreRequest>& requests, int64_t start, int64_t end) {
  std::vector<std::vector<int32_t>> encoded;
  for (int64_t i = start; i < end; ++i) {
    const auto& ids = requests[static_cast<size_t>(i)].prompt_ids;
    encoded.emplace_back(ids.begin(), ids.end());
  }
  return left_padded_batch(encoded, pad_id(nullptr), "--input");
}

std::vector<int32_t> masked_ids(const at::Tensor& ids, const at::Tensor& mask) {
  const at::Tensor kept = ids.masked_select(mask.ne(0)).to(at::kInt).contiguous();
  return {kept.data_ptr<int32_t>(), kept.data_ptr<int32_t>() + kept.numel()};
}

// Scores rows that have data_source and reward_model.ground_truth; rows whose data_source has no
// scorer get no score (one warning per data source).
class RowScorer {
 public:
  std::optional<double> operator()(const data::Batch& batch, int64_t row,
                                   const std::string& response) {
    if (!batch.has_non_tensor("data_source") || !batch.has_non_tensor("reward_model")) {
      return std::nullopt;
    }
    const auto& source = batch.non_tensor("data_source")[static_cast<size_t>(row)];
    const auto& rm = batch.non_tensor("reward_model")[static_cast<size_t>(row)];
    if (!source.is_string() || !rm.is_object() || !rm.contains("ground_truth")) {
      return std::nullopt;
    }
    const auto& gt = rm["ground_truth"];
    const std::string truth = gt.is_string() ? gt.get<std::string>() : gt.dump();
    const nlohmann::json extra = batch.has_non_tensor("extra_info")
                                     ? batch.non_tensor("extra_info")[static_cast<size_t>(row)]
                                     : nlohmann::json::object();
    const std::string name = source.get<std::string>();
    if (unsupported_.count(name) > 0) return std::nullopt;
    try {
      return scorer_(name, response, truth, extra).score;
    } catch (const Error& e) {
      unsupported_.insert(name);
      std::cerr << "verlpp generate: rows of data_source '" << name
                << "' are not scored: " << e.what() << "\n";
      return std::nullopt;
    }
  }

 private:
  reward::Scorer scorer_{reward::ScorerConfig{}};
  std::set<std::string> unsupported_;
};

struct Totals {
  int64_t rows = 0, tokens = 0, scored = 0;
  double score_sum = 0.0;
};

void write_rows(const data::Batch& out, const tokenizer::Tokenizer& tok, RowScorer& scorer,
                int64_t first_index, int64_t n, std::ostream& os, Totals& totals) {
  const at::Tensor prompts = out.tensor("prompts").cpu();
  const at::Tensor responses = out.tensor("responses").cpu();
  const at::Tensor prompt_mask = out.tensor("attention_mask").cpu().narrow(1, 0, prompts.size(1));
  const at::Tensor response_mask = out.tensor("response_mask").cpu();
  for (int64_t r = 0; r < out.size(); ++r) {
    const std::vector<int32_t> response_ids = masked_ids(responses[r], response_mask[r]);
    const std::string response = tok.decode(response_ids, /*skip_special_tokens=*/true);
    nlohmann::json line = {{"index", first_index + r / n},
                           {"sample", r % n},
                           {"prompt", tok.decode(masked_ids(prompts[r], prompt_mask[r]))},
                           {"response", response},
                           {"response_tokens", response_ids.size()}};
    if (out.has_non_tensor("data_source")) {
      line["data_source"] = out.non_tensor("data_source")[static_cast<size_t>(r)];
    }
    if (const auto score = scorer(out, r, response)) {
      line["score"] = *score;
      totals.score_sum += *score;
      ++totals.scored;
    }
    os << line.dump() << "\n";
    totals.tokens += static_cast<int64_t>(response_ids.size());
    ++totals.rows;
  }
}

void write_id_rows(const data::Batch& out, int64_t first_index, int64_t n, std::ostream& os,
                   Totals& totals) {
  const at::Tensor responses = out.tensor("responses").cpu();
  const at::Tensor response_mask = out.tensor("response_mask").cpu();
  const at::Tensor log_probs = out.tensor("rollout_log_probs").cpu().to(at::kDouble);
  for (int64_t r = 0; r < out.size(); ++r) {
    const std::vector<int32_t> response_ids = masked_ids(responses[r], response_mask[r]);
    const at::Tensor lp = log_probs[r].narrow(0, 0, static_cast<int64_t>(response_ids.size()));
    const std::vector<double> lps(lp.data_ptr<double>(), lp.data_ptr<double>() + lp.numel());
    os << nlohmann::json{{"index", first_index + r / n},
                         {"sample", r % n},
                         {"response_ids", response_ids},
                         {"response_log_probs", lps}}
              .dump()
       << "\n";
    totals.tokens += static_cast<int64_t>(response_ids.size());
    ++totals.rows;
  }
}

int run_generate(const GenerateOptions& o) {
  if (static_cast<int>(!o.data.empty()) + static_cast<int>(!o.prompts.empty()) +
          static_cast<int>(!o.input.empty()) !=
      1) {
    throw Error("give one of --data FILE, --prompt TEXT or --input IDS.jsonl");
  }
  if (o.n < 1) throw Error("--n must be >= 1");
  if (o.batch_size < 1) throw Error("--batch-size must be >= 1");
  if (o.threads < 0) throw Error("--threads must be >= 1 (or left out: all cores)");
  if (!o.input.empty() && std::filesystem::is_directory(o.input)) {
    throw Error("--input " + o.input + ": a folder, expected a JSONL file of prompt_ids");
  }
  compat::set_cpu_threads(o.threads);
  const bool cuda = select_device(o.device) == DeviceKind::cuda;
  const at::Device device = cuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  const at::ScalarType dtype =
      parse_dtype(o.dtype.empty() ? (cuda ? "bfloat16" : "float32") : o.dtype, "--dtype");
  if (!cuda && dtype == at::kHalf) {
    throw Error(
        "--dtype float16: LibTorch's CPU matrix products have no float16; use float32 or "
        "bfloat16 on the CPU");
  }
  std::optional<tokenizer::Tokenizer> tok;
  if (o.input.empty()) {
    tok.emplace(tokenizer::Tokenizer::from_directory(o.tokenizer.empty() ? o.model : o.tokenizer));
  }
  const tokenizer::Tokenizer* tokenizer = tok ? &*tok : nullptr;
  const auto lm = model::CausalLM::from_pretrained(o.model, dtype, device);

  config::RolloutConfig rc;
  rc.response_length = o.response_length;
  rc.ignore_eos = o.ignore_eos;
  rc.sampling.temperature = o.greedy ? 0.0 : o.temperature;
  rc.sampling.do_sample = !o.greedy;
  rc.sampling.top_k = o.top_k;
  rc.sampling.top_p = o.top_p;
  rollout::SamplingParams params = trainer::sampling_settings(
      rc, false, eos_ids(tokenizer, o.model, lm.config()), pad_id(tokenizer));
  params.use_kv_cache = !o.no_kv_cache;

  std::optional<data::RLHFDataset> dataset;
  if (!o.data.empty()) {
    data::RLHFDatasetConfig dc;
    dc.files = {o.data};
    dc.prompt_key = o.prompt_key;
    dc.max_prompt_length = o.max_prompt_length;
    dc.max_samples = o.max_samples;
    dc.shuffle = false;
    dc.return_raw_chat = false;
    dataset.emplace(dc, *tok);
  }
  std::vector<model::ScoreRequest> id_prompts;
  if (!o.input.empty()) {
    id_prompts = model::read_score_requests(o.input, lm.config().vocab_size, /*responses=*/false);
  }
  const int64_t total = dataset            ? dataset->size()
                        : !o.input.empty() ? static_cast<int64_t>(id_prompts.size())
                                           : static_cast<int64_t>(o.prompts.size());

  std::ofstream file;
  if (!o.output.empty()) {
    file.open(o.output);
    if (!file) throw Error("--output " + o.output + ": cannot open for writing");
  }
  std::ostream& os = o.output.empty() ? std::cout : file;
  RowScorer scorer;
  Totals totals;
  double seconds = 0.0;
  for (int64_t start = 0; start < total; start += o.batch_size) {
    const int64_t end = std::min(total, start + o.batch_size);
    data::Batch prompts;
    if (dataset) {
      std::vector<int64_t> indices;
      for (int64_t i = start; i < end; ++i) indices.push_back(i);
      prompts = dataset->collate(indices);
    } else if (!o.input.empty()) {
      prompts = id_batch(id_prompts, start, end);
    } else {
      prompts = prompt_batch({o.prompts.begin() + start, o.prompts.begin() + end}, *tok);
    }
    const auto t0 = std::chrono::steady_clock::now();
    // Rows keyed by their place in the whole output (line x n + sample): what a row draws does
    // not depend on --batch-size.
    const data::Batch out = rollout::generate_sequences(lm, prompts.repeat_interleave(o.n), params,
                                                        o.seed, start * o.n);
    const at::Tensor mask_sum = out.tensor("response_mask").sum().cpu();  // waits for the device
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (tok) {
      write_rows(out, *tok, scorer, start, o.n, os, totals);
    } else {
      write_id_rows(out, start, o.n, os, totals);
    }
  }
  os.flush();
  if (!os) throw Error("--output " + o.output + ": write failed");
  nlohmann::json summary = {{"rows", totals.rows},
                            {"response_tokens", totals.tokens},
                            {"generate_seconds", seconds},
                            {"tokens_per_s", seconds > 0 ? totals.tokens / seconds : 0.0}};
  if (totals.scored > 0) {
    summary["scored"] = totals.scored;
    summary["mean_score"] = totals.score_sum / static_cast<double>(totals.scored);
  }
  std::cerr << "verlpp generate: " << summary.dump() << "\n";
  return 0;
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd =
      app.add_subcommand("generate",
                         "sample responses from a checkpoint (prompts from a verl RL data file or "
                         "--prompt); JSON lines with prompt, response and score");
  cmd->add_option("--model", o->model, "Hugging Face checkpoint directory")->required();
  cmd->add_option("--tokenizer", o->tokenizer, "tokenizer directory (default: --model)");
  cmd->add_option("--data", o->data, "verl RL rows: .jsonl, .json or .parquet");
  cmd->add_option("--prompt", o->prompts, "a user message (repeatable), chat-templated");
  cmd->add_option("--input", o->input,
                  "token ids in, token ids out: JSONL of {\"prompt_ids\": [...]} (no tokenizer)");
  cmd->add_flag("--no-kv-cache", o->no_kv_cache,
                "recompute every prefix at each step instead of reading the KV cache (slow; a "
                "reference for checking the cache)");
  cmd->add_option("--prompt-key", o->prompt_key, "data column with the chat messages")
      ->default_val("prompt");
  cmd->add_option("--max-prompt-length", o->max_prompt_length,
                  "data.max_prompt_length: longer prompts are an error")
      ->default_val(1024);
  cmd->add_option("--max-samples", o->max_samples, "use the first N rows of --data (-1: all)")
      ->default_val(-1);
  cmd->add_option("--temperature", o->temperature, "rollout.temperature")->default_val(1.0);
  cmd->add_option("--top-k", o->top_k, "rollout.top_k (-1: off)")->default_val(-1);
  cmd->add_option("--top-p", o->top_p, "rollout.top_p (1: off)")->default_val(1.0);
  cmd->add_option("--n", o->n, "rollout.n: responses per prompt")->default_val(1);
  cmd->add_option("--response-length", o->response_length,
                  "rollout.response_length: most tokens per response")
      ->default_val(512);
  cmd->add_option("--seed", o->seed, "sampling seed")->default_val(0);
  cmd->add_flag("--ignore-eos", o->ignore_eos, "rollout.ignore_eos: always response-length tokens");
  cmd->add_flag("--greedy", o->greedy, "do_sample=false: argmax decoding");
  cmd->add_option("--dtype", o->dtype,
                  "bfloat16, float16 or float32 (default: bfloat16 on cuda, float32 on cpu)");
  cmd->add_option("--device", o->device, "cuda (falls back to cpu without a GPU) or cpu")
      ->default_val("cuda");
  cmd->add_option("--batch-size", o->batch_size, "prompts per generation batch")->default_val(64);
  cmd->add_option("--output", o->output, "JSONL file to write (default: stdout)");
  cmd->add_option("--threads", o->threads, "CPU threads (default: all cores)");
  return {cmd, [o] { return run_generate(*o); }};
}

}  // namespace verlpp::apps
