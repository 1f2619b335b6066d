// `verlpp data gsm8k`: write verl-schema GSM8K train/test files (JSONL, and Parquet where built).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "verlpp/data/gsm8k_preprocess.h"
#include "verlpp/data/parquet_io.h"

namespace verlpp::apps {

Command add_data_command(CLI::App& app) {
  struct Options {
    std::string input;
    std::string output;
    bool no_parquet = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* data = app.add_subcommand("data", "prepare datasets in verl's row schema");
  data->require_subcommand(1);
  CLI::App* gsm8k = data->add_subcommand(
      "gsm8k",
      "raw GSM8K (INPUT/{train,test}.jsonl with question/answer) -> verl-schema "
      "OUTPUT/{train,test}.jsonl, and .parquet when this build has Parquet support");
  gsm8k->add_option("--input", options->input, "directory with raw train.jsonl and test.jsonl")
      ->required();
  gsm8k->add_option("--output", options->output, "directory to write")->required();
  gsm8k->add_flag("--no-parquet", options->no_parquet, "write JSONL only");
  return {
      data, [options] {
        const bool parquet = !options->no_parquet && data::parquet_supported();
        for (const auto& file : data::preprocess_gsm8k(options->input, options->output, parquet)) {
          std::cout << "wrote " << file << "\n";
        }
        if (!options->no_parquet && !parquet) {
          std::cout << "note: this build has no Parquet support; wrote JSONL only (verlpp "
                       "trains from JSONL as well)\n";
        }
        return 0;
      }};
}

}  // namespace verlpp::apps
