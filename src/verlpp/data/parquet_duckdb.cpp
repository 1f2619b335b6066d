// Parquet I/O through DuckDB's C library (built when scripts/setup installed it and Apache Arrow is
// absent; see parquet_io.h). Reading walks DuckDB's result vectors; writing infers the schema from
// the JSON rows (as Arrow's JSON reader does) and has DuckDB's JSON reader load them with exactly
// that schema, so that strings such as "2024-01-01" are never turned into dates.
#include <duckdb.h>
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/json_parse.h"
#include "verlpp/data/parquet_io.h"
#include "verlpp/data/row_reader.h"

namespace verlpp::data {
namespace {

std::string quoted(std::string_view text, char quote) {
  std::string out(1, quote);
  for (const char c : text) {
    out += c;
    if (c == quote) out += quote;
  }
  return out + quote;
}

std::string sql_string(std::string_view text) { return quoted(text, '\''); }
std::string sql_identifier(std::string_view text) { return quoted(text, '"'); }

// A query's result, destroyed on scope exit (DuckDB requires it even when the query failed).
struct Result {
  duckdb_result result{};
  Result() = default;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  ~Result() { duckdb_destroy_result(&result); }
};

// One in-memory DuckDB database and its connection.
class Database {
 public:
  explicit Database(const std::string& context) {
    if (duckdb_open(nullptr, &database_) == DuckDBError) {
      throw Error(context + ": DuckDB cannot open an in-memory database");
    }
    if (duckdb_connect(database_, &connection_) == DuckDBError) {
      duckdb_close(&database_);
      throw Error(context + ": DuckDB cannot connect to its in-memory database");
    }
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database() {
    duckdb_disconnect(&connection_);
    duckdb_close(&database_);
  }

  // Runs `sql` into `out`; throws verlpp::Error "CONTEXT: DuckDB's message" when it fails.
  void query(const std::string& sql, Result& out, const std::string& context) {
    if (duckdb_query(connection_, sql.c_str(), &out.result) == DuckDBError) {
      const char* message = duckdb_result_error(&out.result);
      throw Error(context + ": " + (message != nullptr ? message : "DuckDB query failed"));
    }
  }

 private:
  duckdb_database database_{};
  duckdb_connection connection_{};
};

// ---- reading ----

// A column's type tree as DuckDB reports it.
struct ColumnType {
  duckdb_type id = DUCKDB_TYPE_INVALID;
  std::vector<std::string> names;    // STRUCT: its fields
  std::vector<ColumnType> children;  // LIST/ARRAY: the element; MAP: key, value; STRUCT: fields
  idx_t array_size = 0;              // ARRAY
};

ColumnType describe(duckdb_logical_type type) {
  ColumnType out;
  out.id = duckdb_get_type_id(type);
  const auto add_child = [&out](duckdb_logical_type child) {
    out.children.push_back(describe(child));
    duckdb_destroy_logical_type(&child);
  };
  switch (out.id) {
    case DUCKDB_TYPE_LIST:
    case DUCKDB_TYPE_MAP:  // a LIST of STRUCT(key, value)
      add_child(duckdb_list_type_child_type(type));
      break;
    case DUCKDB_TYPE_ARRAY:
      out.array_size = duckdb_array_type_array_size(type);
      add_child(duckdb_array_type_child_type(type));
      break;
    case DUCKDB_TYPE_STRUCT:
      for (idx_t i = 0; i < duckdb_struct_type_child_count(type); ++i) {
        char* name = duckdb_struct_type_child_name(type, i);
        out.names.emplace_back(name);
        duckdb_free(name);
        add_child(duckdb_struct_type_child_type(type, i));
      }
      break;
    default:
      break;
  }
  return out;
}

// Whether every part of the type is read from the vectors here (the rest goes through to_json).
bool readable(const ColumnType& type) {
  switch (type.id) {
    case DUCKDB_TYPE_BOOLEAN:
    case DUCKDB_TYPE_TINYINT:
    case DUCKDB_TYPE_SMALLINT:
    case DUCKDB_TYPE_INTEGER:
    case DUCKDB_TYPE_BIGINT:
    case DUCKDB_TYPE_UTINYINT:
    case DUCKDB_TYPE_USMALLINT:
    case DUCKDB_TYPE_UINTEGER:
    case DUCKDB_TYPE_UBIGINT:
    case DUCKDB_TYPE_FLOAT:
    case DUCKDB_TYPE_DOUBLE:
    case DUCKDB_TYPE_VARCHAR:
    case DUCKDB_TYPE_BLOB:
    case DUCKDB_TYPE_SQLNULL:
      return true;
    case DUCKDB_TYPE_LIST:
    case DUCKDB_TYPE_MAP:
    case DUCKDB_TYPE_ARRAY:
    case DUCKDB_TYPE_STRUCT:
      for (const auto& child : type.children) {
        if (!readable(child)) return false;
      }
      return true;
    default:
      return false;
  }
}

Row value_at(duckdb_vector vector, const ColumnType& type, idx_t row);

template <typename T>
Row primitive(duckdb_vector vector, idx_t row) {
  return static_cast<const T*>(duckdb_vector_get_data(vector))[row];
}

const duckdb_list_entry& list_entry(duckdb_vector vector, idx_t row) {
  return static_cast<const duckdb_list_entry*>(duckdb_vector_get_data(vector))[row];
}

Row list_at(duckdb_vector vector, const ColumnType& type, idx_t row) {
  const duckdb_list_entry& entry = list_entry(vector, row);
  duckdb_vector child = duckdb_list_vector_get_child(vector);
  Row out = Row::array();
  for (idx_t i = entry.offset; i < entry.offset + entry.length; ++i) {
    out.push_back(value_at(child, type.children[0], i));
  }
  return out;
}

Row array_at(duckdb_vector vector, const ColumnType& type, idx_t row) {
  duckdb_vector child = duckdb_array_vector_get_child(vector);
  Row out = Row::array();
  for (idx_t j = 0; j < type.array_size; ++j) {
    out.push_back(value_at(child, type.children[0], row * type.array_size + j));
  }
  return out;
}

Row map_at(duckdb_vector vector, const ColumnType& type, idx_t row) {
  const duckdb_list_entry& entry = list_entry(vector, row);
  duckdb_vector entries = duckdb_list_vector_get_child(vector);
  duckdb_vector keys = duckdb_struct_vector_get_child(entries, 0);
  duckdb_vector values = duckdb_struct_vector_get_child(entries, 1);
  const ColumnType& pair = type.children[0];
  Row out = Row::object();
  for (idx_t i = entry.offset; i < entry.offset + entry.length; ++i) {
    const Row key = value_at(keys, pair.children[0], i);
    out[key.is_string() ? key.get<std::string>() : key.dump()] =
        value_at(values, pair.children[1], i);
  }
  return out;
}

Row struct_at(duckdb_vector vector, const ColumnType& type, idx_t row) {
  Row out = Row::object();
  for (std::size_t i = 0; i < type.names.size(); ++i) {
    out[type.names[i]] = value_at(duckdb_struct_vector_get_child(vector, i), type.children[i], row);
  }
  return out;
}

Row string_at(duckdb_vector vector, idx_t row) {
  auto* value = static_cast<duckdb_string_t*>(duckdb_vector_get_data(vector)) + row;
  return std::string(duckdb_string_t_data(value), duckdb_string_t_length(*value));
}

Row value_at(duckdb_vector vector, const ColumnType& type, idx_t row) {
  std::uint64_t* validity = duckdb_vector_get_validity(vector);
  if (validity != nullptr && !duckdb_validity_row_is_valid(validity, row)) return nullptr;
  switch (type.id) {
    case DUCKDB_TYPE_BOOLEAN:
      return primitive<bool>(vector, row);
    case DUCKDB_TYPE_TINYINT:
      return primitive<std::int8_t>(vector, row);
    case DUCKDB_TYPE_SMALLINT:
      return primitive<std::int16_t>(vector, row);
    case DUCKDB_TYPE_INTEGER:
      return primitive<std::int32_t>(vector, row);
    case DUCKDB_TYPE_BIGINT:
      return primitive<std::int64_t>(vector, row);
    case DUCKDB_TYPE_UTINYINT:
      return primitive<std::uint8_t>(vector, row);
    case DUCKDB_TYPE_USMALLINT:
      return primitive<std::uint16_t>(vector, row);
    case DUCKDB_TYPE_UINTEGER:
      return primitive<std::uint32_t>(vector, row);
    case DUCKDB_TYPE_UBIGINT:
      return primitive<std::uint64_t>(vector, row);
    case DUCKDB_TYPE_FLOAT:
      return primitive<float>(vector, row);
    case DUCKDB_TYPE_DOUBLE:
      return primitive<double>(vector, row);
    case DUCKDB_TYPE_VARCHAR:
    case DUCKDB_TYPE_BLOB:
      return string_at(vector, row);
    case DUCKDB_TYPE_LIST:
      return list_at(vector, type, row);
    case DUCKDB_TYPE_ARRAY:
      return array_at(vector, type, row);
    case DUCKDB_TYPE_MAP:
      return map_at(vector, type, row);
    case DUCKDB_TYPE_STRUCT:
      return struct_at(vector, type, row);
    default:  // SQLNULL; readable() sends every other type through to_json
      return nullptr;
  }
}

struct Column {
  std::string name;
  ColumnType type;
  bool as_json = false;  // selected as to_json(column): parsed here
};

std::vector<Column> columns_of(Database& database, const std::string& source,
                               const std::string& path) {
  Result schema;
  database.query("SELECT * FROM " + source + " LIMIT 0", schema, path);
  std::vector<Column> columns;
  for (idx_t c = 0; c < duckdb_column_count(&schema.result); ++c) {
    duckdb_logical_type type = duckdb_column_logical_type(&schema.result, c);
    Column column{duckdb_column_name(&schema.result, c), describe(type)};
    duckdb_destroy_logical_type(&type);
    column.as_json = !readable(column.type);
    columns.push_back(std::move(column));
  }
  return columns;
}

std::string select_list(const std::vector<Column>& columns) {
  std::string out;
  for (const auto& column : columns) {
    if (!out.empty()) out += ", ";
    const std::string name = sql_identifier(column.name);
    out += column.as_json ? fmt::format("to_json({0})::VARCHAR AS {0}", name) : name;
  }
  return out;
}

Row json_value(duckdb_vector vector, idx_t row, const std::string& path, const Column& column) {
  std::uint64_t* validity = duckdb_vector_get_validity(vector);
  if (validity != nullptr && !duckdb_validity_row_is_valid(validity, row)) return nullptr;
  const Row text = string_at(vector, row);
  try {
    return parse_json<Row>(text.get_ref<const std::string&>());
  } catch (const std::exception& e) {
    throw Error(fmt::format("{}: column '{}': cannot convert its value to JSON: {}", path,
                            column.name, e.what()));
  }
}

void append_chunk(duckdb_data_chunk chunk, const std::vector<Column>& columns,
                  const std::string& path, std::vector<Row>& rows) {
  const idx_t size = duckdb_data_chunk_get_size(chunk);
  const std::size_t first = rows.size();
  rows.resize(first + size, Row::object());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    duckdb_vector vector = duckdb_data_chunk_get_vector(chunk, c);
    for (idx_t r = 0; r < size; ++r) {
      rows[first + r][columns[c].name] = columns[c].as_json
                                             ? json_value(vector, r, path, columns[c])
                                             : value_at(vector, columns[c].type, r);
    }
  }
}

// ---- writing ----

// A JSON value's Parquet type, widened over every row as Arrow's JSON reader infers it.
struct InferredType {
  enum Kind { kNull, kBool, kInt, kDouble, kString, kList, kStruct } kind = kNull;
  std::vector<std::pair<std::string, InferredType>> fields;  // kStruct, in order of appearance
  std::vector<InferredType> element;                         // kList: one
};

const char* kind_name(InferredType::Kind kind) {
  static constexpr const char* kNames[] = {"null",     "a boolean", "an integer", "a float",
                                           "a string", "a list",    "an object"};
  return kNames[kind];
}

InferredType::Kind kind_of(const Row& value, const std::string& where) {
  if (value.is_null()) return InferredType::kNull;
  if (value.is_boolean()) return InferredType::kBool;
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) {
    throw Error(fmt::format("{}: {} does not fit Parquet's int64", where, value.dump()));
  }
  if (value.is_number_integer()) return InferredType::kInt;
  if (value.is_number_float()) return InferredType::kDouble;
  if (value.is_string()) return InferredType::kString;
  if (value.is_array()) return InferredType::kList;
  return InferredType::kStruct;
}

void widen(InferredType& type, const Row& value, const std::string& where);

void widen_fields(InferredType& type, const Row& object, const std::string& where) {
  for (const auto& [name, item] : object.items()) {
    auto it = type.fields.begin();
    while (it != type.fields.end() && it->first != name) ++it;
    if (it == type.fields.end()) {
      type.fields.emplace_back(name, InferredType{});
      it = type.fields.end() - 1;
    }
    widen(it->second, item, where + "." + name);
  }
}

void widen(InferredType& type, const Row& value, const std::string& where) {
  const InferredType::Kind kind = kind_of(value, where);
  if (kind == InferredType::kNull) return;
  const bool numbers = (type.kind == InferredType::kInt || type.kind == InferredType::kDouble) &&
                       (kind == InferredType::kInt || kind == InferredType::kDouble);
  if (numbers) {
    if (kind == InferredType::kDouble) type.kind = InferredType::kDouble;
    return;
  }
  if (type.kind != InferredType::kNull && type.kind != kind) {
    throw Error(
        fmt::format("{} is {} here and {} in an earlier row: Parquet needs one type per "
                    "column",
                    where, kind_name(kind), kind_name(type.kind)));
  }
  type.kind = kind;
  if (kind == InferredType::kList) {
    if (type.element.empty()) type.element.emplace_back();
    for (const auto& item : value) widen(type.element[0], item, where + "[]");
  } else if (kind == InferredType::kStruct) {
    widen_fields(type, value, where);
  }
}

std::string sql_type(const InferredType& type) {
  switch (type.kind) {
    case InferredType::kBool:
      return "BOOLEAN";
    case InferredType::kInt:
      return "BIGINT";
    case InferredType::kDouble:
      return "DOUBLE";
    case InferredType::kList:
      return sql_type(type.element[0]) + "[]";
    case InferredType::kStruct: {
      if (type.fields.empty()) return "MAP(VARCHAR, VARCHAR)";  // only {} seen: no fields to name
      std::string out = "STRUCT(";
      for (std::size_t i = 0; i < type.fields.size(); ++i) {
        if (i > 0) out += ", ";
        out += sql_identifier(type.fields[i].first) + " " + sql_type(type.fields[i].second);
      }
      return out + ")";
    }
    default:  // strings, and columns that are null in every row
      return "VARCHAR";
  }
}

// read_json's `columns` argument: {'name': 'TYPE', ...} in the rows' column order.
std::string columns_argument(const RowFile& file, const std::string& jsonl_path) {
  InferredType row_type;
  row_type.kind = InferredType::kStruct;
  for (std::size_t r = 0; r < file.rows.size(); ++r) {
    widen_fields(row_type, file.rows[r], fmt::format("{} line {}: column ", jsonl_path, r + 1));
  }
  std::string out = "{";
  for (const auto& [name, type] : row_type.fields) {
    if (out.size() > 1) out += ", ";
    out += sql_string(name) + ": " + sql_string(sql_type(type));
  }
  return out + "}";
}

}  // namespace

