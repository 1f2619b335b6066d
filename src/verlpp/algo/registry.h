// A name -> function table, as verl's register_* decorators build (ADV_ESTIMATOR_REGISTRY,
// POLICY_LOSS_REGISTRY, ...). Lookups of an unknown name throw verlpp::Error listing the valid
// names, so a configuration typo is reported with its alternatives.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "verlpp/core/error.h"

namespace verlpp::algo {

template <class Fn>
class Registry {
 public:
  // `key` is the configuration key the names come from (e.g. "algorithm.adv_estimator"), used in
  // error messages. `known_unsupported` are names verl accepts that verlpp does not implement;
  // asking for one says so instead of calling it unknown.
  explicit Registry(std::string key, std::vector<std::string> known_unsupported = {})
      : key_(std::move(key)), unsupported_(std::move(known_unsupported)) {}

  // Adds or replaces `name`.
  void add(const std::string& name, Fn fn) { entries_[name] = std::move(fn); }

  bool contains(const std::string& name) const { return entries_.count(name) > 0; }

  const Fn& get(const std::string& name) const {
    const auto it = entries_.find(name);
    if (it != entries_.end()) return it->second;
    for (const auto& u : unsupported_) {
      if (u == name) {
        throw Error(key_ + "='" + name + "' is a verl option that verlpp does not implement; " +
                    "implemented: " + joined_names());
      }
    }
    throw Error("unknown " + key_ + " '" + name + "'; valid: " + joined_names());
  }

  // Registered names, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, fn] : entries_) out.push_back(name);
    return out;
  }

  const std::string& key() const { return key_; }

 private:
  std::string joined_names() const {
    std::string out;
    for (const auto& [name, fn] : entries_) out += (out.empty() ? "" : ", ") + name;
    return out;
  }

  std::string key_;
  std::vector<std::string> unsupported_;
  std::map<std::string, Fn> entries_;
};

}  // namespace verlpp::algo
