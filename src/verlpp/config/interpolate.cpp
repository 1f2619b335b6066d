#include "verlpp/config/interpolate.h"

#include <cstdlib>
#include <set>

#include "verlpp/config/override.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/error.h"

namespace verlpp::config {
namespace {

using Path = std::vector<std::string>;

std::string join(const Path& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ".") + part;
  return out;
}

Node* find_parts(Node& root, const Path& parts) {
  Node* node = &root;
  for (const auto& part : parts) {
    node = node->find(part);
    if (node == nullptr) return nullptr;
  }
  return node;
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  return std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

// Index of the '}' that closes the "${" at `open`, or npos.
std::size_t closing_brace(std::string_view text, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

class Resolver {
 public:
  Resolver(Node& root, std::vector<InterpolationEdge>* edges) : root_(root), edges_(edges) {}

  void resolve_all() { resolve_subtree({}); }

 private:
  void resolve_subtree(const Path& path) {
    Node* node = find_parts(root_, path);
    if (node == nullptr) return;
    if (node->is_map()) {
      std::vector<std::string> keys;
      for (const auto& entry : node->entries()) keys.push_back(entry.first);
      for (const auto& key : keys) {
        Path child = path;
        child.push_back(key);
        resolve_subtree(child);
      }
    } else if (node->is_list()) {
      for (std::size_t i = 0; i < node->items().size(); ++i) {
        Node& item = find_parts(root_, path)->items()[i];
        if (item.kind() == Node::Kind::string && item.as_string().find("${") != std::string::npos) {
          item = evaluate_text(item.as_string(), path, path);
        }
      }
    } else if (node->kind() == Node::Kind::string &&
               node->as_string().find("${") != std::string::npos) {
      resolve_key(path);
    }
  }

  void resolve_key(const Path& path) {
    const std::string name = join(path);
    if (in_progress_.count(name)) throw Error(name + ": interpolation cycle through this key");
    in_progress_.insert(name);
    Node* node = find_parts(root_, path);
    const std::string text = node->as_string();
    Path holder = path;
    holder.pop_back();
    Node value = evaluate_text(text, holder, path);
    *find_parts(root_, path) = std::move(value);
    in_progress_.erase(name);
  }

  // Evaluates a string that contains interpolations. `holder` is the map the key lives in.
  Node evaluate_text(const std::string& text, const Path& holder, const Path& key) {
    const std::size_t open = text.find("${");
    if (open == 0 && closing_brace(text, open) == text.size() - 1) {
      return evaluate(text.substr(2, text.size() - 3), holder, key);
    }
    std::string out;
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t start = text.find("${", pos);
      if (start == std::string::npos) {
        out += text.substr(pos);
        break;
      }
      const std::size_t end = closing_brace(text, start);
      if (end == std::string::npos) fail(key, "unterminated ${ in '" + text + "'");
      out += text.substr(pos, start - pos);
      const Node value = evaluate(text.substr(start + 2, end - start - 2), holder, key);
      out += value.kind() == Node::Kind::string ? value.as_string() : to_flow(value);
      pos = end + 1;
    }
    return Node(out);
  }

  Node evaluate(const std::string& expression, const Path& holder, const Path& key) {
    const std::size_t colon = expression.find(':');
    if (colon != std::string::npos && expression.find('.') < colon &&
        expression.starts_with("oc.")) {
      const std::string resolver = expression.substr(0, colon);
      const std::string args = expression.substr(colon + 1);
      const std::size_t comma = args.find(',');
      const std::string first = trim(args.substr(0, comma));
      const std::optional<std::string> fallback =
          comma == std::string::npos ? std::nullopt : std::optional(trim(args.substr(comma + 1)));
      if (resolver == "oc.select") return select(first, fallback, holder, key);
      if (resolver == "oc.env") return environment(first, fallback, holder, key);
      fail(key, "unsupported resolver '" + resolver + "' in ${" + expression +
                    "} (verlpp supports oc.select and oc.env)");
    }
    const Node* value = lookup(trim(expression), holder, key);
    if (value == nullptr) fail(key, "${" + expression + "} refers to a key that does not exist");
    if (value->is_missing()) {
      fail(key, "${" + expression + "} refers to a required key that is still unset");
    }
    return *value;
  }

  Node parse_default(const std::string& text, const Path& holder, const Path& key) {
    if (text.find("${") != std::string::npos) return evaluate_text(text, holder, key);
    try {
      return parse_override_value(text);
    } catch (const Error& e) {
      fail(key, std::string("malformed interpolation default: ") + e.what());
    }
  }

  Node select(const std::string& target, const std::optional<std::string>& fallback,
              const Path& holder, const Path& key) {
    const Node* value = lookup(target, holder, key);
    if (value != nullptr && !value->is_missing()) return *value;
    if (!fallback) return Node();
    return parse_default(*fallback, holder, key);
  }

  Node environment(const std::string& variable, const std::optional<std::string>& fallback,
                   const Path& holder, const Path& key) {
    const char* value = std::getenv(variable.c_str());
    if (value != nullptr) return plain_scalar(value);
    if (!fallback) {
      fail(key, "environment variable " + variable + " is not set and ${oc.env:" + variable +
                    "} has no default");
    }
    return parse_default(*fallback, holder, key);
  }

  // Resolves the referenced key first, then returns it (nullptr if absent).
  const Node* lookup(const std::string& reference, const Path& holder, const Path& key) {
    Path target;
    if (reference.starts_with(".")) {
      const std::size_t dots = reference.find_first_not_of('.');
      target = holder;
      for (std::size_t up = 1; up < dots; ++up) {
        if (target.empty())
          fail(key, "relative interpolation ${" + reference + "} goes above the root");
        target.pop_back();
      }
      for (const auto& part : split_path(reference.substr(dots))) target.push_back(part);
    } else {
      target = split_path(reference);
    }
    resolve_prefixes(target);
    if (find_parts(root_, target) == nullptr) return nullptr;
    if (edges_ != nullptr) edges_->push_back({join(key), join(target)});
    resolve_subtree(target);
    return find_parts(root_, target);
  }

  // Resolves the keys on the way to `target` that are still interpolations (`a: ${b}` before
  // `${a.x}` can look inside it), as OmegaConf does.
  void resolve_prefixes(const Path& target) {
    Path prefix;
    for (std::size_t i = 0; i + 1 < target.size(); ++i) {
      prefix.push_back(target[i]);
      const Node* node = find_parts(root_, prefix);
      if (node == nullptr) return;
      if (node->kind() == Node::Kind::string && node->as_string().find("${") != std::string::npos) {
        resolve_key(prefix);
      }
    }
  }

  [[noreturn]] void fail(const Path& key, const std::string& what) const {
    throw Error(join(key) + ": " + what);
  }

  Node& root_;
  std::vector<InterpolationEdge>* edges_;
  std::set<std::string> in_progress_;
};

}  // namespace

void resolve_interpolations(Node& root, std::vector<InterpolationEdge>* edges) {
  Resolver(root, edges).resolve_all();
}

}  // namespace verlpp::config
