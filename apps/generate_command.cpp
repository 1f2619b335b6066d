// `verlpp generate`: rollouts from a checkpoint for users who only want generations or an
// evaluation of a checkpoint on a dataset: prompts from a verl RL data file (or --prompt texts,
// rendered with the chat template), sampled with verl's rollout keys, written as JSON lines with
// the prompt, the response and, when the row has data_source and reward_model.ground_truth, its
// score. With --input, token ids in and token ids out (no tokenizer): lines {"prompt_ids": [...]}
// give lines {"index", "sample", "response_ids", "response_log_probs"}.
#include <ATen/ATen.h>
#include <fmt/format.h>

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
#include "temperature_option.h"
#include "verlpp/config/model_folder.h"
#include "verlpp/core/atomic_file.h"
#include "verlpp/core/device.h"
#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/core/host_memory.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/core/utf8.h"
#include "verlpp/data/prompt_encoding.h"
#include "verlpp/data/rl_dataset.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/score.h"
#include "verlpp/reward/dispatch.h"
#include "verlpp/rollout/rollout.h"
#include "verlpp/tokenizer/tokenizer.h"
#include "verlpp/trainer/sampling_settings.h"
#include "verlpp/trainer/stop_tokens.h"

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
  int64_t seed = 0;
  bool ignore_eos = false;
  bool greedy = false;
  std::string dtype;  // default: bfloat16 on cuda, float32 on cpu
  std::string device = "cuda";
  int64_t batch_size = 64;
  std::string output;
  int threads = 0;
};

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
  return left_padded_batch(encoded, trainer::pad_token_id(&tok), "--prompt");
}

// Lines [start, end) of --input as a prompt batch.
data::Batch id_batch(const std::vector<model::ScoreRequest>& requests, int64_t start, int64_t end) {
  std::vector<std::vector<int32_t>> encoded;
  for (int64_t i = start; i < end; ++i) {
    const auto& ids = requests[static_cast<size_t>(i)].prompt_ids;
    encoded.emplace_back(ids.begin(), ids.end());
  }
  return left_padded_batch(encoded, trainer::pad_token_id(nullptr), "--input");
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

// --input's prompts: its first --max-samples lines (all with -1), each of at most
// --max-prompt-length ids (a longer one is an error naming its line, as data.truncation=error is
// for --data).
std::vector<model::ScoreRequest> input_prompts(const GenerateOptions& o, int64_t vocab_size) {
  auto prompts = model::read_score_requests(o.input, vocab_size, /*responses=*/false);
  if (prompts.empty()) throw Error("--input " + o.input + ": no prompts (the file is empty)");
  if (o.max_samples > 0 && static_cast<size_t>(o.max_samples) < prompts.size()) {
    prompts.resize(static_cast<size_t>(o.max_samples));
  }
  for (size_t i = 0; i < prompts.size(); ++i) {
    const auto length = static_cast<int64_t>(prompts[i].prompt_ids.size());
    if (length > o.max_prompt_length) {
      throw Error(fmt::format("{}:{}: 'prompt_ids' holds {} ids, more than --max-prompt-length {}",
                              o.input, i + 1, length, o.max_prompt_length));
    }
  }
  return prompts;
}

// Generates every row of the batch source in --batch-size chunks and writes them to `os`, then the
// summary line to stderr.
void generate_all(const GenerateOptions& o, const model::CausalLM& lm,
                  const std::optional<tokenizer::Tokenizer>& tok,
                  const std::optional<data::RLHFDataset>& dataset,
                  const std::vector<model::ScoreRequest>& id_prompts,
                  const rollout::SamplingParams& params, int64_t total, std::ostream& os) {
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
                                                        static_cast<uint64_t>(o.seed), start * o.n);
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
}

