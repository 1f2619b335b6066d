#include "verlpp/tokenizer/jinja/interpreter.h"

#include <string>
#include <unordered_map>

#include "verlpp/core/error.h"
#include "verlpp/tokenizer/jinja/builtins.h"
#include "verlpp/tokenizer/jinja/limits.h"

namespace verlpp::tokenizer::jinja {

// Variables visible at one point of a render: a map plus the enclosing scope.
class Scope {
 public:
  explicit Scope(std::shared_ptr<Scope> parent = nullptr) : parent_(std::move(parent)) {}
  const Value* find(const std::string& name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent_.get()) {
      if (const auto it = s->vars_.find(name); it != s->vars_.end()) return &it->second;
    }
    return nullptr;
  }
  void set(const std::string& name, Value value) { vars_[name] = std::move(value); }

 private:
  std::shared_ptr<Scope> parent_;
  std::unordered_map<std::string, Value> vars_;
};

namespace {

// One more level of evaluation while it lives (a macro calling itself recurses through eval and
// exec): too deep is an error naming the template, not a stack overflow.
class Nested {
 public:
  Nested(int& depth, const Interpreter& interpreter, const Position& at) : depth_(depth) {
    if (++depth_ > kMaxNesting) {
      --depth_;
      interpreter.fail(at, "nested more than " + std::to_string(kMaxNesting) +
                               " levels deep while rendering (a macro calling itself?)");
    }
  }
  ~Nested() { --depth_; }
  Nested(const Nested&) = delete;
  Nested& operator=(const Nested&) = delete;

 private:
  int& depth_;
};

// The text a render produced so far must stay within kMaxOutputBytes.
void check_size(const std::string& out, const Interpreter& interpreter, const Position& at) {
  if (out.size() > kMaxOutputBytes) {
    interpreter.fail(at, "renders more than " + std::to_string(kMaxOutputBytes) + " bytes");
  }
}

// An error that already names its position; other verlpp::Errors get the position of the
// expression or statement they escape from.
class PositionedError : public Error {
 public:
  using Error::Error;
};

}  // namespace

void Interpreter::fail(const Position& at, const std::string& message) const {
  throw PositionedError("chat template '" + template_.name + "' line " + at.str() + ": " + message);
}

std::string Interpreter::render(const OrderedJson& context) {
  auto globals = std::make_shared<Scope>();
  if (!context.is_object())
    throw Error("chat template '" + template_.name + "': context must be a JSON object");
  for (const auto& [key, value] : context.items()) globals->set(key, Value::from_json(value));
  auto scope = std::make_shared<Scope>(globals);
  std::string out;
  exec(template_.body, scope, out);
  return out;
}

Interpreter::Flow Interpreter::exec(const Body& body, const std::shared_ptr<Scope>& scope,
                                    std::string& out) {
  for (const auto& stmt : body) {
    const Flow flow = exec(*stmt, scope, out);
    if (flow != Flow::normal) return flow;
  }
  return Flow::normal;
}

Interpreter::Flow Interpreter::exec(const Stmt& stmt, const std::shared_ptr<Scope>& scope,
                                    std::string& out) {
  const Nested nested(depth_, *this, stmt.position);
  try {
    switch (stmt.kind) {
      case Stmt::Kind::text:
        out += stmt.text;
        check_size(out, *this, stmt.position);
        break;
      case Stmt::Kind::output:
        out += eval(*stmt.expr, scope).str();
        check_size(out, *this, stmt.position);
        break;
      case Stmt::Kind::if_:
        for (std::size_t i = 0; i < stmt.conditions.size(); ++i) {
          if (eval(*stmt.conditions[i], scope).truthy()) return exec(stmt.bodies[i], scope, out);
        }
        if (stmt.bodies.size() > stmt.conditions.size())
          return exec(stmt.bodies.back(), scope, out);
        break;
      case Stmt::Kind::for_:
        exec_for(stmt, scope, out);
        break;
      case Stmt::Kind::set:
        exec_set(stmt, scope);
        break;
      case Stmt::Kind::set_block: {
        std::string captured;
        exec(stmt.bodies[0], scope, captured);
        scope->set(stmt.targets[0], Value(std::move(captured)));
        break;
      }
      case Stmt::Kind::macro:
        define_macro(stmt, scope);
        break;
      case Stmt::Kind::break_:
        return Flow::break_;
      case Stmt::Kind::continue_:
        return Flow::continue_;
      case Stmt::Kind::passthrough:
        return exec(stmt.bodies[0], scope, out);
    }
  } catch (const PositionedError&) {
    throw;
  } catch (const Error& e) {
    fail(stmt.position, e.what());
  }
  return Flow::normal;
}

