// Chat-template parity with transformers' apply_chat_template (rendered text and ids) for the
// Qwen3 template of the real tokenizer and the Qwen2.5 and Llama 3 / 3.1 templates
// (tests/fixtures/tokenizers/qwen3_chat.jsonl, made by tools/make_tokenizer_fixture.py).
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "fixtures.h"
#include "verlpp/core/error.h"

namespace verlpp::tokenizer::testing {
namespace {

const ChatTemplate& template_named(const std::string& name) {
  static std::map<std::string, ChatTemplate> cache;
  if (const auto it = cache.find(name); it != cache.end()) return it->second;
  if (name == "qwen3") return cache.emplace(name, *qwen3().chat_template()).first->second;
  std::ifstream in(fixture_dir() / "templates" / (name + ".jinja"));
  std::stringstream source;
  source << in.rdbuf();
  return cache.emplace(name, ChatTemplate(source.str(), name)).first->second;
}

TEST(ChatTemplateParity, RenderedTextAndIdsMatchTransformers) {
  const auto rows = read_jsonl(fixture_dir() / "qwen3_chat.jsonl");
  ASSERT_GE(rows.size(), 50u) << "fixture missing or too small";
  std::map<std::string, int> per_template;
  for (const auto& row : rows) {
    const auto name = row["template"].get<std::string>();
    ChatTemplateOptions options;
    options.add_generation_prompt = row["add_generation_prompt"].get<bool>();
    options.tools = row["tools"];
    options.extra_context = row["kwargs"];
    const std::string where = name + " " + row["messages"].dump().substr(0, 120) +
                              " agp=" + std::to_string(options.add_generation_prompt) + " " +
                              row["kwargs"].dump();
    if (row.contains("error")) {
      // The template itself raises (raise_exception): the message must come through.
      const auto message = row["error"].get<std::string>();
      const auto expected = message.substr(message.find(": ") + 2);
      try {
        qwen3().apply_chat_template(template_named(name), row["messages"], options);
        ADD_FAILURE() << where << ": expected error " << message;
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      }
      continue;
    }
    const auto text = qwen3().apply_chat_template(template_named(name), row["messages"], options);
    EXPECT_EQ(text, row["text"].get<std::string>()) << where;
    EXPECT_EQ(qwen3().encode(text), row["ids"].get<std::vector<std::int32_t>>()) << where;
    ++per_template[name];
  }
  EXPECT_GE(per_template["qwen3"], 50);
  EXPECT_GE(per_template["qwen2.5-instruct"], 20);
  EXPECT_GE(per_template["llama3.1-instruct"], 10);
  EXPECT_GE(per_template["llama3-instruct"], 4);
}

}  // namespace
}  // namespace verlpp::tokenizer::testing
