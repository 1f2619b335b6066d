// The rollout section's sampling keys and val_kwargs as the rollout's SamplingParams
// (trainer/sampling_settings.h), and the keys it refuses.
#include "verlpp/trainer/sampling_settings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/core/error.h"

namespace verlpp::trainer {
namespace {

TEST(SamplingSettings, FromTheRolloutSection) {
  config::RolloutConfig r;
  r.response_length = 16;
  r.sampling.temperature = 0.9;
  r.sampling.top_k = 50;
  r.val_kwargs.temperature = 0.0;
  r.val_kwargs.do_sample = false;
  r.ignore_eos = true;
  r.max_num_seqs = 64;
  const rollout::SamplingParams train = sampling_settings(r, false, {2, 5}, 0);
  EXPECT_EQ(train.max_num_seqs, 64);
  EXPECT_EQ(train.temperature, 0.9);
  EXPECT_EQ(train.top_k, 50);
  EXPECT_EQ(train.max_response_length, 16);
  EXPECT_TRUE(train.ignore_eos);
  EXPECT_EQ(train.eos_token_ids, (std::vector<int32_t>{2, 5}));
  EXPECT_TRUE(train.use_cuda_graph);
  r.enforce_eager = true;
  EXPECT_FALSE(sampling_settings(r, false, {}, 0).use_cuda_graph);
  const rollout::SamplingParams val = sampling_settings(r, true, {2}, 0);
  EXPECT_EQ(val.temperature, 0.0);
  EXPECT_FALSE(val.do_sample);
  r.sampling.top_p = 0.0;
  EXPECT_THROW(sampling_settings(r, false, {}, 0), Error);
  r.sampling.top_p = 1.0;
  r.response_length = 0;
  EXPECT_THROW(sampling_settings(r, false, {}, 0), Error);
  r.response_length = 8;
  r.sampling.temperature = std::nan("");
  EXPECT_THROW(sampling_settings(r, false, {}, 0), Error);
  r.sampling.temperature = 1.0;
  EXPECT_TRUE(sampling_settings(r, false, {}, 0).enable_prefix_caching);
  r.enable_prefix_caching = false;
  EXPECT_FALSE(sampling_settings(r, false, {}, 0).enable_prefix_caching);
  for (const std::int64_t bad : {0, -1}) {
    r.max_num_seqs = bad;
    EXPECT_THROW(sampling_settings(r, false, {}, 0), Error) << bad;
  }
  r.max_num_seqs = 8;
  EXPECT_EQ(sampling_settings(r, false, {}, 0).gpu_memory_utilization, 0.5);  // verl's default
  r.gpu_memory_utilization = 0.9;
  EXPECT_EQ(sampling_settings(r, false, {}, 0).gpu_memory_utilization, 0.9);
  for (const double bad : {0.0, -0.5, 1.5, std::nan("")}) {
    r.gpu_memory_utilization = bad;
    try {
      sampling_settings(r, false, {}, 0);
      ADD_FAILURE() << "accepted gpu_memory_utilization " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("rollout.gpu_memory_utilization"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace verlpp::trainer