int run_generate(const GenerateOptions& o) {
  if (static_cast<int>(!o.data.empty()) + static_cast<int>(!o.prompts.empty()) +
          static_cast<int>(!o.input.empty()) !=
      1) {
    throw Error("give one of --data FILE, --prompt TEXT or --input IDS.jsonl");
  }
  if (o.n < 1) throw Error("--n must be >= 1");
  if (o.seed < 0) throw Error("--seed must be >= 0");
  if (o.batch_size < 1) throw Error("--batch-size must be >= 1");
  if (o.max_samples == 0 || o.max_samples < -1) {
    throw Error("--max-samples must be -1 (every row) or >= 1");
  }
  if (o.max_prompt_length < 1) throw Error("--max-prompt-length must be >= 1");
  for (size_t i = 0; i < o.prompts.size(); ++i) {
    utf8::require_valid(o.prompts[i], fmt::format("--prompt (the {}. one)", i + 1));
  }
  require_batch_memory(static_cast<double>(o.batch_size) * static_cast<double>(o.n),
                       o.max_prompt_length + o.response_length,
                       fmt::format("--batch-size {} × --n {}", o.batch_size, o.n));
  if (!o.input.empty()) require_regular_file(o.input, "--input");
  require_not_same(o.output, "--output", o.input, "--input");
  require_not_same(o.output, "--output", o.data, "--data");
  compat::set_cpu_threads(o.threads);
  const bool cuda = select_device(o.device, "--device") == DeviceKind::cuda;
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
  model::apply_batch_invariant_setting(lm);

  config::RolloutConfig rc;
  rc.response_length = o.response_length;
  rc.ignore_eos = o.ignore_eos;
  rc.sampling.temperature = o.greedy ? 0.0 : o.temperature;
  rc.sampling.do_sample = !o.greedy;
  rc.sampling.top_k = o.top_k;
  rc.sampling.top_p = o.top_p;
  rollout::SamplingParams params = trainer::sampling_settings(
      rc, false, trainer::stop_token_ids(tokenizer, o.model, lm.config()),
      trainer::pad_token_id(tokenizer));
  params.use_kv_cache = !o.no_kv_cache;

  std::optional<data::RLHFDataset> dataset;
  if (!o.data.empty()) {
    data::RLHFDatasetConfig dc;
    dc.files = {o.data};
    dc.prompt_key = o.prompt_key;
    dc.max_prompt_length = o.max_prompt_length;
    dc.overlong_wording = {"--max-prompt-length",
                           "(verlpp generate): raise it or shorten the prompt"};
    dc.max_samples = o.max_samples;
    dc.shuffle = false;
    dc.return_raw_chat = false;
    dataset.emplace(dc, *tok);
  }
  std::vector<model::ScoreRequest> id_prompts;
  if (!o.input.empty()) {
    id_prompts = input_prompts(o, lm.config().vocab_size);
  }
  const int64_t total = dataset            ? dataset->size()
                        : !o.input.empty() ? static_cast<int64_t>(id_prompts.size())
                                           : static_cast<int64_t>(o.prompts.size());

  // --output is written under a temporary name and renamed when every row is there: a failed or
  // killed run leaves an existing file as it was.
  if (o.output.empty()) {
    generate_all(o, lm, tok, dataset, id_prompts, params, total, std::cout);
    return 0;
  }
  write_atomically(o.output, [&](const std::filesystem::path& temporary) {
    std::ofstream file(temporary);
    if (!file) throw Error("--output " + o.output + ": cannot open for writing");
    generate_all(o, lm, tok, dataset, id_prompts, params, total, file);
  });
  return 0;
}

}  // namespace

Command add_generate_command(CLI::App& app) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* cmd =
      app.add_subcommand("generate",
                         "sample responses from a checkpoint (prompts from a verl RL data file or "
                         "--prompt); JSON lines with prompt, response and score");
  cmd->add_option("--model", o->model, "Hugging Face checkpoint directory")
      ->required()
      ->check(config::hf_folder_error);
  cmd->add_option("--tokenizer", o->tokenizer, "tokenizer directory (default: --model)")
      ->check(config::hf_folder_error);
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
                  "data.max_prompt_length: longer prompts (--data, --input) are an error")
      ->default_val(1024);
  cmd->add_option("--max-samples", o->max_samples,
                  "use the first N rows of --data or --input (-1: all)")
      ->default_val(-1);
  cmd->add_option("--temperature", o->temperature, "rollout.temperature")
      ->default_val(1.0)
      ->check(temperature_error);
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
  cmd->add_option("--threads", o->threads, "CPU threads, >= 1 (default: all cores)")
      ->check(CLI::Range(1, 4096));
  return {cmd, [o] { return run_generate(*o); }};
}

}  // namespace verlpp::apps
