// The keys a user set (a config file or an override) that no verlpp binder reads and whose value
// differs from verl's default: settings that would otherwise have no effect without a word
// (e.g. algorithm.rollout_correction.rollout_is=token). `verlpp check` and every run refuse them,
// except the training engines' own implementation settings (a part named megatron, fsdp_config,
// fsdp or override_optimizer_config, or the entropy chunking / checkpointing switches: verlpp's
// engine lays out, offloads and chunks by itself, with the same math), which are reported as
// accepted but ignored.
#pragma once

#include <string>
#include <vector>

#include "verlpp/config/interpolate.h"
#include "verlpp/config/node.h"
#include "verlpp/config/section.h"

namespace verlpp::config {

struct UnreadKey {
  std::string key;
  std::string value;            // the user's, described ("a string 'token'")
  std::string default_value;    // verl's default, described, or "absent"
  bool engine_setting = false;  // a Megatron/FSDP implementation setting: reported, not refused
};

// `user_keys` in order, without duplicates, keeping those that neither the binders read (`reads`:
// the key, one of its parents or one of its children), nor ignored.h lists, nor hold `defaults`'s
// value (same kind and value; integers equal to reals count as equal). A map set over a map
// default (an override `a={b:1}`, merged) is reported by its entries that differ, a.b.
std::vector<UnreadKey> unread_keys(const std::vector<std::string>& user_keys, const KeyReads& reads,
                                   const Node& root, const Node& defaults);

// `reads` plus every key whose value reached a read key through interpolations (a chain of them),
// so that a key a config refers to with ${...} counts as read where its value is.
KeyReads reads_through_interpolations(KeyReads reads, const std::vector<InterpolationEdge>& edges);

}  // namespace verlpp::config