bool parquet_supported() { return true; }

std::vector<Row> read_parquet(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw Error(path + ": cannot open (not a readable file)");
  }
  Database database(path);
  const std::string source = "read_parquet(" + sql_string(path) + ")";
  const std::vector<Column> columns = columns_of(database, source, path);
  std::vector<Row> rows;
  if (columns.empty()) return rows;
  Result result;
  database.query("SELECT " + select_list(columns) + " FROM " + source, result, path);
  while (duckdb_data_chunk chunk = duckdb_fetch_chunk(result.result)) {
    try {
      append_chunk(chunk, columns, path, rows);
    } catch (...) {
      duckdb_destroy_data_chunk(&chunk);
      throw;
    }
    duckdb_destroy_data_chunk(&chunk);
  }
  return rows;
}

void write_parquet_from_jsonl(const std::string& jsonl_path, const std::string& parquet_path) {
  const std::string columns = columns_argument(read_rows(jsonl_path), jsonl_path);
  Database database(parquet_path);
  write_atomically(parquet_path, [&](const std::filesystem::path& temporary) {
    Result result;
    database.query(fmt::format("COPY (SELECT * FROM read_json({}, format = 'newline_delimited', "
                               "auto_detect = false, maximum_object_size = 1073741824, "
                               "columns = {})) TO {} (FORMAT parquet)",
                               sql_string(jsonl_path), columns, sql_string(temporary.string())),
                   result, parquet_path + ": cannot write Parquet");
  });
}

}  // namespace verlpp::data
