// Metrics over micro-batches and ranks: averaged, summed (loss keys), or their extreme
// (algo::aggregation_of: verl's AggregationType MIN / MAX for the distillation extremes).
#include "verlpp/engine/metric_accumulator.h"

#include <gtest/gtest.h>

#include <limits>

#include "../dist/two_ranks.h"

namespace verlpp::engine {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(MetricAccumulator, ExtremesTakeTheExtremeAndTheRestTheMean) {
  MetricAccumulator m;
  for (const double v : {1.0, 5.0, 3.0}) {
    m.append("distillation/loss_max", v);
    m.append("distillation/loss_min", v);
    m.append("distillation/loss", v);
    m.append("pg_clipfrac_lower", v);  // not an extreme: ends in neither _min nor _max
    m.append("rollout_is_max", v);     // an extreme only under distillation/
  }
  m.append("distillation/student_mass_min", kInf);  // a micro-batch without response tokens
  m.append("distillation/student_mass_min", 0.25);
  const algo::Metrics out = m.combined("actor/");
  EXPECT_EQ(out.at("actor/distillation/loss_max"), 5.0);
  EXPECT_EQ(out.at("actor/distillation/loss_min"), 1.0);
  EXPECT_EQ(out.at("actor/distillation/loss"), 3.0);
  EXPECT_EQ(out.at("actor/pg_clipfrac_lower"), 3.0);
  EXPECT_EQ(out.at("actor/rollout_is_max"), 3.0);
  EXPECT_EQ(out.at("actor/distillation/student_mass_min"), 0.25);
}

TEST(MetricAccumulator, AWorldOfOneKeepsValuesAndZeroesAnExtremeOverNoTokens) {
  const algo::Metrics out = reduce_over_ranks({{"actor/distillation/loss_min", kInf},
                                               {"actor/distillation/loss_max", -kInf},
                                               {"actor/x", 2.0},
                                               {"actor/pg_loss", 0.5}},
                                              dist::Communicator(), {"actor/pg_loss"}, "actor/");
  EXPECT_EQ(out.at("actor/distillation/loss_min"), 0.0);
  EXPECT_EQ(out.at("actor/distillation/loss_max"), 0.0);
  EXPECT_EQ(out.at("actor/x"), 2.0);
  EXPECT_EQ(out.at("actor/pg_loss"), 0.5);
}

class MetricRanks : public dist::test_ranks::GlooTest {};

TEST_F(MetricRanks, ExtremesSumsAndMeansOverTwoRanks) {
  dist::test_ranks::run_both([](const dist::Communicator& comm) {
    const bool first = comm.rank() == 0;
    const algo::Metrics local = {{"actor/distillation/loss_max", first ? 2.0 : 7.0},
                                 {"actor/distillation/loss_min", first ? -1.0 : 3.0},
                                 {"actor/distillation/teacher_mass_min", first ? kInf : 0.5},
                                 {"actor/x", first ? 1.0 : 3.0},
                                 {"actor/pg_loss", first ? 0.5 : 0.25}};
    const algo::Metrics out = reduce_over_ranks(local, comm, {"actor/pg_loss"}, "actor/");
    EXPECT_EQ(out.at("actor/distillation/loss_max"), 7.0);
    EXPECT_EQ(out.at("actor/distillation/loss_min"), -1.0);
    EXPECT_EQ(out.at("actor/distillation/teacher_mass_min"), 0.5);
    EXPECT_EQ(out.at("actor/x"), 2.0);
    EXPECT_EQ(out.at("actor/pg_loss"), 0.75);
  });
}

}  // namespace
}  // namespace verlpp::engine
