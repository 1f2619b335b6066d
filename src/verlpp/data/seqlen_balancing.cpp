#include "verlpp/data/seqlen_balancing.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

// verl's Set: a sum and its (index, value) items; ordered by sum, then size, then items.
struct Set {
  std::int64_t sum = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> items;

  bool operator<(const Set& o) const {
    if (sum != o.sum) return sum < o.sum;
    if (items.size() != o.items.size()) return items.size() < o.items.size();
    return items < o.items;
  }
};

bool set_greater(const Set& a, const Set& b) { return b < a; }

// verl's State: k sets kept in descending order. In the heap the state with the largest spread
// comes first; ties go to the larger first set.
struct State {
  std::vector<Set> sets;

  std::int64_t spread() const { return sets.front().sum - sets.back().sum; }

  void merge(State& other) {
    const std::size_t k = sets.size();
    for (std::size_t i = 0; i < k; ++i) {
      Set& from = other.sets[k - 1 - i];
      sets[i].sum += from.sum;
      sets[i].items.insert(sets[i].items.end(), from.items.begin(), from.items.end());
    }
    std::stable_sort(sets.begin(), sets.end(), set_greater);
  }
};

bool state_less(const State& a, const State& b) {
  if (a.spread() != b.spread()) return a.spread() > b.spread();
  return b.sets.front() < a.sets.front();
}

// CPython's heapq (heappush / heappop with _siftdown and _siftup), so that states which compare
// equal leave the heap in the same order as in verl.
class StateHeap {
 public:
  void push(State s) {
    heap_.push_back(std::move(s));
    sift_down(0, heap_.size() - 1);
  }

  State pop() {
    State last = std::move(heap_.back());
    heap_.pop_back();
    if (heap_.empty()) return last;
    State top = std::move(heap_.front());
    heap_.front() = std::move(last);
    sift_up(0);
    return top;
  }

  std::size_t size() const { return heap_.size(); }

 private:
  void sift_down(std::size_t start, std::size_t pos) {
    State item = std::move(heap_[pos]);
    while (pos > start) {
      const std::size_t parent = (pos - 1) >> 1;
      if (!state_less(item, heap_[parent])) break;
      heap_[pos] = std::move(heap_[parent]);
      pos = parent;
    }
    heap_[pos] = std::move(item);
  }

  void sift_up(std::size_t pos) {
    const std::size_t end = heap_.size(), start = pos;
    State item = std::move(heap_[pos]);
    std::size_t child = 2 * pos + 1;
    while (child < end) {
      const std::size_t right = child + 1;
      if (right < end && !state_less(heap_[child], heap_[right])) child = right;
      heap_[pos] = std::move(heap_[child]);
      pos = child;
      child = 2 * pos + 1;
    }
    heap_[pos] = std::move(item);
    sift_down(start, pos);
  }

  std::vector<State> heap_;
};

State initial_state(const std::vector<std::pair<std::int64_t, std::int64_t>>& sorted,
                    std::size_t first, std::size_t count, std::size_t k) {
  State s;
  s.sets.resize(k);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& [value, index] = sorted[first + i];
    s.sets[i].sum += value;
    s.sets[i].items.emplace_back(index, value);
  }
  std::stable_sort(s.sets.begin(), s.sets.end(), set_greater);
  return s;
}

}  // namespace

std::vector<std::int64_t> row_workloads(const std::vector<std::int64_t>& lengths) {
  std::vector<std::int64_t> out;
  out.reserve(lengths.size());
  for (const std::int64_t l : lengths) out.push_back(24576 * l + l * l);
  return out;
}

std::vector<std::vector<std::int64_t>> karmarkar_karp_partitions(
    const std::vector<std::int64_t>& values, std::int64_t k, bool equal_size) {
  if (k < 1) throw Error(fmt::format("balancing: {} partitions requested", k));
  const auto n = static_cast<std::int64_t>(values.size());
  if (equal_size && n % k != 0) {
    throw Error(fmt::format("balancing: {} rows cannot be split into {} equal partitions", n, k));
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> sorted;  // (value, index), ascending
  for (std::int64_t i = 0; i < n; ++i) sorted.emplace_back(values[i], i);
  std::sort(sorted.begin(), sorted.end());
  const auto parts = static_cast<std::size_t>(k);
  StateHeap heap;
  const std::size_t step = equal_size ? parts : 1;
  for (std::size_t offset = 0; offset < sorted.size(); offset += step) {
    heap.push(initial_state(sorted, offset, step, parts));
  }
  if (heap.size() == 0) return std::vector<std::vector<std::int64_t>>(parts);
  while (heap.size() > 1) {
    State first = heap.pop();
    State second = heap.pop();
    first.merge(second);
    heap.push(std::move(first));
  }
  const State final_state = heap.pop();
  std::vector<std::vector<std::int64_t>> out;
  for (const Set& set : final_state.sets) {
    std::vector<std::int64_t> indices;
    for (const auto& item : set.items) indices.push_back(item.first);
    std::sort(indices.begin(), indices.end());
    out.push_back(std::move(indices));
  }
  return out;
}

std::vector<std::int64_t> balanced_order(const std::vector<std::int64_t>& lengths,
                                         std::int64_t dp_size) {
  const std::vector<std::int64_t> workloads = row_workloads(lengths);
  std::vector<std::int64_t> order;
  for (auto partition : karmarkar_karp_partitions(workloads, dp_size, /*equal_size=*/true)) {
    std::sort(partition.begin(), partition.end(), [&](std::int64_t a, std::int64_t b) {
      return std::make_pair(workloads[a], a) < std::make_pair(workloads[b], b);
    });
    const auto n = static_cast<std::int64_t>(partition.size());
    for (std::int64_t i = 0; i < n; i += 2) order.push_back(partition[i]);
    for (std::int64_t i = n % 2 == 0 ? n - 1 : n - 2; i >= 1; i -= 2) order.push_back(partition[i]);
  }
  return order;
}

std::map<std::string, double> seqlen_unbalance_metrics(const std::vector<std::int64_t>& lengths,
                                                       const std::vector<std::int64_t>& order,
                                                       std::int64_t dp_size) {
  const std::size_t chunk = lengths.size() / static_cast<std::size_t>(dp_size);
  std::vector<double> before, after;
  double total = 0;
  for (std::size_t start = 0; start < lengths.size(); start += chunk) {
    double sum = 0, balanced = 0;
    for (std::size_t i = start; i < start + chunk; ++i) {
      sum += static_cast<double>(lengths[i]);
      balanced += static_cast<double>(lengths[order[i]]);
    }
    before.push_back(sum);
    after.push_back(balanced);
    total += sum;
  }
  const auto [min_before, max_before] = std::minmax_element(before.begin(), before.end());
  const auto [min_after, max_after] = std::minmax_element(after.begin(), after.end());
  return {{"global_seqlen/min", *min_before},
          {"global_seqlen/max", *max_before},
          {"global_seqlen/minmax_diff", *max_before - *min_before},
          {"global_seqlen/balanced_min", *min_after},
          {"global_seqlen/balanced_max", *max_after},
          {"global_seqlen/mean", total / static_cast<double>(dp_size)}};
}

}  // namespace verlpp::data
