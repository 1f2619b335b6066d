#include "verlpp/tokenizer/jinja/parser.h"

#include <algorithm>
#include <set>
#include <string>

#include "verlpp/core/error.h"
#include "verlpp/tokenizer/jinja/builtins.h"
#include "verlpp/tokenizer/jinja/limits.h"

namespace verlpp::tokenizer::jinja {
namespace {

using T = Token::Type;

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string name)
      : tokens_(std::move(tokens)), name_(std::move(name)) {}

  std::shared_ptr<const Template> run() {
    auto result = std::make_shared<Template>();
    result->name = name_;
    std::string end;
    result->body = parse_body({}, end);
    return result;
  }

 private:
  const Token& current() const { return tokens_[index_]; }
  const Token& peek(std::size_t ahead = 1) const {
    return tokens_[std::min(index_ + ahead, tokens_.size() - 1)];
  }
  const Token& advance() { return tokens_[index_ < tokens_.size() - 1 ? index_++ : index_]; }
  bool is_op(const char* op) const { return current().type == T::op && current().value == op; }
  bool is_name(const char* word) const {
    return current().type == T::name && current().value == word;
  }

  [[noreturn]] void fail(const Position& at, const std::string& message) const {
    throw Error("chat template '" + name_ + "' line " + at.str() + ": " + message);
  }

  // One more level of nesting while it lives; too many is an error, not a stack overflow.
  class Nested {
   public:
    explicit Nested(Parser& parser) : parser_(parser) {
      if (++parser_.depth_ > kMaxNesting) {
        parser_.fail(parser_.current().position,
                     "nested more than " + std::to_string(kMaxNesting) + " levels deep");
      }
    }
    ~Nested() { --parser_.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& parser_;
  };

  std::string describe(const Token& token) const {
    switch (token.type) {
      case T::end:
        return "end of template";
      case T::block_end:
        return "'%}'";
      case T::var_end:
        return "'}}'";
      case T::text:
        return "template text";
      default:
        return "'" + token.value + "'";
    }
  }

  void expect_op(const char* op) {
    if (!is_op(op))
      fail(current().position, std::string("expected '") + op + "', got " + describe(current()));
    advance();
  }
  std::string expect_name() {
    if (current().type != T::name)
      fail(current().position, "expected a name, got " + describe(current()));
    return advance().value;
  }
  void expect_block_end() {
    if (current().type != T::block_end) {
      fail(current().position, "expected '%}', got " + describe(current()));
    }
    advance();
  }

  ExprPtr make(Expr::Kind kind, const Position& at) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->position = at;
    return e;
  }

  // ---- statements ----

  // Parses statements until a block tag whose keyword is in `ends` (consumed, returned in `end`).
  Body parse_body(const std::set<std::string>& ends, std::string& end) {
    const Nested nested(*this);
    Body body;
    while (true) {
      const Token& token = current();
      if (token.type == T::end) {
        if (!ends.empty()) {
          // Name the block's closing tag (endfor, endif), not the first of elif/else/end*.
          const auto closing = std::find_if(ends.begin(), ends.end(), [](const std::string& e) {
            return e.rfind("end", 0) == 0;
          });
          fail(token.position, "unexpected end of template; expected {% " +
                                   (closing != ends.end() ? *closing : *ends.begin()) + " %}");
        }
        return body;
      }
      if (token.type == T::text) {
        auto s = std::make_unique<Stmt>();
        s->kind = Stmt::Kind::text;
        s->position = token.position;
        s->text = token.value;
        body.push_back(std::move(s));
        advance();
      } else if (token.type == T::var_begin) {
        auto s = std::make_unique<Stmt>();
        s->kind = Stmt::Kind::output;
        s->position = token.position;
        advance();
        s->expr = parse_tuple(true);
        if (current().type != T::var_end)
          fail(current().position, "expected '}}', got " + describe(current()));
        advance();
        body.push_back(std::move(s));
      } else if (token.type == T::block_begin) {
        const Position at = token.position;
        advance();
        if (current().type != T::name) fail(current().position, "expected a statement name");
        const std::string keyword = current().value;
        if (ends.count(keyword)) {
          advance();
          end = keyword;
          return body;
        }
        body.push_back(parse_statement(keyword, at));
      } else {
        fail(token.position, "unexpected " + describe(token));
      }
    }
  }

