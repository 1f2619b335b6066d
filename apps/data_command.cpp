// `verlpp data gsm8k` and `verlpp data geo3k`: write verl-schema train/test files (JSONL, and
// Parquet where built); geo3k from the public dataset's files or as a generated stand-in.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "verlpp/core/error.h"
#include "verlpp/data/geo3k_preprocess.h"
#include "verlpp/data/geo3k_standin.h"
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
  auto geo = std::make_shared<Options>();
  auto standin = std::make_shared<data::Geo3kStandinOptions>();
  CLI::App* geo3k = data->add_subcommand(
      "geo3k",
      "hiyouga/geometry3k (INPUT/{train,test}[-*].parquet or .jsonl with problem/answer/images) "
      "-> verl-schema OUTPUT/{train,test}.jsonl with the images as files, and .parquet when "
      "this build has Parquet support; or, with --standin, generated diagrams in the same schema "
      "(JSONL only)");
  auto* geo_input = geo3k->add_option("--input", geo->input, "the public dataset's files");
  geo3k->add_option("--output", geo->output, "directory to write")->required();
  auto* geo_no_parquet = geo3k->add_flag("--no-parquet", geo->no_parquet, "write JSONL only");
  auto draw = std::make_shared<bool>(false);
  auto* geo_standin =
      geo3k->add_flag("--standin", *draw, "draw a stand-in dataset instead (cairo)");
  geo_input->excludes(geo_standin);
  geo_no_parquet->excludes(geo_standin);
  geo3k->add_option("--train-rows", standin->train_rows, "--standin: training rows")
      ->default_val(64);
  geo3k->add_option("--test-rows", standin->test_rows, "--standin: test rows")->default_val(16);
  geo3k->add_option("--seed", standin->seed, "--standin: the drawing's seed")->default_val(0);
  geo3k->add_option("--kinds", standin->kinds, "--standin: question kinds, of count, angle, area")
      ->delimiter(',');
  geo3k->add_option("--max-count", standin->max_count, "--standin: most circles to count")
      ->default_val(5);
  return {
      data, [options, geo, standin, geo3k, draw] {
        if (geo3k->parsed()) {
          std::vector<std::string> files;
          if (*draw) {
            files = data::write_geo3k_standin(geo->output, *standin);
          } else if (geo->input.empty()) {
            throw Error("verlpp data geo3k: give --input DIR (the public dataset) or --standin");
          } else {
            files = data::preprocess_geo3k(geo->input, geo->output,
                                           !geo->no_parquet && data::parquet_supported());
          }
          for (const auto& file : files) std::cout << "wrote " << file << "\n";
          return 0;
        }
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
