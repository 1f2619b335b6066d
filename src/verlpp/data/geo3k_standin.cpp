#include "verlpp/data/geo3k_standin.h"

#include <cairo.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numbers>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/splitmix64.h"
#include "verlpp/data/geo3k_preprocess.h"
#include "verlpp/data/row_reader.h"

namespace verlpp::data {
namespace {

namespace fs = std::filesystem;

// A seeded stream of uniform draws.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : seed_(seed) {}
  double uniform() { return static_cast<double>(splitmix64(seed_, counter_++) >> 11) * 0x1.0p-53; }
  int integer(int lo, int hi) {  // in [lo, hi]
    return lo + std::min(hi - lo, static_cast<int>(uniform() * (hi - lo + 1)));
  }

 private:
  std::uint64_t seed_;
  std::uint64_t counter_ = 0;
};

struct Question {
  std::string problem, answer;
};

using Surface = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using Context = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

void label(cairo_t* cr, double x, double y, const std::string& text) {
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 13);
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, text.c_str());
}

Question draw_count(cairo_t* cr, int w, int h, Draws& d, int max_count) {
  const int n = d.integer(1, max_count);
  const double r = std::min(w, h) / 10.0;
  std::vector<std::pair<double, double>> centres;
  for (int tries = 0; static_cast<int>(centres.size()) < n && tries < 1000; ++tries) {
    const double x = r + d.uniform() * (w - 2 * r), y = r + d.uniform() * (h - 2 * r);
    const bool apart = std::all_of(centres.begin(), centres.end(), [&](const auto& c) {
      return std::hypot(c.first - x, c.second - y) > 2.2 * r;
    });
    if (apart) centres.emplace_back(x, y);
  }
  for (const auto& [x, y] : centres) {
    cairo_set_source_rgb(cr, 0.2 + 0.6 * d.uniform(), 0.2 + 0.6 * d.uniform(), 0.8);
    cairo_arc(cr, x, y, r, 0, 2 * std::numbers::pi);
    cairo_fill(cr);
  }
  return {"How many circles are in the figure?", std::to_string(centres.size())};
}

Question draw_angle(cairo_t* cr, int w, int h, Draws& d) {
  const int a = d.integer(30, 80), b = d.integer(30, 80);
  const double ar = a * std::numbers::pi / 180, br = b * std::numbers::pi / 180;
  // Base from (x0, y0) to (x1, y0); the apex where the rays at angles a and b meet.
  const double x0 = 0.12 * w, x1 = 0.88 * w, y0 = 0.85 * h, base = x1 - x0;
  const double t = base * std::tan(br) / (std::tan(ar) + std::tan(br));
  double px = x0 + t, py = y0 - t * std::tan(ar);
  py = std::max(py, 0.12 * h);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_set_line_width(cr, 2);
  cairo_move_to(cr, x0, y0);
  cairo_line_to(cr, x1, y0);
  cairo_line_to(cr, px, py);
  cairo_close_path(cr);
  cairo_stroke(cr);
  label(cr, x0 + 14, y0 - 4, std::to_string(a) + "\u00b0");
  label(cr, x1 - 40, y0 - 4, std::to_string(b) + "\u00b0");
  label(cr, px - 8, py + 22, "x\u00b0");
  return {"Find x.", std::to_string(180 - a - b)};
}

Question draw_area(cairo_t* cr, int w, int h, Draws& d) {
  const int sw = d.integer(2, 15), sh = d.integer(2, 15);
  const double scale = std::min(0.7 * w / sw, 0.6 * h / sh);
  const double x = (w - sw * scale) / 2, y = (h - sh * scale) / 2;
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_set_line_width(cr, 2);
  cairo_rectangle(cr, x, y, sw * scale, sh * scale);
  cairo_stroke(cr);
  label(cr, x + sw * scale / 2 - 6, y + sh * scale + 15, std::to_string(sw));
  label(cr, x + sw * scale + 4, y + sh * scale / 2 + 4, std::to_string(sh));
  return {"Find the area of the rectangle.", std::to_string(sw * sh)};
}

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

// One picture of `kind` as PNG bytes, and its question.
std::pair<std::string, Question> draw(const std::string& kind, Draws& d, bool transparent,
                                      int max_count) {
  const int w = d.integer(96, 320), h = d.integer(64, 256);
  Surface surface(
      cairo_image_surface_create(transparent ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24, w, h),
      &cairo_surface_destroy);
  Context cr(cairo_create(surface.get()), &cairo_destroy);
  if (!transparent) {
    cairo_set_source_rgb(cr.get(), 1, 1, 1);
    cairo_paint(cr.get());
  }
  Question q;
  if (kind == "count") q = draw_count(cr.get(), w, h, d, max_count);
  if (kind == "angle") q = draw_angle(cr.get(), w, h, d);
  if (kind == "area") q = draw_area(cr.get(), w, h, d);
  cairo_surface_flush(surface.get());
  std::string png;
  if (cairo_surface_write_to_png_stream(surface.get(), append_bytes, &png) !=
      CAIRO_STATUS_SUCCESS) {
    throw Error("geo3k stand-in: cairo could not encode a PNG");
  }
  return {png, q};
}

void check(const Geo3kStandinOptions& o) {
  constexpr std::int64_t kMaxRows = 1'000'000;
  if (o.train_rows < 1 || o.test_rows < 1 || o.train_rows > kMaxRows || o.test_rows > kMaxRows) {
    throw Error("geo3k stand-in: row counts must be in [1, 1000000]");
  }
  if (o.max_count < 1 || o.max_count > 9) {
    throw Error(fmt::format("geo3k stand-in: max_count {} is outside [1, 9]", o.max_count));
  }
  if (o.kinds.empty()) throw Error("geo3k stand-in: no kinds of question given");
  for (const std::string& kind : o.kinds) {
    if (kind != "count" && kind != "angle" && kind != "area") {
      throw Error("geo3k stand-in: unknown kind '" + kind + "' (expected count, angle or area)");
    }
  }
}

}  // namespace

bool geo3k_standin_supported() { return true; }

std::vector<std::string> write_geo3k_standin(const std::string& output_dir,
                                             const Geo3kStandinOptions& options) {
  check(options);
  if (output_dir.empty())
    throw Error("geo3k stand-in: the output folder is empty (give --output DIR)");
  std::error_code ec;
  fs::create_directories(fs::path(output_dir) / "images", ec);
  if (ec) {
    throw Error(fmt::format("{}: cannot create output directory: {}", output_dir, ec.message()));
  }
  std::vector<std::string> written;
  Draws d(options.seed);
  for (const auto& [split, count] :
       {std::pair<std::string, std::int64_t>{"train", options.train_rows},
        std::pair<std::string, std::int64_t>{"test", options.test_rows}}) {
    std::vector<Row> rows;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::string& kind = options.kinds[static_cast<std::size_t>(i) % options.kinds.size()];
      const auto [png, q] = draw(kind, d, i % 4 == 3, options.max_count);
      const std::string image = fmt::format("images/{}_{}.png", split, i);
      write_file_atomically(fs::path(output_dir) / image, png);
      Row row = make_geo3k_row("<image>" + q.problem, q.answer, Row::array({Row{{"path", image}}}),
                               split, i);
      row["extra_info"]["kind"] = kind;
      rows.push_back(std::move(row));
    }
    const auto files = write_split(output_dir, split, rows, /*parquet=*/false);
    written.insert(written.end(), files.begin(), files.end());
  }
  return written;
}

}  // namespace verlpp::data
