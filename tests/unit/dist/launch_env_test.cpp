// The launch environment read from torchrun's and srun's variables (distributed.md §6.4).
#include "verlpp/dist/launch_env.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "verlpp/core/error.h"

namespace verlpp::dist {
namespace {

LaunchEnv read(const std::map<std::string, std::string>& vars) {
  return read_launch_env([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(LaunchEnv, NoVariablesIsOneProcess) {
  const LaunchEnv env = read({});
  EXPECT_FALSE(env.launched);
  EXPECT_EQ(env.rank, 0);
  EXPECT_EQ(env.world_size, 1);
}

TEST(LaunchEnv, TorchrunVariables) {
  const LaunchEnv env = read({{"RANK", "5"},
                              {"WORLD_SIZE", "8"},
                              {"LOCAL_RANK", "1"},
                              {"LOCAL_WORLD_SIZE", "4"},
                              {"GROUP_RANK", "1"},
                              {"MASTER_ADDR", "node0"},
                              {"MASTER_PORT", "29511"},
                              {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                              {"TORCHELASTIC_RESTART_COUNT", "2"}});
  EXPECT_TRUE(env.launched);
  EXPECT_EQ(env.source, "torchrun");
  EXPECT_EQ(read({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"VERLPP_LAUNCH", "1"}}).source,
            "verlpp launch");
  EXPECT_EQ(env.rank, 5);
  EXPECT_EQ(env.world_size, 8);
  EXPECT_EQ(env.local_rank, 1);
  EXPECT_EQ(env.local_world_size, 4);
  EXPECT_EQ(env.node_rank, 1);
  EXPECT_EQ(env.master_addr, "node0");
  EXPECT_EQ(env.master_port, 29511);
  EXPECT_TRUE(env.agent_store);
  EXPECT_EQ(env.restart_count, 2);
}

TEST(LaunchEnv, SrunStepVariables) {
  const LaunchEnv env = read({{"SLURM_PROCID", "9"},
                              {"SLURM_STEP_NUM_TASKS", "16"},
                              {"SLURM_LOCALID", "1"},
                              {"SLURM_STEP_TASKS_PER_NODE", "8(x2)"},
                              {"SLURM_NODEID", "1"},
                              {"MASTER_ADDR", "10.0.0.1"}});
  EXPECT_EQ(env.source, "slurm");
  EXPECT_EQ(env.rank, 9);
  EXPECT_EQ(env.world_size, 16);
  EXPECT_EQ(env.local_world_size, 8);
  EXPECT_EQ(env.node_rank, 1);
  EXPECT_EQ(env.master_port, 29500);
}

// Inside an sbatch script without srun (no step variables) a process is a world of one.
TEST(LaunchEnv, SbatchWithoutSrunIsOneProcess) {
  EXPECT_FALSE(read({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "16"}}).launched);
}

void expect_error(const std::map<std::string, std::string>& vars, const std::string& needle) {
  try {
    read(vars);
    ADD_FAILURE() << "no error; expected one mentioning " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(LaunchEnv, BadValuesNameTheVariable) {
  expect_error({{"RANK", "0"}}, "WORLD_SIZE");
  expect_error({{"RANK", "x"}, {"WORLD_SIZE", "2"}}, "RANK='x'");
  expect_error({{"RANK", "2"}, {"WORLD_SIZE", "2"}}, "RANK=2 is outside [0, WORLD_SIZE=2)");
  expect_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "70000"}}, "MASTER_PORT=70000");
  expect_error({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "2"}, {"LOCAL_WORLD_SIZE", "2"}},
               "LOCAL_RANK=2");
  expect_error({{"SLURM_PROCID", "0"},
                {"SLURM_STEP_NUM_TASKS", "16"},
                {"SLURM_STEP_TASKS_PER_NODE", "8(x2)"}},
               "MASTER_ADDR");
}

}  // namespace
}  // namespace verlpp::dist
