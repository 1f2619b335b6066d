// The dataloader: drop_last batches, per-epoch seeded shuffles, and exact resume.
#include "verlpp/data/dataloader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

using Batches = std::vector<std::vector<std::int64_t>>;

Batches take(StatefulDataLoader& loader, int count) {
  Batches out;
  for (int i = 0; i < count; ++i) out.push_back(loader.next());
  return out;
}

TEST(DataLoader, SequentialWithDropLast) {
  StatefulDataLoader loader(10, {.batch_size = 3, .shuffle = false});
  EXPECT_EQ(loader.batches_per_epoch(), 3);
  EXPECT_EQ(take(loader, 4), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 1, 2}}));
  EXPECT_EQ(loader.epoch(), 1);
}

TEST(DataLoader, EachEpochIsAPermutation) {
  StatefulDataLoader loader(10, {.batch_size = 5, .shuffle = true, .seed = 7});
  const Batches batches = take(loader, 4);  // two epochs of 2 batches
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<std::int64_t> rows = batches[2 * epoch];
    rows.insert(rows.end(), batches[2 * epoch + 1].begin(), batches[2 * epoch + 1].end());
    std::sort(rows.begin(), rows.end());
    EXPECT_EQ(rows, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  }
  EXPECT_NE(batches[0], batches[2]);  // a new shuffle each epoch
}

TEST(DataLoader, SeedDecidesTheOrder) {
  StatefulDataLoader a(50, {.batch_size = 10, .seed = 1});
  StatefulDataLoader b(50, {.batch_size = 10, .seed = 1});
  StatefulDataLoader c(50, {.batch_size = 10, .seed = 2});
  const Batches first = take(a, 7);
  EXPECT_EQ(first, take(b, 7));
  EXPECT_NE(first, take(c, 7));
}

TEST(DataLoader, ResumeAfterAnyBatchMatchesAnUninterruptedRun) {
  const DataLoaderConfig config{.batch_size = 3, .shuffle = true, .seed = 42};
  StatefulDataLoader reference(10, config);
  const Batches expected = take(reference, 10);  // 3 batches per epoch: crosses 3 epoch boundaries
  for (int stop = 0; stop <= 10; ++stop) {
    StatefulDataLoader first(10, config);
    Batches got = take(first, stop);
    const std::string saved = first.state().to_json().dump();
    StatefulDataLoader resumed(10, {.batch_size = 3, .shuffle = true, .seed = 999});
    resumed.load_state(DataLoaderState::from_json(nlohmann::json::parse(saved)));
    const Batches rest = take(resumed, 10 - stop);
    got.insert(got.end(), rest.begin(), rest.end());
    EXPECT_EQ(got, expected) << "stopped after " << stop << " batches";
  }
}

TEST(DataLoader, Errors) {
  EXPECT_THROW(StatefulDataLoader(4, {.batch_size = 5}), Error);
  EXPECT_THROW(StatefulDataLoader(4, {.batch_size = 0}), Error);
  StatefulDataLoader loader(10, {.batch_size = 3});
  StatefulDataLoader other(12, {.batch_size = 3});
  EXPECT_THROW(other.load_state(loader.state()), Error);
  try {  // another batch size: the message says how to go on
    StatefulDataLoader(10, {.batch_size = 2}).load_state(loader.state());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("10 rows in batches of 3; this run has 10 rows in batches "
                                         "of 2 (resume with the saved data and batch size, or "
                                         "start a new run: trainer.resume_mode=disable"),
              std::string::npos)
        << e.what();
  }
  auto state = loader.state();
  state.generator_state = "zz";
  EXPECT_THROW(loader.load_state(state), Error);
  EXPECT_THROW(DataLoaderState::from_json({{"epoch", 1}}), Error);
}

}  // namespace
}  // namespace verlpp::data