  StmtPtr parse_statement(const std::string& keyword, const Position& at) {
    auto s = std::make_unique<Stmt>();
    s->position = at;
    advance();
    if (keyword == "if") {
      parse_if(*s);
    } else if (keyword == "for") {
      parse_for(*s);
    } else if (keyword == "set") {
      parse_set(*s);
    } else if (keyword == "macro") {
      parse_macro(*s);
    } else if (keyword == "break" || keyword == "continue") {
      s->kind = keyword == "break" ? Stmt::Kind::break_ : Stmt::Kind::continue_;
      expect_block_end();
    } else if (keyword == "generation") {
      s->kind = Stmt::Kind::passthrough;
      expect_block_end();
      std::string end;
      s->bodies.push_back(parse_body({"endgeneration"}, end));
      expect_block_end();
    } else {
      static const std::set<std::string> known = {
          "include",  "import",  "from",      "extends", "block",  "call",
          "filter",   "with",    "raw",       "do",      "trans",  "autoescape",
          "elif",     "else",    "endif",     "endfor",  "endset", "endmacro",
          "endblock", "endcall", "endfilter", "endwith"};
      if (known.count(keyword)) {
        fail(at, "unsupported Jinja construct '{% " + keyword + " %}'" +
                     (keyword.rfind("end", 0) == 0 || keyword == "elif" || keyword == "else"
                          ? " (no matching opening statement)"
                          : ""));
      }
      fail(at, "unknown Jinja statement '{% " + keyword + " %}'");
    }
    return s;
  }

  void parse_if(Stmt& s) {
    s.kind = Stmt::Kind::if_;
    s.conditions.push_back(parse_tuple(true));
    expect_block_end();
    while (true) {
      std::string end;
      s.bodies.push_back(parse_body({"elif", "else", "endif"}, end));
      if (end == "elif") {
        s.conditions.push_back(parse_tuple(true));
        expect_block_end();
      } else if (end == "else") {
        expect_block_end();
        s.bodies.push_back(parse_body({"endif"}, end));
        expect_block_end();
        return;
      } else {
        expect_block_end();
        return;
      }
    }
  }

  std::vector<std::string> parse_targets() {
    std::vector<std::string> targets;
    const bool paren = is_op("(");
    if (paren) advance();
    targets.push_back(expect_name());
    while (is_op(",")) {
      advance();
      if (paren && is_op(")")) break;
      targets.push_back(expect_name());
    }
    if (paren) expect_op(")");
    return targets;
  }

  void parse_for(Stmt& s) {
    s.kind = Stmt::Kind::for_;
    s.targets = parse_targets();
    if (!is_name("in"))
      fail(current().position, "expected 'in' in for loop, got " + describe(current()));
    advance();
    s.expr = parse_tuple(false);
    if (is_name("if")) {
      advance();
      s.filter = parse_tuple(true);
    }
    if (is_name("recursive"))
      fail(current().position, "unsupported Jinja construct 'recursive' loop");
    expect_block_end();
    std::string end;
    s.bodies.push_back(parse_body({"else", "endfor"}, end));
    if (end == "else") {
      expect_block_end();
      s.bodies.push_back(parse_body({"endfor"}, end));
    }
    expect_block_end();
  }

