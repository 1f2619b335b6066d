// `verlpp tokenize`: shows the token ids the trainer sees. Reads standard input one item per line
// and prints each item's ids as a JSON array on one line.
//   plain:        each line is a text (use --json-lines for JSON string literals, which can hold
//                 newlines and special characters)
//   --chat:       each line is a JSON array of messages, or {"messages": [...], "tools": [...]};
//                 rendered with the tokenizer's chat template (--add-generation-prompt,
//                 --context '{"enable_thinking": false}') and then encoded
//   --chat-template FILE: use this Jinja template instead of the tokenizer's
//   --show-text:  also print the text that was encoded (chat: the rendered prompt), as a JSON
//                 string line before the ids
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "commands.h"
#include "verlpp/config/model_folder.h"
#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_parse.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::apps {
namespace {

struct TokenizeOptions {
  std::string tokenizer_dir;
  bool chat = false;
  bool json_lines = false;
  bool add_generation_prompt = false;
  bool show_text = false;
  std::string context = "{}";
  std::string chat_template_file;
};

tokenizer::OrderedJson parse_line(const std::string& line, std::size_t number, const char* what) {
  try {
    return parse_json<tokenizer::OrderedJson>(line);
  } catch (const nlohmann::json::exception& e) {
    const std::string where =
        number == 0 ? std::string("--context") : "standard input line " + std::to_string(number);
    throw Error(where + ": expected " + what + ": " + e.what());
  }
}

std::string item_text(const tokenizer::Tokenizer& tok, const TokenizeOptions& options,
                      const std::optional<tokenizer::ChatTemplate>& custom,
                      const tokenizer::ChatTemplateOptions& chat, const std::string& line,
                      std::size_t number) {
  if (!options.chat) {
    if (!options.json_lines) return line;
    const auto value = parse_line(line, number, "a JSON string");
    if (!value.is_string()) {
      throw Error("standard input line " + std::to_string(number) + ": expected a JSON string");
    }
    return value.get<std::string>();
  }
  const auto value = parse_line(line, number, "a JSON array of messages");
  tokenizer::ChatTemplateOptions item = chat;
  const bool wrapped = value.is_object() && value.contains("messages");
  if (!wrapped && !value.is_array()) {
    throw Error("standard input line " + std::to_string(number) +
                ": expected a JSON array of messages or {\"messages\": [...]}");
  }
  if (wrapped && value.contains("tools")) item.tools = value["tools"];
  const auto& messages = wrapped ? value["messages"] : value;
  return custom ? tok.apply_chat_template(*custom, messages, item)
                : tok.apply_chat_template(messages, item);
}

int run_tokenize(const TokenizeOptions& options) {
  const auto tok = tokenizer::Tokenizer::from_directory(options.tokenizer_dir);
  tokenizer::ChatTemplateOptions chat;
  chat.add_generation_prompt = options.add_generation_prompt;
  chat.extra_context = parse_line(options.context, 0, "a JSON object");
  if (!chat.extra_context.is_object()) throw Error("--context: expected a JSON object");
  std::optional<tokenizer::ChatTemplate> custom;
  if (!options.chat_template_file.empty()) {
    custom.emplace(read_text_file(options.chat_template_file, "chat template"),
                   options.chat_template_file);
  }
  std::string line;
  std::size_t number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r' && options.chat) line.pop_back();
    const std::string text = item_text(tok, options, custom, chat, line, number);
    try {
      const auto ids = tok.encode(text);
      if (options.show_text) std::cout << tokenizer::OrderedJson(text).dump() << "\n";
      std::cout << nlohmann::json(ids).dump() << "\n";
    } catch (const Error& e) {
      throw Error("standard input line " + std::to_string(number) + ": " + e.what());
    }
  }
  return 0;
}

}  // namespace

Command add_tokenize_command(CLI::App& app) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tokenize", "print the token ids of each line of standard input (text or chat messages)");
  cmd->add_option("--tokenizer", options->tokenizer_dir,
                  "directory with tokenizer.json (and tokenizer_config.json)")
      ->required()
      ->check(config::hf_folder_error);
  cmd->add_flag("--chat", options->chat,
                "lines are JSON chat messages rendered with the chat template");
  cmd->add_flag("--json-lines", options->json_lines, "lines are JSON string literals");
  cmd->add_flag("--add-generation-prompt", options->add_generation_prompt,
                "--chat: end with the assistant turn header");
  cmd->add_option("--context", options->context,
                  "--chat: extra template variables as a JSON object, e.g. "
                  "'{\"enable_thinking\": false}'");
  cmd->add_option("--chat-template", options->chat_template_file,
                  "--chat: a Jinja chat template file to use instead of the tokenizer's");
  cmd->add_flag("--show-text", options->show_text, "also print the encoded text as JSON");
  return {cmd, [options] { return run_tokenize(*options); }};
}

}  // namespace verlpp::apps
