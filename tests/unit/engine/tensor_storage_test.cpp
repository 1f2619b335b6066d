// core/tensor_storage.h, which sharding and deferred loading rest on: a tensor keeps its identity,
// sizes and dtype while its bytes are released and re-allocated.
#include "verlpp/core/tensor_storage.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace verlpp {
namespace {

TEST(TensorStorage, ReleaseAndAllocateKeepTheTensor) {
  at::Tensor t = at::arange(12, at::kFloat).view({3, 4});
  const c10::TensorImpl* impl = t.unsafeGetTensorImpl();
  EXPECT_TRUE(has_storage(t));
  release_storage(t);
  EXPECT_FALSE(has_storage(t));
  EXPECT_EQ(t.storage().nbytes(), 0u);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 4}));
  allocate_storage(t);
  EXPECT_TRUE(has_storage(t));
  EXPECT_EQ(t.storage().nbytes(), 48u);
  EXPECT_EQ(t.unsafeGetTensorImpl(), impl);
  t.fill_(2.5);
  EXPECT_EQ(t.sum().item<float>(), 30.0f);
}

TEST(TensorStorage, EmptyWithoutStorageHoldsNoBytes) {
  at::Tensor t = empty_without_storage({5, 7}, at::TensorOptions().dtype(at::kBFloat16));
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(t.scalar_type(), at::kBFloat16);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_FALSE(has_storage(t));
  EXPECT_EQ(t.storage().nbytes(), 0u);
  allocate_storage(t);
  t.zero_();
  EXPECT_EQ(t.storage().nbytes(), 70u);
  EXPECT_EQ(t.abs().sum().item<float>(), 0.0f);
}

}  // namespace
}  // namespace verlpp
