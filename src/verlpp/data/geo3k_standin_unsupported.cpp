#include "verlpp/core/error.h"
#include "verlpp/data/geo3k_standin.h"

namespace verlpp::data {

bool geo3k_standin_supported() { return false; }

std::vector<std::string> write_geo3k_standin(const std::string& output_dir,
                                             const Geo3kStandinOptions& /*options*/) {
  throw Error(output_dir +
              ": this verlpp was built without cairo, which draws the stand-in diagrams (install "
              "libcairo2-dev, then rebuild)");
}

}  // namespace verlpp::data