  void parse_set(Stmt& s) {
    s.kind = Stmt::Kind::set;
    const std::string first = expect_name();
    if (is_op(".")) {
      advance();
      s.targets = {first};
      s.attribute = expect_name();
    } else {
      s.targets = {first};
      while (is_op(",")) {
        advance();
        s.targets.push_back(expect_name());
      }
    }
    if (is_op("=")) {
      advance();
      s.expr = parse_tuple(true);
      expect_block_end();
      return;
    }
    if (is_op("|")) fail(current().position, "unsupported Jinja construct 'filtered block set'");
    if (s.targets.size() != 1 || !s.attribute.empty()) {
      fail(current().position, "a block {% set %} assigns exactly one name");
    }
    s.kind = Stmt::Kind::set_block;
    expect_block_end();
    std::string end;
    s.bodies.push_back(parse_body({"endset"}, end));
    expect_block_end();
  }

  void parse_macro(Stmt& s) {
    s.kind = Stmt::Kind::macro;
    s.text = expect_name();
    expect_op("(");
    while (!is_op(")")) {
      const std::string param = expect_name();
      ExprPtr fallback;
      if (is_op("=")) {
        advance();
        fallback = parse_expression(true);
      }
      s.parameters.emplace_back(param, std::move(fallback));
      if (!is_op(",")) break;
      advance();
    }
    expect_op(")");
    expect_block_end();
    std::string end;
    s.bodies.push_back(parse_body({"endmacro"}, end));
    if (current().type == T::name && current().value == s.text) advance();
    expect_block_end();
  }

  // ---- expressions ----

  // An expression, or a tuple of them when commas follow (without parentheses).
  ExprPtr parse_tuple(bool with_condexpr) {
    const Position at = current().position;
    ExprPtr first = parse_expression(with_condexpr);
    if (!is_op(",")) return first;
    auto tuple = make(Expr::Kind::tuple, at);
    tuple->items.push_back(std::move(first));
    while (is_op(",")) {
      advance();
      if (current().type == T::block_end || current().type == T::var_end || is_op(")") ||
          is_name("if"))
        break;
      tuple->items.push_back(parse_expression(with_condexpr));
    }
    return tuple;
  }

  ExprPtr parse_expression(bool with_condexpr) {
    const Nested nested(*this);
    ExprPtr expr = parse_or();
    while (with_condexpr && is_name("if")) {
      auto cond = make(Expr::Kind::conditional, current().position);
      advance();
      cond->b = parse_or();
      if (is_name("else")) {
        advance();
        cond->c = parse_expression(true);
      }
      cond->a = std::move(expr);
      expr = std::move(cond);
    }
    return expr;
  }

  ExprPtr binary(const std::string& op, ExprPtr left, ExprPtr right, const Position& at) {
    auto e = make(Expr::Kind::binary, at);
    e->text = op;
    e->a = std::move(left);
    e->b = std::move(right);
    return e;
  }

  ExprPtr parse_or() {
    ExprPtr left = parse_and();
    while (is_name("or")) {
      const Position at = advance().position;
      left = binary("or", std::move(left), parse_and(), at);
    }
    return left;
  }

  ExprPtr parse_and() {
    ExprPtr left = parse_not();
    while (is_name("and")) {
      const Position at = advance().position;
      left = binary("and", std::move(left), parse_not(), at);
    }
    return left;
  }

  ExprPtr parse_not() {
    const Nested nested(*this);
    if (is_name("not")) {
      auto e = make(Expr::Kind::unary, advance().position);
      e->text = "not";
      e->a = parse_not();
      return e;
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    const Position at = current().position;
    ExprPtr first = parse_math1();
    ExprPtr cmp;
    while (true) {
      std::string op;
      if (current().type == T::op &&
          (is_op("==") || is_op("!=") || is_op("<") || is_op(">") || is_op("<=") || is_op(">="))) {
        op = advance().value;
      } else if (is_name("in")) {
        advance();
        op = "in";
      } else if (is_name("not") && peek().type == T::name && peek().value == "in") {
        advance();
        advance();
        op = "notin";
      } else {
        break;
      }
      if (!cmp) {
        cmp = make(Expr::Kind::compare, at);
        cmp->a = std::move(first);
      }
      cmp->operators.push_back(op);
      cmp->items.push_back(parse_math1());
    }
    return cmp ? std::move(cmp) : std::move(first);
  }

  ExprPtr parse_math1() {
    ExprPtr left = parse_concat();
    while (is_op("+") || is_op("-")) {
      const Token& op = advance();
      left = binary(op.value, std::move(left), parse_concat(), op.position);
    }
    return left;
  }

  ExprPtr parse_concat() {
    ExprPtr left = parse_math2();
    while (is_op("~")) {
      const Position at = advance().position;
      left = binary("~", std::move(left), parse_math2(), at);
    }
    return left;
  }

  ExprPtr parse_math2() {
    ExprPtr left = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const Token& op = advance();
      left = binary(op.value, std::move(left), parse_pow(), op.position);
    }
    return left;
  }

