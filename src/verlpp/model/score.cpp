#include "verlpp/model/score.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_parse.h"
#include "verlpp/model/logprob.h"

namespace verlpp::model {

namespace {

std::vector<int64_t> ids_field(const nlohmann::json& row, const char* key, const std::string& where,
                               int64_t vocab_size) {
  if (!row.contains(key) || !row[key].is_array()) {
    throw Error(where + ": expected '" + key + "' as a list of token ids");
  }
  std::vector<int64_t> ids;
  for (const auto& v : row[key]) {
    if (!v.is_number_integer())
      throw Error(where + ": '" + key + "' holds a non-integer " + v.dump());
    const int64_t id = v.get<int64_t>();
    if (id < 0 || id >= vocab_size) {
      throw Error(fmt::format("{}: '{}' holds id {} outside the vocabulary [0, {})", where, key, id,
                              vocab_size));
    }
    ids.push_back(id);
  }
  return ids;
}

}  // namespace

std::vector<ScoreRequest> read_score_requests(const std::string& path, int64_t vocab_size,
                                              bool responses, int64_t max_tokens) {
  require_regular_file(path, "--input");
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open");
  std::vector<ScoreRequest> out;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    nlohmann::json row;
    try {
      row = parse_json<nlohmann::json>(line);
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + ": not valid JSON (" + json_error_text(e.what()) + ")");
    }
    if (!row.is_object()) throw Error(where + ": expected a JSON object");
    ScoreRequest r;
    r.prompt_ids = ids_field(row, "prompt_ids", where, vocab_size);
    if (responses) r.response_ids = ids_field(row, "response_ids", where, vocab_size);
    if (r.prompt_ids.empty()) throw Error(where + ": 'prompt_ids' must not be empty");
    const auto tokens = static_cast<int64_t>(r.prompt_ids.size() + r.response_ids.size());
    if (max_tokens > 0 && tokens > max_tokens) {
      throw Error(fmt::format("{}: {} ids, more than the model's max_position_embeddings {}", where,
                              tokens, max_tokens));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ScoreResult> score(const CausalLM& model, const std::vector<ScoreRequest>& requests,
                               double temperature, int64_t max_batch_tokens) {
  c10::AutoGradMode no_grad(false);
  std::vector<ScoreResult> results(requests.size());
  size_t next = 0;
  while (next < requests.size()) {
    std::vector<int64_t> ids, positions, targets, cu = {0};
    std::vector<size_t> members;
    while (next < requests.size()) {
      const ScoreRequest& r = requests[next];
      const int64_t n = static_cast<int64_t>(r.prompt_ids.size() + r.response_ids.size());
      if (!members.empty() && cu.back() + n > max_batch_tokens) break;
      ids.insert(ids.end(), r.prompt_ids.begin(), r.prompt_ids.end());
      ids.insert(ids.end(), r.response_ids.begin(), r.response_ids.end());
      for (int64_t i = 0; i < n; ++i) {
        positions.push_back(i);
        targets.push_back(i + 1 < n ? ids[cu.back() + i + 1] : 0);
      }
      cu.push_back(cu.back() + n);
      members.push_back(next++);
    }
    const at::Tensor hidden = model.forward_packed(
        at::tensor(ids, at::kLong), at::tensor(positions, at::kLong), at::tensor(cu, at::kLong));
    const at::Tensor lp = chunked_logprob_entropy(hidden, model.lm_head_weight(),
                                                  at::tensor(targets, at::kLong), temperature,
                                                  /*with_entropy=*/false)
                              .logprobs.to(at::kCPU, at::kDouble);
    const double* v = lp.data_ptr<double>();
    for (size_t m = 0; m < members.size(); ++m) {
      const ScoreRequest& r = requests[members[m]];
      const int64_t first = cu[m] + static_cast<int64_t>(r.prompt_ids.size()) - 1;
      ScoreResult& out = results[members[m]];
      for (size_t i = 0; i < r.response_ids.size(); ++i) {
        out.logprobs.push_back(v[first + static_cast<int64_t>(i)]);
        out.sum += out.logprobs.back();
      }
    }
  }
  return results;
}

}  // namespace verlpp::model
