#include "verlpp/config/override.h"

#include <fmt/format.h>

#include <string>

#include "verlpp/config/compose.h"
#include "verlpp/config/suggest.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/error.h"

namespace verlpp::config {
namespace {

constexpr std::string_view kEscapable = "\\{}[](),:= \t'\"";

// Recursive-descent parser over one value.
class ValueParser {
 public:
  explicit ValueParser(std::string_view text) : text_(text) {}

  Node parse_top() {
    skip_space();
    Node value = at_end() ? Node("") : parse_element(/*top=*/true);
    skip_space();
    if (!at_end()) {
      if (peek() == ',') {
        fail(
            "a comma-separated value is a Hydra sweep, which verlpp does not run; write a list as "
            "[a,b]");
      }
      fail("unexpected '" + std::string(1, peek()) + "'");
    }
    return value;
  }

 private:
  Node parse_element(bool top) {
    skip_space();
    if (at_end()) fail("a value is missing");
    const char c = peek();
    if ((c == '[' || c == '{') && depth_ >= kMaxYamlDepth) {
      fail("lists and maps nested more than " + std::to_string(kMaxYamlDepth) + " levels deep");
    }
    if (c == '[') return parse_list();
    if (c == '{') return parse_dict();
    if (c == '\'' || c == '"') {
      const std::size_t start = pos_;
      std::string quoted = parse_quoted();
      skip_space();
      if (at_end() || peek() == ',' || peek() == ']' || peek() == '}') return Node(quoted);
      pos_ = start;
    }
    return parse_plain(top);
  }

  Node parse_list() {
    ++pos_;
    const DepthGuard guard(depth_);
    NodeList items;
    skip_space();
    if (consume(']')) return Node::list(std::move(items));
    while (true) {
      items.push_back(parse_element(false));
      skip_space();
      if (consume(']')) return Node::list(std::move(items));
      if (!consume(',')) fail("expected ',' or ']' in a list");
    }
  }

  Node parse_dict() {
    ++pos_;
    const DepthGuard guard(depth_);
    Node dict = Node::map();
    skip_space();
    if (consume('}')) return dict;
    while (true) {
      skip_space();
      std::string key = (peek() == '\'' || peek() == '"') ? parse_quoted() : scan_plain(":", false);
      key = trim(key);
      if (key.empty()) fail("a dict key is missing");
      skip_space();
      if (!consume(':')) fail("expected ':' after dict key '" + key + "'");
      dict.set(key, parse_element(false));
      skip_space();
      if (consume('}')) return dict;
      if (!consume(',')) fail("expected ',' or '}' in a dict");
    }
  }

  std::string parse_quoted() {
    const char quote = text_[pos_++];
    std::string out;
    while (!at_end() && peek() != quote) {
      if (peek() == '\\' && pos_ + 1 < text_.size() &&
          (text_[pos_ + 1] == quote || text_[pos_ + 1] == '\\')) {
        ++pos_;
      }
      out += text_[pos_++];
    }
    if (at_end()) fail(std::string("unterminated ") + quote + " quote");
    ++pos_;
    return out;
  }

  Node parse_plain(bool top) {
    const std::string raw = scan_plain(top ? "," : ",]}", true);
    const std::string text = trim(raw);
    if (text.empty()) fail("a value is missing");
    if (had_escape_) return Node(text);
    return plain_scalar(text);
  }

  // Reads up to an unescaped stop character; ${...} is taken whole.
  std::string scan_plain(std::string_view stops, bool allow_brackets_inside) {
    std::string out;
    had_escape_ = false;
    while (!at_end()) {
      const char c = peek();
      if (c == '\\' && pos_ + 1 < text_.size() &&
          kEscapable.find(text_[pos_ + 1]) != std::string_view::npos) {
        out += text_[pos_ + 1];
        pos_ += 2;
        had_escape_ = true;
        continue;
      }
      if (c == '$' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '{') {
        out += scan_interpolation();
        continue;
      }
      if (stops.find(c) != std::string_view::npos) break;
      if (c == '[' || c == '{' || (!allow_brackets_inside && (c == ']' || c == '}'))) {
        fail("unescaped '" + std::string(1, c) + "' inside a plain value (escape it as \\" +
             std::string(1, c) + ")");
      }
      out += c;
      ++pos_;
    }
    return out;
  }

  std::string scan_interpolation() {
    const std::size_t start = pos_;
    int depth = 0;
    while (!at_end()) {
      const char c = text_[pos_++];
      if (c == '{') ++depth;
      if (c == '}' && --depth == 0) return std::string(text_.substr(start, pos_ - start));
    }
    pos_ = start;
    fail("unterminated ${ interpolation");
  }

  static std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
  }

  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t')) ++pos_;
  }
  bool consume(char c) {
    if (at_end() || peek() != c) return false;
    ++pos_;
    return true;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("at character " + std::to_string(pos_ + 1) + " of '" + std::string(text_) +
                "': " + what);
  }