  ExprPtr parse_pow() {
    ExprPtr left = parse_unary(true);
    while (is_op("**")) {
      const Position at = advance().position;
      left = binary("**", std::move(left), parse_unary(true), at);
    }
    return left;
  }

  ExprPtr parse_unary(bool with_filter) {
    const Nested nested(*this);
    ExprPtr node;
    if (is_op("-") || is_op("+")) {
      const Token& op = advance();
      node = make(Expr::Kind::unary, op.position);
      node->text = op.value;
      node->a = parse_unary(false);
    } else {
      node = parse_primary();
    }
    node = parse_postfix(std::move(node));
    if (with_filter) node = parse_filter_expr(std::move(node));
    return node;
  }

  ExprPtr literal(Value value, const Position& at) {
    auto e = make(Expr::Kind::literal, at);
    e->value = std::move(value);
    return e;
  }

  ExprPtr parse_primary() {
    const Token& token = current();
    const Position at = token.position;
    switch (token.type) {
      case T::name: {
        advance();
        const std::string& v = token.value;
        if (v == "true" || v == "True") return literal(Value(true), at);
        if (v == "false" || v == "False") return literal(Value(false), at);
        if (v == "none" || v == "None") return literal(Value::none(), at);
        auto e = make(Expr::Kind::name, at);
        e->text = v;
        return e;
      }
      case T::string: {
        std::string text;
        while (current().type == T::string) text += advance().value;
        return literal(Value(std::move(text)), at);
      }
      case T::integer:
        advance();
        return literal(Value(static_cast<std::int64_t>(std::stoll(token.value))), at);
      case T::real:
        advance();
        return literal(Value(std::stod(token.value)), at);
      case T::op:
        if (token.value == "(") return parse_parenthesized();
        if (token.value == "[") return parse_list();
        if (token.value == "{") return parse_dict();
        break;
      default:
        break;
    }
    fail(at, "unexpected " + describe(token) + " in expression");
  }

  ExprPtr parse_parenthesized() {
    const Position at = advance().position;
    if (is_op(")")) {
      advance();
      return make(Expr::Kind::tuple, at);
    }
    ExprPtr first = parse_expression(true);
    if (!is_op(",")) {
      expect_op(")");
      return first;
    }
    auto tuple = make(Expr::Kind::tuple, at);
    tuple->items.push_back(std::move(first));
    while (is_op(",")) {
      advance();
      if (is_op(")")) break;
      tuple->items.push_back(parse_expression(true));
    }
    expect_op(")");
    return tuple;
  }

  ExprPtr parse_list() {
    auto list = make(Expr::Kind::list, advance().position);
    while (!is_op("]")) {
      list->items.push_back(parse_expression(true));
      if (!is_op(",")) break;
      advance();
    }
    expect_op("]");
    return list;
  }

  ExprPtr parse_dict() {
    auto dict = make(Expr::Kind::dict, advance().position);
    while (!is_op("}")) {
      dict->items.push_back(parse_expression(true));
      expect_op(":");
      dict->items.push_back(parse_expression(true));
      if (!is_op(",")) break;
      advance();
    }
    expect_op("}");
    return dict;
  }

