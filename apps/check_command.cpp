// `verlpp check`: resolve and validate a configuration and its parallel layout; run nothing.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <utility>

#include "commands.h"
#include "config_options.h"
#include "verlpp/config/check.h"
#include "verlpp/config/sft_sections.h"
#include "verlpp/config/yaml_io.h"

namespace verlpp::apps {

namespace {

struct Options {
  config::ConfigRequest request;
  bool print_config = true;
};

// An SFT config (sft_trainer): `verlpp sft`'s checks, without a layout (SFT's ranks are the run's).
int check_sft(const Options& options, config::ComposedConfig composed) {
  const config::SftCheckReport report =
      config::check_sft_config(options.request, std::move(composed));
  if (options.print_config) std::cout << config::to_yaml(report.composed.root);
  std::cout << fmt::format("== sft config: {}\n", report.composed.origin)
            << config::format_ignored(report.ignored) << config::format_findings(report.findings);
  return config::no_errors(report.findings) ? 0 : 1;
}

}  // namespace

Command add_check_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  CLI::App* check = app.add_subcommand(
      "check", "resolve and validate a config and its parallel layout; run nothing");
  add_config_options(*check, options->request);
  check->add_flag("!--no-print-config", options->print_config,
                  "print only the layout and the findings");
  return {check, [options] {
            config::ComposedConfig composed = config::compose_config(options->request);
            if (config::is_sft_config(composed)) return check_sft(*options, std::move(composed));
            const auto report = config::check_config(options->request, std::move(composed));
            if (options->print_config) std::cout << config::to_yaml(report.composed.root);
            std::cout << config::format_report(report);
            return report.valid() ? 0 : 1;
          }};
}

}  // namespace verlpp::apps
