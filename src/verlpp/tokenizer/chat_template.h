// Chat templates: an interpreter for the subset of Jinja2 that Hugging Face chat templates use,
// rendering exactly what transformers' apply_chat_template renders (jinja2 ImmutableSandbox
// environment with trim_blocks=True, lstrip_blocks=True and the loopcontrols extension; its
// tojson is json.dumps(ensure_ascii=False); raise_exception and strftime_now are globals).
//
// Supported: {{ }}, {% %}, {# #} with '-' whitespace control; if/elif/else, for (with loop.*,
// `else`, a trailing `if` filter, tuple unpacking, break/continue), set (names, ns.attr),
// macro definitions and calls. Not supported (rejected by name): block set, call/filter blocks,
// include/import/extends/block, with, raw. Expressions: literals, lists,
// dicts, tuples, attribute/subscript/slice access, calls, filters, tests, the operators of
// Jinja2 with its precedence, inline if/else, Python string/dict methods used by templates
// (strip, split, startswith, items, get, ...). Values behave as in Python (truthiness, str() of
// None/True/lists, floor division, negative indexes).
//
// Errors: a template using anything outside the subset is rejected when parsed with a
// verlpp::Error naming the construct and its position ("line L:C"); rendering errors
// (raise_exception, undefined attribute access, type errors) name the position too.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace verlpp::tokenizer {

// JSON that keeps the key order it was read in: tojson in a template prints keys in that order,
// as Python's json.dumps does for a dict loaded from JSON.
using OrderedJson = nlohmann::ordered_json;

struct ChatTemplateOptions {
  bool add_generation_prompt = false;
  OrderedJson tools = nullptr;                        // tool schemas (a JSON array) or null
  OrderedJson extra_context = OrderedJson::object();  // more variables, e.g. enable_thinking
};

namespace jinja {
struct Template;
}

class ChatTemplate {
 public:
  // Parses `source`; `name` is used in error messages ("chat template 'qwen3' line 3:5: ...").
  // Throws verlpp::Error on syntax errors and unsupported constructs.
  explicit ChatTemplate(const std::string& source, std::string name = "chat_template");
  ChatTemplate(const ChatTemplate&);
  ChatTemplate& operator=(const ChatTemplate&);
  ChatTemplate(ChatTemplate&&) noexcept;
  ChatTemplate& operator=(ChatTemplate&&) noexcept;
  ~ChatTemplate();

  // Renders with `context` (a JSON object) as the template's variables.
  std::string render(const OrderedJson& context) const;

  // Renders the transformers way: messages, tools, add_generation_prompt, then `special_tokens`
  // (an object such as {"eos_token": "<|im_end|>"}), then options.extra_context.
  std::string apply(const OrderedJson& messages, const ChatTemplateOptions& options,
                    const OrderedJson& special_tokens = OrderedJson::object()) const;

  const std::string& source() const { return source_; }
  const std::string& name() const { return name_; }

 private:
  std::string source_;
  std::string name_;
  std::shared_ptr<const jinja::Template> template_;
};

}  // namespace verlpp::tokenizer