void Interpreter::exec_for(const Stmt& stmt, const std::shared_ptr<Scope>& scope,
                           std::string& out) {
  const Value iterable = eval(*stmt.expr, scope);
  std::vector<Value> items;
  for (auto& item : iterate(iterable)) {
    if (stmt.filter) {
      auto probe = std::make_shared<Scope>(scope);
      if (stmt.targets.size() == 1) {
        probe->set(stmt.targets[0], item);
      } else {
        const auto parts = iterate(item);
        for (std::size_t k = 0; k < stmt.targets.size() && k < parts.size(); ++k)
          probe->set(stmt.targets[k], parts[k]);
      }
      if (!eval(*stmt.filter, probe).truthy()) continue;
    }
    items.push_back(std::move(item));
  }
  const auto n = static_cast<std::int64_t>(items.size());
  for (std::int64_t i = 0; i < n; ++i) {
    auto body_scope = std::make_shared<Scope>(scope);
    const Value& item = items[static_cast<std::size_t>(i)];
    if (stmt.targets.size() == 1) {
      body_scope->set(stmt.targets[0], item);
    } else {
      const auto parts = iterate(item);
      if (parts.size() != stmt.targets.size()) {
        fail(stmt.position, "cannot unpack " + std::to_string(parts.size()) + " values into " +
                                std::to_string(stmt.targets.size()) + " loop variables");
      }
      for (std::size_t k = 0; k < parts.size(); ++k) body_scope->set(stmt.targets[k], parts[k]);
    }
    Value loop = Value::dict({{"index", Value(i + 1)},
                              {"index0", Value(i)},
                              {"revindex", Value(n - i)},
                              {"revindex0", Value(n - i - 1)},
                              {"first", Value(i == 0)},
                              {"last", Value(i == n - 1)},
                              {"length", Value(n)},
                              {"depth", Value(1)},
                              {"depth0", Value(0)},
                              {"previtem", i > 0 ? items[static_cast<std::size_t>(i - 1)]
                                                 : Value::undefined("previtem")},
                              {"nextitem", i + 1 < n ? items[static_cast<std::size_t>(i + 1)]
                                                     : Value::undefined("nextitem")}});
    loop.as_dict().set("cycle", Value::function("cycle", [i](Interpreter&, CallArgs& a) {
                         if (a.positional.empty()) throw Error("loop.cycle: no items");
                         return a.positional[static_cast<std::size_t>(i) % a.positional.size()];
                       }));
    body_scope->set("loop", loop);
    if (exec(stmt.bodies[0], body_scope, out) == Flow::break_) break;
  }
  if (n == 0 && stmt.bodies.size() > 1) exec(stmt.bodies[1], std::make_shared<Scope>(scope), out);
}

void Interpreter::exec_set(const Stmt& stmt, const std::shared_ptr<Scope>& scope) {
  Value value = eval(*stmt.expr, scope);
  if (!stmt.attribute.empty()) {
    const Value* target = scope->find(stmt.targets[0]);
    if (target == nullptr || !target->is_dict() || !target->as_dict().is_namespace) {
      fail(stmt.position,
           "cannot assign attribute on non-namespace object '" + stmt.targets[0] + "'");
    }
    target->as_dict().set(stmt.attribute, std::move(value));
    return;
  }
  if (stmt.targets.size() == 1) {
    scope->set(stmt.targets[0], std::move(value));
    return;
  }
  const auto parts = iterate(value);
  if (parts.size() != stmt.targets.size()) {
    fail(stmt.position, "cannot unpack " + std::to_string(parts.size()) + " values into " +
                            std::to_string(stmt.targets.size()) + " names");
  }
  for (std::size_t k = 0; k < parts.size(); ++k) scope->set(stmt.targets[k], parts[k]);
}

void Interpreter::define_macro(const Stmt& stmt, const std::shared_ptr<Scope>& scope) {
  const Stmt* macro = &stmt;
  scope->set(stmt.text,
             Value::function(stmt.text, [this, macro, scope](Interpreter&, CallArgs& args) {
               auto local = std::make_shared<Scope>(scope);
               for (std::size_t k = 0; k < macro->parameters.size(); ++k) {
                 const auto& [name, fallback] = macro->parameters[k];
                 if (const Value* v = args.get(k, name)) {
                   local->set(name, *v);
                 } else if (fallback) {
                   local->set(name, eval(*fallback, local));
                 } else {
                   local->set(name, Value::undefined(name));
                 }
               }
               if (args.positional.size() > macro->parameters.size()) {
                 throw Error("macro '" + macro->text + "' takes " +
                             std::to_string(macro->parameters.size()) + " arguments");
               }
               std::string out;
               exec(macro->bodies[0], local, out);
               return Value(std::move(out));
             }));
}

Value Interpreter::call(const Value& function, CallArgs& args, const Position& at) {
  if (function.is_undefined()) fail(at, "'" + function.undefined_name() + "' is undefined");
  if (!function.is_function()) fail(at, "'" + function.type_name() + "' object is not callable");
  return function.as_function().call(*this, args);
}

CallArgs Interpreter::eval_args(const Expr& expr, const std::shared_ptr<Scope>& scope) {
  CallArgs args;
  for (const auto& item : expr.items) args.positional.push_back(eval(*item, scope));
  for (const auto& [key, value] : expr.keywords)
    args.keyword.emplace_back(key, eval(*value, scope));
  return args;
}

Value Interpreter::eval_call(const Expr& expr, const std::shared_ptr<Scope>& scope) {
  const Value callee = eval(*expr.a, scope);
  CallArgs args = eval_args(expr, scope);
  return call(callee, args, expr.position);
}

