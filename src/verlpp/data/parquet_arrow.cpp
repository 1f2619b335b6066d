// Parquet I/O through Apache Arrow C++ (built when CMake found Arrow; see parquet_io.h).
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/json/reader.h>
#include <arrow/util/config.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>

#include "verlpp/core/error.h"
#include "verlpp/data/parquet_io.h"

namespace verlpp::data {
namespace {

void check(const arrow::Status& status, const std::string& what) {
  if (!status.ok()) throw Error(what + ": " + status.ToString());
}

template <typename T>
T value_or_throw(arrow::Result<T> result, const std::string& what) {
  check(result.status(), what);
  return std::move(result).ValueUnsafe();
}

Row scalar_to_json(const arrow::Scalar& scalar);

Row array_to_json(const arrow::Array& array) {
  Row out = Row::array();
  for (std::int64_t i = 0; i < array.length(); ++i) {
    out.push_back(scalar_to_json(*value_or_throw(array.GetScalar(i), "arrow GetScalar")));
  }
  return out;
}

template <typename ScalarType>
Row primitive(const arrow::Scalar& scalar) {
  return static_cast<const ScalarType&>(scalar).value;
}

Row struct_to_json(const arrow::Scalar& scalar) {
  const auto& value = static_cast<const arrow::StructScalar&>(scalar).value;
  const auto& type = static_cast<const arrow::StructType&>(*scalar.type);
  Row out = Row::object();
  for (int i = 0; i < type.num_fields(); ++i)
    out[type.field(i)->name()] = scalar_to_json(*value[i]);
  return out;
}

Row map_to_json(const arrow::Scalar& scalar) {
  const auto& entries = static_cast<const arrow::StructArray&>(
      *static_cast<const arrow::BaseListScalar&>(scalar).value);
  Row out = Row::object();
  for (std::int64_t i = 0; i < entries.length(); ++i) {
    const Row key = scalar_to_json(*value_or_throw(entries.field(0)->GetScalar(i), "map key"));
    const Row item = scalar_to_json(*value_or_throw(entries.field(1)->GetScalar(i), "map item"));
    out[key.is_string() ? key.get<std::string>() : key.dump()] = item;
  }
  return out;
}

Row scalar_to_json(const arrow::Scalar& scalar) {
  if (!scalar.is_valid) return nullptr;
  using arrow::Type;
  switch (scalar.type->id()) {
    case Type::NA:
      return nullptr;
    case Type::BOOL:
      return primitive<arrow::BooleanScalar>(scalar);
    case Type::INT8:
      return primitive<arrow::Int8Scalar>(scalar);
    case Type::INT16:
      return primitive<arrow::Int16Scalar>(scalar);
    case Type::INT32:
      return primitive<arrow::Int32Scalar>(scalar);
    case Type::INT64:
      return primitive<arrow::Int64Scalar>(scalar);
    case Type::UINT8:
      return primitive<arrow::UInt8Scalar>(scalar);
    case Type::UINT16:
      return primitive<arrow::UInt16Scalar>(scalar);
    case Type::UINT32:
      return primitive<arrow::UInt32Scalar>(scalar);
    case Type::UINT64:
      return primitive<arrow::UInt64Scalar>(scalar);
    case Type::FLOAT:
      return primitive<arrow::FloatScalar>(scalar);
    case Type::DOUBLE:
      return primitive<arrow::DoubleScalar>(scalar);
    case Type::STRING:
    case Type::LARGE_STRING:
    case Type::BINARY:
    case Type::LARGE_BINARY:
      return static_cast<const arrow::BaseBinaryScalar&>(scalar).value->ToString();
    case Type::STRUCT:
      return struct_to_json(scalar);
    case Type::MAP:
      return map_to_json(scalar);
    case Type::LIST:
    case Type::LARGE_LIST:
    case Type::FIXED_SIZE_LIST:
      return array_to_json(*static_cast<const arrow::BaseListScalar&>(scalar).value);
    case Type::DICTIONARY:
      return scalar_to_json(*value_or_throw(
          static_cast<const arrow::DictionaryScalar&>(scalar).GetEncodedValue(), "dictionary"));
    default:
      return scalar.ToString();
  }
}

// FileReader::ReadTable returns a Result since Arrow 24 (the Status form is deprecated there).
template <typename Reader>
std::shared_ptr<arrow::Table> read_table(Reader& reader, const std::string& path) {
  if constexpr (requires { reader.ReadTable(); }) {
    return value_or_throw(reader.ReadTable(), path + ": cannot read");
  } else {
    std::shared_ptr<arrow::Table> table;
    check(reader.ReadTable(&table), path + ": cannot read");
    return table;
  }
}

std::vector<Row> table_to_rows(const arrow::Table& table, const std::string& path) {
  std::vector<Row> rows(static_cast<std::size_t>(table.num_rows()), Row::object());
  for (int c = 0; c < table.num_columns(); ++c) {
    const std::string& name = table.schema()->field(c)->name();
    std::size_t r = 0;
    for (const auto& chunk : table.column(c)->chunks()) {
      for (std::int64_t i = 0; i < chunk->length(); ++i, ++r) {
        rows[r][name] = scalar_to_json(*value_or_throw(chunk->GetScalar(i), path));
      }
    }
  }
  return rows;
}

}  // namespace

bool parquet_supported() { return true; }

std::vector<Row> read_parquet(const std::string& path) {
  try {
    auto input = value_or_throw(arrow::io::ReadableFile::Open(path), path + ": cannot open");
    std::unique_ptr<parquet::arrow::FileReader> reader;
#if ARROW_VERSION_MAJOR >= 19
    reader = value_or_throw(parquet::arrow::OpenFile(input, arrow::default_memory_pool()),
                            path + ": not a Parquet file");
#else
    check(parquet::arrow::OpenFile(input, arrow::default_memory_pool(), &reader),
          path + ": not a Parquet file");
#endif
    return table_to_rows(*read_table(*reader, path), path);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {  // parquet::ParquetException from a corrupt file
    throw Error(path + ": cannot read Parquet: " + e.what());
  }
}

void write_parquet_from_jsonl(const std::string& jsonl_path, const std::string& parquet_path) {
  try {
    auto input = value_or_throw(arrow::io::ReadableFile::Open(jsonl_path), jsonl_path);
    auto reader =
        value_or_throw(arrow::json::TableReader::Make(arrow::default_memory_pool(), input,
                                                      arrow::json::ReadOptions::Defaults(),
                                                      arrow::json::ParseOptions::Defaults()),
                       jsonl_path);
    auto table = value_or_throw(reader->Read(), jsonl_path + ": Arrow JSON reader");
    auto output = value_or_throw(arrow::io::FileOutputStream::Open(parquet_path), parquet_path);
    check(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), output, 64 * 1024),
          parquet_path);
    check(output->Close(), parquet_path);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(parquet_path + ": cannot write Parquet: " + e.what());
  }
}

}  // namespace verlpp::data
