#include "verlpp/algo/rollout_correction_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

const std::string kKey = "algorithm.rollout_correction";
constexpr std::array kRejectionOptions = {"token_k1",    "token_k2",   "token_k3",    "seq_sum_k1",
                                          "seq_sum_k2",  "seq_sum_k3", "seq_mean_k1", "seq_mean_k2",
                                          "seq_mean_k3", "seq_max_k2", "seq_max_k3"};

bool is_k1(const std::string& option) {
  return option.size() >= 2 && option.compare(option.size() - 2, 2, "k1") == 0;
}

// The non-empty, space-trimmed parts of `text` between separators.
std::vector<std::string> split_trimmed(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) {
    const auto first = part.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    out.push_back(part.substr(first, part.find_last_not_of(" \t") - first + 1));
  }
  return out;
}

double positive_number(const std::string& text, const std::string& option) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    throw Error(fmt::format("{}.rollout_rs_threshold: '{}' for option {} is not a number", kKey,
                            text, option));
  }
  if (value <= 0.0) {
    throw Error(
        fmt::format("{}.rollout_rs_threshold: the threshold of option {} must be > 0, got {}", kKey,
                    option, text));
  }
  return value;
}

RejectionOption option_bounds(const std::string& option, const std::string& spec) {
  RejectionOption out{option, std::nullopt, 0.0};
  const auto underscore = spec.find('_');
  if (!is_k1(option)) {
    if (underscore != std::string::npos) {
      throw Error(fmt::format(
          "{}.rollout_rs_threshold: option {} takes one upper bound, got '{}' ('lower_upper' is "
          "for the k1 options)",
          kKey, option, spec));
    }
    out.upper = positive_number(spec, option);
    return out;
  }
  if (underscore == std::string::npos) {
    out.upper = positive_number(spec, option);
    out.lower = 1.0 / out.upper;
  } else {
    out.lower = positive_number(spec.substr(0, underscore), option);
    out.upper = positive_number(spec.substr(underscore + 1), option);
  }
  return out;
}

}  // namespace

std::vector<RejectionOption> parse_rejection_options(const std::string& rollout_rs,
                                                     const std::optional<std::string>& threshold) {
  std::vector<std::string> names;
  for (const std::string& name : split_trimmed(rollout_rs, ',')) {
    if (std::find(kRejectionOptions.begin(), kRejectionOptions.end(), name) ==
        kRejectionOptions.end()) {
      throw Error(fmt::format("{}.rollout_rs: unknown option '{}'; valid: {}", kKey, name,
                              fmt::join(kRejectionOptions, ", ")));
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty()) throw Error(kKey + ".rollout_rs: no option given (e.g. token_k1)");
  if (!threshold) {
    throw Error(kKey +
                ".rollout_rs_threshold: needed when rollout_rs is set (e.g. 0.5_2.0 for "
                "the k1 options, 0.01 for k2/k3)");
  }
  std::vector<std::string> specs = split_trimmed(*threshold, ',');
  if (specs.size() != 1 && specs.size() != names.size()) {
    throw Error(
        fmt::format("{}.rollout_rs_threshold: {} thresholds for {} rollout_rs options; "
                    "give one shared threshold or one per option",
                    kKey, specs.size(), names.size()));
  }
  std::vector<RejectionOption> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out.push_back(option_bounds(names[i], specs[specs.size() == 1 ? 0 : i]));
  }
  return out;
}

void validate_rollout_correction(const RolloutCorrectionConfig& c) {
  if (c.rollout_is && *c.rollout_is != "token" && *c.rollout_is != "sequence") {
    throw Error(fmt::format("{}.rollout_is: unknown value '{}'; valid: token, sequence, null", kKey,
                            *c.rollout_is));
  }
  if (!(c.rollout_is_threshold > 0.0) || !std::isfinite(c.rollout_is_threshold)) {
    throw Error(fmt::format("{}.rollout_is_threshold: must be a positive number, got {}", kKey,
                            c.rollout_is_threshold));
  }
  if (c.rollout_rs) parse_rejection_options(*c.rollout_rs, c.rollout_rs_threshold);
  if (c.loss_type != "ppo_clip" && c.loss_type != "reinforce") {
    throw Error(fmt::format("{}.loss_type: unknown value '{}'; valid: ppo_clip, reinforce", kKey,
                            c.loss_type));
  }
}

}  // namespace verlpp::algo