  // Counts one level of nesting while alive.
  struct DepthGuard {
    explicit DepthGuard(int& depth) : count_(depth) { ++count_; }
    ~DepthGuard() { --count_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    int& count_;
  };

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  bool had_escape_ = false;
};

bool is_interpolation(const Node* node) {
  return node != nullptr && node->kind() == Node::Kind::string &&
         node->as_string().find("${") != std::string::npos;
}

bool passes_interpolation(const Node& root, const std::vector<std::string>& parts) {
  const Node* node = &root;
  for (std::size_t i = 0; i + 1 < parts.size() && node != nullptr; ++i) {
    node = node->find(parts[i]);
    if (is_interpolation(node)) return true;
  }
  return false;
}

// The map that holds the last path component; creates missing maps when `create` is set.
Node* parent_of(Node& root, const std::vector<std::string>& parts, bool create) {
  Node* node = &root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    Node* child = node->find(parts[i]);
    if (child == nullptr || child->is_null()) {
      if (!create) return nullptr;
      child = &node->set(parts[i], Node::map());
    }
    if (!child->is_map()) return nullptr;
    node = child;
  }
  return node;
}

// Hydra's OmegaConf.update(merge=True): a map merges into an existing map, anything else replaces.
void set_or_merge(Node& parent, const std::string& key, const Node& value) {
  Node* existing = parent.find(key);
  if (existing != nullptr && existing->is_map() && value.is_map()) {
    merge_into(*existing, value);
  } else {
    parent.set(key, value);
  }
}

// The argument as error messages quote it: whole, or its first 60 characters and "...".
std::string shown(const std::string& argument) {
  return argument.size() <= 80 ? argument : argument.substr(0, 60) + "...";
}

// A scalar or a list over a section (a map with keys) is refused: OmegaConf would replace the
// section and the run would fail on the first key read from it. null still empties it, a map
// merges into it.
void refuse_value_over_section(const Override& item, const Node* existing) {
  if (existing == nullptr || !existing->is_map() || existing->entries().empty() ||
      item.value->is_map() || item.value->is_null()) {
    return;
  }
  std::string example = existing->entries().front().first;
  for (const auto& [key, child] : existing->entries()) {
    if (child.is_scalar() && !is_interpolation(&child)) {
      example = key;
      break;
    }
  }
  throw Error(fmt::format(
      "override '{}': '{}' is a section of {} keys, not a value (set one of its keys, e.g. "
      "{}.{}=...)",
      shown(item.text), item.path, existing->entries().size(), item.path, example));
}

}  // namespace

Node parse_override_value(std::string_view text) { return ValueParser(text).parse_top(); }

Override parse_override(const std::string& argument) {
  Override item;
  item.text = argument;
  std::string_view rest = argument;
  if (rest.starts_with("++")) {
    item.op = Override::Op::force;
    rest.remove_prefix(2);
  } else if (rest.starts_with("+")) {
    item.op = Override::Op::add;
    rest.remove_prefix(1);
  } else if (rest.starts_with("~")) {
    item.op = Override::Op::remove;
    rest.remove_prefix(1);
  }
  const std::size_t eq = rest.find('=');
  if (eq == std::string_view::npos && item.op != Override::Op::remove) {
    throw Error("override '" + shown(argument) +
                "': expected key=value (Hydra syntax, e.g. data.train_batch_size=256)");
  }
  item.path = std::string(rest.substr(0, eq));
  if (item.path.empty() || item.path.front() == '.' || item.path.back() == '.' ||
      item.path.find("..") != std::string::npos ||
      item.path.find_first_of(" []{}'\"") != std::string::npos) {
    throw Error("override '" + shown(argument) + "': '" + item.path +
                "' is not a valid dotted key");
  }
  if (split_path(item.path).size() > static_cast<std::size_t>(kMaxYamlDepth)) {
    throw Error(fmt::format("override '{}': the key has more than {} dotted parts", shown(argument),
                            kMaxYamlDepth));
  }
  if (eq != std::string_view::npos) {
    try {
      item.value = parse_override_value(rest.substr(eq + 1));
    } catch (const Error& e) {
      throw Error("override '" + shown(argument) + "': malformed value " + e.what());
    }
  }
  return item;
}

Applied apply_override(Node& root, const Override& item) {
  const auto parts = split_path(item.path);
  if (passes_interpolation(root, parts)) return Applied::deferred;
  const bool creates = item.op == Override::Op::add || item.op == Override::Op::force;
  Node* parent = parent_of(root, parts, creates);
  Node* existing = parent == nullptr ? nullptr : parent->find(parts.back());
  switch (item.op) {
    case Override::Op::set:
      if (existing == nullptr) {
        throw Error("override '" + item.text + "': unknown key '" + item.path + "'" +
                    did_you_mean(root, item.path) + " (to add a new key write +" + item.text + ")");
      }
      refuse_value_over_section(item, existing);
      set_or_merge(*parent, parts.back(), *item.value);
      return Applied::yes;
    case Override::Op::add:
      if (parent == nullptr) {
        throw Error("override '" + item.text + "': a parent of '" + item.path + "' is not a map");
      }
      if (existing != nullptr && !existing->is_null() && item.value->is_scalar()) {
        throw Error("override '" + item.text + "': key '" + item.path + "' already exists (value " +
                    to_flow(*existing) + "); write " + item.text.substr(1) + " to change it");
      }
      set_or_merge(*parent, parts.back(), *item.value);
      return Applied::yes;
    case Override::Op::force:
      if (parent == nullptr) {
        throw Error("override '" + item.text + "': a parent of '" + item.path + "' is not a map");
      }
      refuse_value_over_section(item, existing);
      set_or_merge(*parent, parts.back(), *item.value);
      return Applied::yes;
    case Override::Op::remove:
      if (existing == nullptr) {
        throw Error("override '" + item.text + "': cannot delete unknown key '" + item.path + "'" +
                    did_you_mean(root, item.path));
      }
      parent->erase(parts.back());
      return Applied::yes;
  }
  return Applied::yes;
}

}  // namespace verlpp::config
