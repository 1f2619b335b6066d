#include "verlpp/config/node_json.h"

namespace verlpp::config {

nlohmann::ordered_json node_to_json(const Node& node) {
  switch (node.kind()) {
    case Node::Kind::boolean:
      return node.as_bool();
    case Node::Kind::integer:
      return node.as_int();
    case Node::Kind::real:
      return node.as_real();
    case Node::Kind::string:
      return node.as_string();
    case Node::Kind::list: {
      auto out = nlohmann::ordered_json::array();
      for (const auto& item : node.items()) out.push_back(node_to_json(item));
      return out;
    }
    case Node::Kind::map: {
      auto out = nlohmann::ordered_json::object();
      for (const auto& [key, value] : node.entries()) out[key] = node_to_json(value);
      return out;
    }
    default:
      return nullptr;
  }
}

}  // namespace verlpp::config