Value Interpreter::eval_binary(const Expr& expr, const std::shared_ptr<Scope>& scope) {
  if (expr.text == "and") {
    Value left = eval(*expr.a, scope);
    return left.truthy() ? eval(*expr.b, scope) : left;
  }
  if (expr.text == "or") {
    Value left = eval(*expr.a, scope);
    return left.truthy() ? left : eval(*expr.b, scope);
  }
  return arithmetic(expr.text, eval(*expr.a, scope), eval(*expr.b, scope));
}

Value Interpreter::eval_compare(const Expr& expr, const std::shared_ptr<Scope>& scope) {
  Value left = eval(*expr.a, scope);
  for (std::size_t i = 0; i < expr.operators.size(); ++i) {
    Value right = eval(*expr.items[i], scope);
    const std::string& op = expr.operators[i];
    bool result = false;
    if (op == "==")
      result = left.equals(right);
    else if (op == "!=")
      result = !left.equals(right);
    else if (op == "<")
      result = less_than(left, right);
    else if (op == ">")
      result = less_than(right, left);
    else if (op == "<=")
      result = !less_than(right, left);
    else if (op == ">=")
      result = !less_than(left, right);
    else if (op == "in")
      result = contains(right, left);
    else
      result = !contains(right, left);
    if (!result) return Value(false);
    left = std::move(right);
  }
  return Value(true);
}

Value Interpreter::eval(const Expr& expr, const std::shared_ptr<Scope>& scope) {
  const Nested nested(depth_, *this, expr.position);
  try {
    switch (expr.kind) {
      case Expr::Kind::literal:
        return expr.value;
      case Expr::Kind::name: {
        if (const Value* v = scope->find(expr.text)) return *v;
        return global(expr.text);
      }
      case Expr::Kind::list:
      case Expr::Kind::tuple: {
        std::vector<Value> items;
        for (const auto& item : expr.items) items.push_back(eval(*item, scope));
        return Value::list(std::move(items), expr.kind == Expr::Kind::tuple);
      }
      case Expr::Kind::dict: {
        Value dict = Value::dict();
        for (std::size_t k = 0; k + 1 < expr.items.size(); k += 2) {
          const Value key = eval(*expr.items[k], scope);
          if (!key.is_string())
            fail(expr.items[k]->position, "dict keys must be strings in this implementation");
          dict.as_dict().set(key.as_string(), eval(*expr.items[k + 1], scope));
        }
        return dict;
      }
      case Expr::Kind::getattr: {
        const Value object = eval(*expr.a, scope);
        if (object.is_undefined())
          fail(expr.position,
               "'" + object.undefined_name() + "' is undefined (reading ." + expr.text + ")");
        return get_attribute(object, expr.text);
      }
      case Expr::Kind::getitem: {
        const Value object = eval(*expr.a, scope);
        if (object.is_undefined())
          fail(expr.position, "'" + object.undefined_name() + "' is undefined (subscripted)");
        return get_item(object, eval(*expr.b, scope));
      }
      case Expr::Kind::slice: {
        const Value object = eval(*expr.a, scope);
        if (object.is_undefined())
          fail(expr.position, "'" + object.undefined_name() + "' is undefined (sliced)");
        const auto part = [&](std::size_t k) {
          return expr.items[k] ? eval(*expr.items[k], scope) : Value::none();
        };
        return slice(object, part(0), part(1), part(2));
      }
      case Expr::Kind::call:
        return eval_call(expr, scope);
      case Expr::Kind::filter: {
        const Value input = eval(*expr.a, scope);
        CallArgs args = eval_args(expr, scope);
        return apply_filter(*this, expr.text, input, args);
      }
      case Expr::Kind::test: {
        const Value input = eval(*expr.a, scope);
        const CallArgs args = eval_args(expr, scope);
        return Value(apply_test(expr.text, input, args) != expr.negated);
      }
      case Expr::Kind::unary: {
        const Value operand = eval(*expr.a, scope);
        if (expr.text == "not") return Value(!operand.truthy());
        if (operand.is_undefined())
          fail(expr.position, "'" + operand.undefined_name() + "' is undefined");
        if (!operand.is_number())
          fail(expr.position,
               "bad operand type for unary " + expr.text + ": '" + operand.type_name() + "'");
        if (expr.text == "+") return operand.is_real() ? operand : Value(operand.to_int());
        return operand.is_real() ? Value(-operand.as_real()) : Value(-operand.to_int());
      }
      case Expr::Kind::binary:
        return eval_binary(expr, scope);
      case Expr::Kind::compare:
        return eval_compare(expr, scope);
      case Expr::Kind::conditional:
        if (eval(*expr.b, scope).truthy()) return eval(*expr.a, scope);
        return expr.c ? eval(*expr.c, scope) : Value::undefined("else");
    }
  } catch (const PositionedError&) {
    throw;
  } catch (const Error& e) {
    fail(expr.position, e.what());
  }
  return Value();
}

}  // namespace verlpp::tokenizer::jinja
