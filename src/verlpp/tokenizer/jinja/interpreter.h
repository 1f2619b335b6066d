// Renders a parsed Template with a JSON context, with jinja2's semantics: for loops get a fresh
// scope per iteration (a `set` inside does not leak out; namespace() objects carry state out),
// `if` does not open a scope, macros see the scope they were defined in.
#pragma once

#include <memory>
#include <string>

#include "verlpp/tokenizer/jinja/ast.h"

namespace verlpp::tokenizer::jinja {

class Scope;

class Interpreter {
 public:
  explicit Interpreter(const Template& tmpl) : template_(tmpl) {}

  // Throws verlpp::Error("chat template '<name>' line L:C: ...") for rendering errors.
  std::string render(const OrderedJson& context);

  // Calls a function value (used by filters such as map/select that call back).
  Value call(const Value& function, CallArgs& args, const Position& at);

  [[noreturn]] void fail(const Position& at, const std::string& message) const;

 private:
  enum class Flow { normal, break_, continue_ };

  Flow exec(const Body& body, const std::shared_ptr<Scope>& scope, std::string& out);
  Flow exec(const Stmt& stmt, const std::shared_ptr<Scope>& scope, std::string& out);
  void exec_for(const Stmt& stmt, const std::shared_ptr<Scope>& scope, std::string& out);
  void exec_set(const Stmt& stmt, const std::shared_ptr<Scope>& scope);
  void define_macro(const Stmt& stmt, const std::shared_ptr<Scope>& scope);

  Value eval(const Expr& expr, const std::shared_ptr<Scope>& scope);
  Value eval_binary(const Expr& expr, const std::shared_ptr<Scope>& scope);
  Value eval_compare(const Expr& expr, const std::shared_ptr<Scope>& scope);
  Value eval_call(const Expr& expr, const std::shared_ptr<Scope>& scope);
  CallArgs eval_args(const Expr& expr, const std::shared_ptr<Scope>& scope);

  const Template& template_;
  int depth_ = 0;  // nesting of eval and exec (limits.h kMaxNesting)
};

}  // namespace verlpp::tokenizer::jinja
