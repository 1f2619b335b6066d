// The syntax tree of a parsed template: expressions (Expr) and statements (Stmt), each with its
// source position for error messages.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "verlpp/tokenizer/jinja/lexer.h"
#include "verlpp/tokenizer/jinja/value.h"

namespace verlpp::tokenizer::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind {
    literal,     // value
    name,        // text
    list,        // items
    tuple,       // items
    dict,        // keys (items[2k]) and values (items[2k+1])
    getattr,     // object=a, text=attribute
    getitem,     // object=a, key=b
    slice,       // object=a, start=items[0], stop=items[1], step=items[2] (null when absent)
    call,        // callee=a, args=items, kwargs=keywords
    filter,      // input=a (null inside {% filter %}), text=name, args=items, kwargs=keywords
    test,        // input=a, text=name, args=items, negated
    unary,       // text="-", "+" or "not", operand=a
    binary,      // text=operator ("+", "-", "*", "/", "//", "%", "**", "~", "and", "or"), a, b
    compare,     // a, then operators[i] applied with items[i] (chained)
    conditional  // a if b else c (c may be null)
  };
  Kind kind;
  Position position;
  Value value;
  std::string text;
  ExprPtr a, b, c;
  std::vector<ExprPtr> items;
  std::vector<std::pair<std::string, ExprPtr>> keywords;
  std::vector<std::string> operators;
  bool negated = false;
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

struct Stmt {
  enum class Kind {
    text,       // text
    output,     // expr
    if_,        // conditions[i] guards bodies[i]; bodies.back() is the else body when
                // bodies.size() > conditions.size()
    for_,       // targets, expr (iterable), filter (optional), bodies[0] loop, bodies[1] else
    set,        // targets (one name, or several to unpack) or attribute (ns.attr): expr
    set_block,  // targets[0] = rendered bodies[0]
    macro,      // name, parameters (+ defaults), bodies[0]
    break_,
    continue_,
    passthrough  // bodies[0] rendered as is ({% generation %} of transformers)
  };
  Kind kind;
  Position position;
  std::string text;
  ExprPtr expr, filter;
  std::vector<ExprPtr> conditions;
  std::vector<Body> bodies;
  std::vector<std::string> targets;
  std::string attribute;                                    // set ns.attribute = ...
  std::vector<std::pair<std::string, ExprPtr>> parameters;  // macro parameters, default or null
};

struct Template {
  Body body;
  std::string name;
};

}  // namespace verlpp::tokenizer::jinja
