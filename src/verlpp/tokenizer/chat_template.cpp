#include "verlpp/tokenizer/chat_template.h"

#include "verlpp/core/error.h"
#include "verlpp/tokenizer/jinja/interpreter.h"
#include "verlpp/tokenizer/jinja/parser.h"

namespace verlpp::tokenizer {

ChatTemplate::ChatTemplate(const std::string& source, std::string name)
    : source_(source), name_(std::move(name)), template_(jinja::parse(source, name_)) {}

ChatTemplate::ChatTemplate(const ChatTemplate&) = default;
ChatTemplate& ChatTemplate::operator=(const ChatTemplate&) = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;
ChatTemplate::~ChatTemplate() = default;

std::string ChatTemplate::render(const OrderedJson& context) const {
  jinja::Interpreter interpreter(*template_);
  return interpreter.render(context);
}

std::string ChatTemplate::apply(const OrderedJson& messages, const ChatTemplateOptions& options,
                                const OrderedJson& special_tokens) const {
  if (!messages.is_array()) {
    throw Error("chat template '" + name_ + "': messages must be a JSON array of {role, content}");
  }
  OrderedJson context = OrderedJson::object();
  context["messages"] = messages;
  context["tools"] = options.tools;
  context["documents"] = nullptr;
  context["add_generation_prompt"] = options.add_generation_prompt;
  for (const auto& [key, value] : special_tokens.items()) context[key] = value;
  if (!options.extra_context.is_null()) {
    if (!options.extra_context.is_object()) {
      throw Error("chat template '" + name_ + "': extra context must be a JSON object");
    }
    for (const auto& [key, value] : options.extra_context.items()) context[key] = value;
  }
  return render(context);
}

}  // namespace verlpp::tokenizer
