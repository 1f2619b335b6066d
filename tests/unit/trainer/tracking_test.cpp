#include "verlpp/trainer/tracking.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "verlpp/core/error.h"

namespace verlpp::trainer {
namespace {

TEST(Tracking, ConsoleLineHasVerlsShape) {
  const Metrics metrics = {{"critic/score/mean", 0.625},
                           {"actor/pg_loss", -0.0123456789},
                           {"response_length/max", 512.0}};
  EXPECT_EQ(format_console_line(metrics, 3),
            "step:3 - actor/pg_loss:-0.0123457 - critic/score/mean:0.625 - "
            "response_length/max:512");
}

TEST(Tracking, FileLineIsStepThenData) {
  const Metrics metrics = {{"b", 0.5}, {"a", 2.0}, {"nan", std::nan("")}};
  EXPECT_EQ(format_file_line(metrics, 7), R"({"step":7,"data":{"a":2.0,"b":0.5,"nan":null}})");
}

TEST(Tracking, FileLoggerAppendsToVerlsPath) {
  const auto root = std::filesystem::temp_directory_path() / "verlpp_tracking_test";
  std::filesystem::remove_all(root);
  setenv("VERL_FILE_LOGGER_ROOT", root.c_str(), 1);
  unsetenv("VERL_FILE_LOGGER_PATH");
  {
    Tracking tracking("proj", "exp", {"file"});
    tracking.log({{"x", 1.0}}, 1);
    tracking.log({{"x", 2.0}}, 2);
  }
  unsetenv("VERL_FILE_LOGGER_ROOT");
  std::ifstream in(root / "proj" / "exp.jsonl");
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(first, R"({"step":1,"data":{"x":1.0}})");
  EXPECT_EQ(second, R"({"step":2,"data":{"x":2.0}})");
  std::filesystem::remove_all(root);
}

TEST(Tracking, NetworkTrackersAreSkippedAndUnknownNamesRejected) {
  EXPECT_NO_THROW(Tracking("p", "e", {"wandb"}));
  try {
    Tracking("p", "e", {"consol"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("trainer.logger: unknown logger 'consol'"), std::string::npos);
    EXPECT_NE(message.find("console, file, tensorboard"), std::string::npos);
  }
}

}  // namespace
}  // namespace verlpp::trainer
