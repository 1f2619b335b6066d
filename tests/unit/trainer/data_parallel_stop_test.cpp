// generate_on_ranks with a StopCheck on two real ranks (Gloo, CPU): a stop on one rank only ends
// the call on both with rollout::GenerationStopped: the other sees the stopped rank's flag in the
// store at its 8th check and abandons its share (bt19 B1: it generated all of it first), and no
// rank waits in the result's all-gather for one that left; without a stop both get the whole
// batch.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "../dist/two_ranks.h"
#include "verlpp/trainer/data_parallel.h"

namespace verlpp::trainer {
namespace {

model::CausalLM tiny_model() {
  return model::CausalLM::from_pretrained(
      std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model/qwen3_tied", at::kFloat,
      at::Device(at::kCPU));
}

// Four prompts of 3 tokens, left-padded layout as data::RLHFDataset::collate gives it.
data::Batch prompts() {
  const at::Tensor ids = at::arange(1, 13, at::kLong).view({4, 3});
  data::Batch batch;
  batch.set_tensor("input_ids", ids);
  batch.set_tensor("attention_mask", at::ones_like(ids));
  batch.set_tensor("position_ids", at::arange(3, at::kLong).repeat({4, 1}));
  return batch;
}

rollout::SamplingParams greedy(std::int64_t response_length = 5) {
  rollout::SamplingParams p;
  p.do_sample = false;
  p.temperature = 0;
  p.max_response_length = response_length;
  p.ignore_eos = true;
  return p;
}

TEST(GenerateOnRanks, AStopOnOneRankStopsBoth) {
  if (!dist::Communicator::backend_available(at::Device(at::kCPU))) GTEST_SKIP() << "no Gloo";
  dist::test_ranks::run_two_ranks(
      [](const dist::Communicator& world) {
        int asked = 0;
        // Slow steps (20 ms each), so that rank 1 has raised its flag by the 8th.
        const rollout::StopCheck never = [&asked] {
          ++asked;
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
          return false;
        };
        const model::CausalLM m = tiny_model();
        world.barrier();
        EXPECT_THROW(generate_on_ranks(m, prompts(), greedy(40), 3, world, 0, never),
                     rollout::GenerationStopped);
        EXPECT_EQ(asked, 8);  // of its 40 steps
      },
      [](const dist::Communicator& world) {
        const rollout::StopCheck at_once = [] { return true; };
        const model::CausalLM m = tiny_model();
        world.barrier();
        EXPECT_THROW(generate_on_ranks(m, prompts(), greedy(40), 3, world, 0, at_once),
                     rollout::GenerationStopped);
      });
}

TEST(GenerateOnRanks, ACheckThatNeverStopsGivesTheWholeBatch) {
  if (!dist::Communicator::backend_available(at::Device(at::kCPU))) GTEST_SKIP() << "no Gloo";
  const at::Tensor alone =
      generate_on_ranks(tiny_model(), prompts(), greedy(), 3, dist::Communicator())
          .tensor("responses");
  dist::test_ranks::run_both([&alone](const dist::Communicator& world) {
    const rollout::StopCheck never = [] { return false; };
    const data::Batch out =
        generate_on_ranks(tiny_model(), prompts(), greedy(), 3, world, 0, never);
    EXPECT_TRUE(at::equal(out.tensor("responses"), alone));
  });
}

}  // namespace
}  // namespace verlpp::trainer
