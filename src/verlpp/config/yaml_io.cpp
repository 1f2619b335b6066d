#include "verlpp/config/yaml_io.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "verlpp/core/error.h"
#include "verlpp/core/utf8.h"

namespace verlpp::config {
namespace {

// Limits on what a YAML text may expand to: aliases make a 2 kB file stand for billions of values
// ("billion laughs"), and an anchor holding its own alias for an endless nesting.
constexpr std::size_t kMaxYamlValues = 1'000'000;

struct Expansion {
  const std::string& source;
  std::size_t values = 0;
};

// `source` names the text in errors. A key given twice in one mapping is an error (OmegaConf
// refuses it too; yaml-cpp would keep one of them silently).
Node from_yaml(const YAML::Node& yaml, Expansion& budget, int depth) {
  if (depth > kMaxYamlDepth) {
    throw Error(
        fmt::format("{}:{}:{}: the YAML nests more than {} levels deep (directly, or "
                    "through aliases that contain each other)",
                    budget.source, yaml.Mark().line + 1, yaml.Mark().column + 1, kMaxYamlDepth));
  }
  if (++budget.values > kMaxYamlValues) {
    throw Error(fmt::format(
        "{}:{}:{}: the YAML expands to more than {} values (aliases that repeat each other?)",
        budget.source, yaml.Mark().line + 1, yaml.Mark().column + 1, kMaxYamlValues));
  }
  switch (yaml.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return Node();
    case YAML::NodeType::Scalar:
      if (yaml.Tag() == "!") return Node(yaml.Scalar());
      return plain_scalar(yaml.Scalar());
    case YAML::NodeType::Sequence: {
      NodeList items;
      for (const auto& item : yaml) items.push_back(from_yaml(item, budget, depth + 1));
      return Node::list(std::move(items));
    }
    case YAML::NodeType::Map: {
      Node map = Node::map();
      for (const auto& entry : yaml) {
        const std::string key = entry.first.as<std::string>();
        if (map.find(key) != nullptr) {
          throw Error(fmt::format("{}:{}:{}: duplicate key '{}' in a mapping", budget.source,
                                  entry.first.Mark().line + 1, entry.first.Mark().column + 1, key));
        }
        map.set(key, from_yaml(entry.second, budget, depth + 1));
      }
      return map;
    }
  }
  return Node();
}

bool needs_quotes(const std::string& text) {
  if (plain_scalar(text).kind() != Node::Kind::string) return true;
  if (text.front() == ' ' || text.back() == ' ') return true;
  static const std::string leading = "!&*-?{}[],#|>@`\"'%:";
  if (leading.find(text.front()) != std::string::npos) return true;
  return text.find(": ") != std::string::npos || text.find(" #") != std::string::npos ||
         text.find('\n') != std::string::npos || text.back() == ':';
}

std::string quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// The shortest text that reads back as the same double, in Python's repr style (1e-06, 0.2, 1.0).
std::string format_real(double value) {
  if (std::isinf(value)) return value > 0 ? ".inf" : "-.inf";
  if (std::isnan(value)) return ".nan";
  std::string text;
  for (int precision = 1; precision <= 17; ++precision) {
    text = fmt::format("{:.{}g}", value, precision);
    if (std::strtod(text.c_str(), nullptr) == value) break;
  }
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string scalar_text(const Node& node) {
  switch (node.kind()) {
    case Node::Kind::null:
      return "null";
    case Node::Kind::missing:
      return "???";
    case Node::Kind::boolean:
      return node.as_bool() ? "true" : "false";
    case Node::Kind::integer:
      return std::to_string(node.as_int());
    case Node::Kind::real:
      return format_real(node.as_real());
    case Node::Kind::string:
      return node.as_string().empty() || needs_quotes(node.as_string()) ? quote(node.as_string())
                                                                        : node.as_string();
    default:
      return to_flow(node);
  }
}

bool is_flat(const Node& node) {
  if (node.is_map()) return node.entries().empty();
  if (!node.is_list()) return true;
  for (const auto& item : node.items()) {
    if (!item.is_scalar()) return false;
  }
  return true;
}

void emit(const Node& node, int indent, std::ostringstream& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (node.is_map()) {
    for (const auto& [key, child] : node.entries()) {
      const std::string name = needs_quotes(key) ? quote(key) : key;
      if (is_flat(child)) {
        out << pad << name << ": " << to_flow(child) << "\n";
      } else {
        out << pad << name << ":\n";
        emit(child, indent + 2, out);
      }
    }
    return;
  }
  for (const auto& item : node.items()) {
    if (is_flat(item)) {
      out << pad << "- " << to_flow(item) << "\n";
    } else {
      out << pad << "-\n";
      emit(item, indent + 2, out);
    }
  }
}

// "SOURCE:LINE:COLUMN" of byte `offset` of `text` (columns in bytes, as yaml-cpp counts them).
std::string position(const std::string& text, std::size_t offset, const std::string& source) {
  const auto line =
      1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  const std::size_t newline = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  const std::size_t column = newline == std::string::npos ? offset + 1 : offset - newline;
  return fmt::format("{}:{}:{}", source, line, column);
}

// YAML's printable characters (YAML 1.1 §5.1, as PyYAML's reader enforces them): tab, line
// feed, carriage return, U+0020-U+007E, U+0085, U+00A0-U+D7FF, U+E000-U+FFFD and beyond U+FFFF.
bool printable(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0x7E) || c == 0x85 ||
         (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) || c >= 0x10000;
}

// Throws "SOURCE:LINE:COLUMN: ..." at the first byte outside UTF-8 or the first character YAML
// does not allow (NUL and other control characters, U+FFFE, U+FFFF): PyYAML, which Hydra reads
// configs with, refuses both; yaml-cpp reads a NUL as the end of a scalar or an escape.
void require_yaml_text(const std::string& text, const std::string& source) {
  if (const std::optional<std::size_t> bad = utf8::first_invalid(text)) {
    throw Error(fmt::format("{}: not UTF-8 text (byte 0x{:02x}); config files are read as UTF-8",
                            position(text, *bad, source), static_cast<unsigned char>(text[*bad])));
  }
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t at = i;
    const char32_t c = utf8::next(text, i);
    if (!printable(c)) {
      throw Error(
          fmt::format("{}: character U+{:04X} is not allowed in YAML (control characters, "
                      "U+FFFE and U+FFFF are not)",
                      position(text, at, source), static_cast<std::uint32_t>(c)));
    }
  }
}

}  // namespace

