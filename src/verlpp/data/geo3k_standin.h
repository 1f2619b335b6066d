// A generated stand-in for geo3k in verl's geo3k schema (geo3k_preprocess.h), for tests and demos
// where the public dataset cannot be downloaded: diagrams drawn with cairo, each with a question
// whose answer is computed from what was drawn (multimodal.md §8):
//   count: 1 to max_count filled circles: "How many circles are in the figure?" -> N;
//   angle: a triangle with two interior angles labelled in degrees and the third "x°":
//          "Find x." -> 180 - a - b;
//   area:  a rectangle with its sides labelled: "Find the area of the rectangle." -> w h.
// Canvas sizes vary (96 to 320 by 64 to 256 pixels: smart_resize rounds both ways, small ones are
// upscaled), every fourth image is RGBA with a transparent background (composited onto white by
// to_rgb). Everything is drawn from a seeded splitmix64 stream: the same seed gives the same
// pictures and rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace verlpp::data {

struct Geo3kStandinOptions {
  std::int64_t train_rows = 64;
  std::int64_t test_rows = 16;
  std::uint64_t seed = 0;
  std::vector<std::string> kinds = {"count", "angle", "area"};  // drawn in turn
  int max_count = 5;                                            // count: 1..max_count circles
};

// Whether this build draws (cairo found at build time).
bool geo3k_standin_supported();

// Writes OUTPUT_DIR/{train,test}.jsonl (the problem with a leading "<image>", verl's instruction)
// and OUTPUT_DIR/images/*.png, referenced by relative path. Returns the files written. Throws
// verlpp::Error for an unknown kind, max_count outside [1, 9], a row count outside [1, 10^6], a
// folder that cannot be written, or a build without cairo.
std::vector<std::string> write_geo3k_standin(const std::string& output_dir,
                                             const Geo3kStandinOptions& options);

}  // namespace verlpp::data
