#include "verlpp/config/custom_chat_template.h"

#include "verlpp/core/error.h"
#include "verlpp/tokenizer/chat_template.h"

namespace verlpp::config {

void check_custom_chat_template(const std::string& key, const std::optional<std::string>& source,
                                Findings& out) {
  if (!source) return;
  try {
    const tokenizer::ChatTemplate parsed(*source, key);
  } catch (const Error& e) {
    add_error(out, key, e.what(), key + "=null (the tokenizer's own template)");
    return;
  }
  if (source->find("messages") == std::string::npos) {
    add_notice(out, key,
               "the template never reads `messages`, so every row renders as the same text; it "
               "takes the template itself, not a file path");
  }
}

}  // namespace verlpp::config
