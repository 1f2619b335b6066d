#include "verlpp/reward/custom_reward.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <exception>
#include <filesystem>

#include "verlpp/core/error.h"
#include "verlpp/core/utf8.h"

namespace verlpp::reward {
namespace {

std::string last_dl_error() {
  const char* message = dlerror();
  return message ? message : "unknown error";
}

}  // namespace

CustomRewardFunction::CustomRewardFunction(const std::string& path, const std::string& name)
    : path_(path), name_(name) {
  if (path.ends_with(".py")) {
    throw Error(fmt::format(
        "reward.custom_reward_function.path: '{}' is a Python file; verlpp loads custom rewards "
        "from a shared library (.so) exporting an extern \"C\" function (see "
        "src/verlpp/reward/verlpp_reward_abi.h)",
        path));
  }
  // verl's path is a file (from the working directory); dlopen would search the library path for
  // a name without '/', so the path is made absolute first.
  handle_ = dlopen(std::filesystem::absolute(path).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    throw Error(fmt::format("reward.custom_reward_function.path: cannot load '{}': {}", path,
                            last_dl_error()));
  }
  if (void* version = dlsym(handle_, "verlpp_reward_abi_version")) {
    const int got = reinterpret_cast<verlpp_reward_abi_version_fn>(version)();
    if (got != VERLPP_REWARD_ABI_VERSION) {
      dlclose(handle_);
      throw Error(fmt::format("{}: verlpp_reward_abi_version() returned {}, this verlpp expects {}",
                              path, got, VERLPP_REWARD_ABI_VERSION));
    }
  }
  named_ =
      reinterpret_cast<verlpp_compute_score_named_fn>(dlsym(handle_, (name + "_named").c_str()));
  if (!named_) fn_ = reinterpret_cast<verlpp_compute_score_fn>(dlsym(handle_, name.c_str()));
  if (!fn_ && !named_) {
    dlclose(handle_);
    throw Error(fmt::format(
        "reward.custom_reward_function.name: '{}' has no symbol '{}' or '{}_named' (declare it "
        "extern \"C\" with a signature in verlpp_reward_abi.h)",
        path, name, name));
  }
}

CustomRewardFunction::~CustomRewardFunction() { dlclose(handle_); }

ScoreResult CustomRewardFunction::call_named(const std::string& source, const std::string& solution,
                                             const std::string& truth,
                                             const std::string& extra) const {
  std::array<const char*, VERLPP_REWARD_MAX_NAMED> names{};
  std::array<double, VERLPP_REWARD_MAX_NAMED> values{};
  const int count = named_(source.c_str(), solution.c_str(), truth.c_str(), extra.c_str(),
                           names.data(), values.data(), VERLPP_REWARD_MAX_NAMED);
  const std::string who = fmt::format("custom reward '{}_named' in '{}'", name_, path_);
  if (count < 0 || count > VERLPP_REWARD_MAX_NAMED) {
    throw Error(fmt::format("{} returned {} (failure, or more than {} values) for data_source '{}'",
                            who, count, VERLPP_REWARD_MAX_NAMED, utf8::excerpt(source)));
  }
  ScoreResult result;
  result.score = std::nan("");
  for (int i = 0; i < count; ++i) {
    if (names[i] == nullptr) {
      throw Error(fmt::format("{} gave value {} without a name for data_source '{}'", who, i,
                              utf8::excerpt(source)));
    }
    const auto [it, added] = result.extra.emplace(names[i], values[i]);
    if (!added) {
      throw Error(fmt::format("{} gave \"{}\" twice (values {} and {}) for data_source '{}'", who,
                              utf8::excerpt(names[i]), it->second, values[i],
                              utf8::excerpt(source)));
    }
    if (std::string_view(names[i]) == "score") result.score = values[i];
  }
  if (result.extra.count("score") == 0) {
    throw Error(fmt::format("{} gave no \"score\" among its {} values for data_source '{}'", who,
                            count, utf8::excerpt(source)));
  }
  for (const auto& [key, value] : result.extra) {
    if (!std::isfinite(value)) {
      throw Error(
          fmt::format("{} returned {} for '{}' with data_source '{}' (values must be finite)", who,
                      value, utf8::excerpt(key), utf8::excerpt(source)));
    }
  }
  return result;
}

ScoreResult CustomRewardFunction::operator()(std::string_view data_source,
                                             std::string_view solution_str,
                                             std::string_view ground_truth,
                                             const nlohmann::json& extra_info) const {
  const std::string source(data_source), solution(solution_str), truth(ground_truth);
  const std::string extra = extra_info.is_null() ? "{}" : extra_info.dump();
  ScoreResult result;
  try {
    if (named_) {
      result = call_named(source, solution, truth, extra);
    } else {
      result.score = fn_(source.c_str(), solution.c_str(), truth.c_str(), extra.c_str());
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(fmt::format("custom reward '{}' in '{}' threw for data_source '{}': {}", name_,
                            path_, data_source, e.what()));
  } catch (...) {
    throw Error(fmt::format("custom reward '{}' in '{}' threw an exception for data_source '{}'",
                            name_, path_, data_source));
  }
  if (std::isnan(result.score)) {
    throw Error(
        fmt::format("custom reward '{}' in '{}' returned NaN (failure) for data_source '{}'", name_,
                    path_, data_source));
  }
  if (std::isinf(result.score)) {
    throw Error(fmt::format(
        "custom reward '{}' in '{}' returned {} for data_source '{}' (a reward must be finite)",
        name_, path_, result.score, data_source));
  }
  return result;
}

}  // namespace verlpp::reward
