#include "verlpp/reward/custom_reward.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cmath>
#include <exception>

#include "verlpp/core/error.h"

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
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
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
  fn_ = reinterpret_cast<verlpp_compute_score_fn>(dlsym(handle_, name.c_str()));
  if (!fn_) {
    dlclose(handle_);
    throw Error(fmt::format(
        "reward.custom_reward_function.name: '{}' has no symbol '{}' (declare it extern \"C\" "
        "with the signature in verlpp_reward_abi.h)",
        path, name));
  }
}

CustomRewardFunction::~CustomRewardFunction() { dlclose(handle_); }

ScoreResult CustomRewardFunction::operator()(std::string_view data_source,
                                             std::string_view solution_str,
                                             std::string_view ground_truth,
                                             const nlohmann::json& extra_info) const {
  const std::string source(data_source), solution(solution_str), truth(ground_truth);
  const std::string extra = extra_info.is_null() ? "{}" : extra_info.dump();
  ScoreResult result;
  try {
    result.score = fn_(source.c_str(), solution.c_str(), truth.c_str(), extra.c_str());
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
