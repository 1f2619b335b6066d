// `verlpp reward`: score one response read from standard input and print why it got its reward.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "verlpp/core/error.h"
#include "verlpp/core/json_parse.h"
#include "verlpp/reward/dispatch.h"

namespace verlpp::apps {
namespace {

nlohmann::json parse_extra_info(const std::string& text) {
  if (text.empty()) return nlohmann::json::object();
  try {
    auto parsed = parse_json<nlohmann::json>(text);
    if (!parsed.is_object()) throw Error("--extra-info: expected a JSON object, got " + text);
    return parsed;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("--extra-info: not valid JSON: ") + e.what());
  }
}

}  // namespace

Command add_reward_command(CLI::App& app) {
  struct Options {
    std::string data_source;
    std::string ground_truth;
    std::string extra_info;
    reward::ScorerConfig scorer;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "reward",
      "score one response read from standard input; prints {\"score\": ..., \"extracted\": ...}");
  cmd->add_option("--data-source", options->data_source, "the row's data_source (picks the scorer)")
      ->required();
  cmd->add_option("--ground-truth", options->ground_truth, "reward_model.ground_truth")->required();
  cmd->add_option("--extra-info", options->extra_info, "the row's extra_info as a JSON object");
  cmd->add_flag("--verl-compat", options->scorer.rules.verl_compat,
                "score exactly as verl's rule extraction does, known mis-scores included "
                "(config: +reward.reward_kwargs.verl_compat=true)");
  cmd->add_option("--custom-path", options->scorer.custom_path,
                  "shared library with a custom reward (reward.custom_reward_function.path)");
  cmd->add_option("--custom-name", options->scorer.custom_name,
                  "its function name (reward.custom_reward_function.name)")
      ->capture_default_str();
  return {cmd, [options] {
            const nlohmann::json extra_info = parse_extra_info(options->extra_info);
            const reward::Scorer scorer(options->scorer);
            const std::string response{std::istreambuf_iterator<char>(std::cin),
                                       std::istreambuf_iterator<char>()};
            if (std::cin.bad() || std::ferror(stdin)) {
              throw Error("reward: cannot read the response from standard input");
            }
            const auto result =
                scorer(options->data_source, response, options->ground_truth, extra_info);
            nlohmann::ordered_json out;
            out["score"] = result.score;
            out["extracted"] = result.extracted ? nlohmann::ordered_json(*result.extracted)
                                                : nlohmann::ordered_json(nullptr);
            // Invalid UTF-8 in the response reaches `extracted`: written as U+FFFD, as Python's
            // decoding would show it, rather than failing the dump.
            std::cout << out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                      << "\n";
            return 0;
          }};
}

}  // namespace verlpp::apps