Node parse_yaml(const std::string& text, const std::string& source) {
  require_yaml_text(text, source);
  try {
    Expansion budget{source};
    return from_yaml(YAML::Load(text), budget, 0);
  } catch (const YAML::DeepRecursion& e) {
    throw Error(fmt::format("{}:{}:{}: the YAML nests more than {} levels deep", source,
                            e.mark.line + 1, e.mark.column + 1, kMaxYamlDepth));
  } catch (const YAML::Exception& e) {
    throw Error(source + ":" + std::to_string(e.mark.line + 1) + ":" +
                std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg);
  }
}

Node load_yaml_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw Error(path + ": cannot read config file");
  std::stringstream text;
  text << file.rdbuf();
  return parse_yaml(text.str(), path);
}

std::string to_flow(const Node& node) {
  if (node.is_list()) {
    std::string out = "[";
    for (std::size_t i = 0; i < node.items().size(); ++i) {
      out += (i ? ", " : "") + to_flow(node.items()[i]);
    }
    return out + "]";
  }
  if (node.is_map()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, child] : node.entries()) {
      out += (first ? "" : ", ") + (needs_quotes(key) ? quote(key) : key) + ": " + to_flow(child);
      first = false;
    }
    return out + "}";
  }
  return scalar_text(node);
}

std::string to_yaml(const Node& root) {
  std::ostringstream out;
  emit(root, 0, out);
  return out.str();
}

}  // namespace verlpp::config