  ExprPtr parse_postfix(ExprPtr node) {
    while (true) {
      if (is_op(".")) {
        const Position at = advance().position;
        if (current().type == T::integer) {
          auto e = make(Expr::Kind::getitem, at);
          e->a = std::move(node);
          e->b = literal(Value(static_cast<std::int64_t>(std::stoll(advance().value))), at);
          node = std::move(e);
        } else {
          auto e = make(Expr::Kind::getattr, at);
          e->a = std::move(node);
          e->text = expect_name();
          node = std::move(e);
        }
      } else if (is_op("[")) {
        node = parse_subscript(std::move(node));
      } else if (is_op("(")) {
        node = parse_call(std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr parse_subscript(ExprPtr object) {
    const Position at = advance().position;
    ExprPtr parts[3];
    bool slice = false;
    int part = 0;
    while (!is_op("]")) {
      if (is_op(":")) {
        advance();
        slice = true;
        if (++part > 2) fail(current().position, "too many ':' in slice");
        continue;
      }
      if (parts[part]) fail(current().position, "expected ':' or ']' in subscript");
      parts[part] = parse_expression(true);
    }
    expect_op("]");
    if (!slice) {
      if (!parts[0]) fail(at, "empty subscript []");
      auto e = make(Expr::Kind::getitem, at);
      e->a = std::move(object);
      e->b = std::move(parts[0]);
      return e;
    }
    auto e = make(Expr::Kind::slice, at);
    e->a = std::move(object);
    for (auto& p : parts) e->items.push_back(std::move(p));
    return e;
  }

  void parse_call_args(Expr& e) {
    expect_op("(");
    while (!is_op(")")) {
      if (is_op("*") || is_op("**"))
        fail(current().position, "unsupported Jinja construct '*args/**kwargs' in call");
      if (current().type == T::name && peek().type == T::op && peek().value == "=") {
        const std::string key = advance().value;
        advance();
        e.keywords.emplace_back(key, parse_expression(true));
      } else {
        if (!e.keywords.empty())
          fail(current().position, "positional argument after keyword argument");
        e.items.push_back(parse_expression(true));
      }
      if (!is_op(",")) break;
      advance();
    }
    expect_op(")");
  }

  ExprPtr parse_call(ExprPtr callee) {
    auto e = make(Expr::Kind::call, callee->position);
    e->a = std::move(callee);
    parse_call_args(*e);
    return e;
  }

  std::string dotted_name() {
    std::string name = expect_name();
    while (is_op(".") && peek().type == T::name) {
      advance();
      name += "." + advance().value;
    }
    return name;
  }

  ExprPtr parse_filter_expr(ExprPtr node) {
    while (true) {
      if (is_op("|")) {
        advance();
        auto e = make(Expr::Kind::filter, current().position);
        e->text = dotted_name();
        if (!is_filter(e->text)) fail(e->position, "unsupported Jinja filter '" + e->text + "'");
        e->a = std::move(node);
        if (is_op("(")) parse_call_args(*e);
        node = std::move(e);
      } else if (is_name("is")) {
        advance();
        auto e = make(Expr::Kind::test, current().position);
        if (is_name("not")) {
          advance();
          e->negated = true;
        }
        e->text = dotted_name();
        if (!is_test(e->text)) fail(e->position, "unsupported Jinja test '" + e->text + "'");
        e->a = std::move(node);
        if (is_op("(")) {
          parse_call_args(*e);
        } else if ((current().type == T::name || current().type == T::string ||
                    current().type == T::integer || current().type == T::real || is_op("[") ||
                    is_op("{")) &&
                   !is_name("else") && !is_name("or") && !is_name("and") && !is_name("if")) {
          e->items.push_back(parse_postfix(parse_primary()));
        }
        node = std::move(e);
      } else if (is_op("(")) {
        node = parse_call(std::move(node));
      } else {
        return node;
      }
    }
  }

  std::vector<Token> tokens_;
  std::string name_;
  std::size_t index_ = 0;
  int depth_ = 0;
};

}  // namespace

std::shared_ptr<const Template> parse(const std::string& source, const std::string& name) {
  return Parser(tokenize(source, name), name).run();
}

}  // namespace verlpp::tokenizer::jinja
