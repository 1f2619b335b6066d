// Metrics returned by the algorithm functions: verl's metric names without the "actor/" or
// "critic/" prefix that verl's trainer adds (pg_loss, pg_clipfrac, ppo_kl, pg_clipfrac_lower,
// vf_loss, ...; verl.md §7.6), as plain numbers.
#pragma once

#include <map>
#include <string>

namespace verlpp::algo {

using Metrics = std::map<std::string, double>;

}  // namespace verlpp::algo
