// CUDA: the fused rotary embedding and KV-cache write of a decode step
// (kernels/rope_cache_write.h) against the calls it replaces (model::apply_rope on q and k,
// index_copy_ of k and v into the caches, and with Qwen3's q/k norm model::rms_norm of each head
// first): bit-identical in fp32, bf16 and fp16, for full and partial rotary widths, head sizes
// whose rows are and are not 16-byte aligned, queries strided like a fused projection's output,
// and rows scattered over a larger cache. Also the binding's one-line error, which runs without a
// GPU.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/rope_cache_write.h"
#include "verlpp/model/layers/rms_norm.h"
#include "verlpp/model/layers/rope.h"

namespace verlpp::kernels {
namespace {

struct Case {
  int64_t head_dim, rotary;
  bool qk_norm;
};

void check_case(at::ScalarType dtype, const Case& c, at::Generator& gen) {
  const int64_t T = 19, Hq = 6, Hkv = 2, R = 64;
  const auto cuda = at::TensorOptions().device(at::kCUDA).dtype(dtype);
  const at::Tensor wide = at::randn({T, 2 * Hq * c.head_dim}, gen, at::kDouble).to(cuda);
  const at::Tensor q = wide.narrow(1, 0, Hq * c.head_dim).view({T, Hq, c.head_dim});
  const at::Tensor k = at::randn({T, Hkv, c.head_dim}, gen, at::kDouble).to(cuda);
  const at::Tensor v = at::randn({T, Hkv, c.head_dim}, gen, at::kDouble).to(cuda);
  const at::Tensor inv_freq =
      at::pow(10000.0, -at::arange(0, c.rotary, 2, at::kDouble) / c.rotary).to(at::kFloat);
  const at::Tensor positions = at::randint(0, 40000, {T}, gen, at::kLong).to(at::kCUDA);
  const model::RopeTables tables = model::rope_tables(inv_freq, positions, dtype);
  const at::Tensor rows = at::randperm(R, gen, at::kLong).narrow(0, 0, T).to(at::kCUDA);
  const at::Tensor start = at::randn({R, Hkv, c.head_dim}, gen, at::kDouble).to(cuda);
  at::Tensor keys = start.clone(), values = start.clone() * 2;
  at::Tensor want_keys = keys.clone(), want_values = values.clone();
  QkNorm norm;
  if (c.qk_norm) {
    norm = {at::rand({c.head_dim}, gen, at::kDouble).add(0.5).to(cuda),
            at::rand({c.head_dim}, gen, at::kDouble).add(0.5).to(cuda), 1e-6};
  }
  const at::Tensor qn = c.qk_norm ? model::rms_norm(q, norm.q_weight, norm.eps) : q;
  const at::Tensor kn = c.qk_norm ? model::rms_norm(k, norm.k_weight, norm.eps) : k;
  want_keys.index_copy_(0, rows, model::apply_rope(kn, tables));
  want_values.index_copy_(0, rows, v);
  const at::Tensor want_q = model::apply_rope(qn, tables);

  ASSERT_TRUE(
      can_rope_cache_write(q, k, v, tables.cos, tables.sin_signed, rows, keys, values, norm));
  const at::Tensor got_q =
      rope_cache_write(q, k, v, tables.cos, tables.sin_signed, rows, keys, values, norm);
  const std::string where = std::string(c10::toString(dtype)) + " head_dim " +
                            std::to_string(c.head_dim) + " rotary " + std::to_string(c.rotary) +
                            (c.qk_norm ? " with q/k norm" : "");
  EXPECT_TRUE(at::equal(got_q, want_q)) << where;
  EXPECT_TRUE(at::equal(keys, want_keys)) << where;
  EXPECT_TRUE(at::equal(values, want_values)) << where;
  // Not vacuous: the rotation changed the queries, and the norm changed them further.
  EXPECT_FALSE(at::equal(got_q, q)) << where;
  if (c.qk_norm) {
    EXPECT_FALSE(at::equal(got_q, model::apply_rope(q, tables))) << where;
  }
}

TEST(RopeCacheWriteGpu, BitIdenticalToApplyRopeAndIndexCopy) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const at::Tensor probe = at::zeros({1, 1, 2}, at::TensorOptions().device(at::kCUDA));
  const at::Tensor rows = at::zeros({1}, probe.options().dtype(at::kLong));
  if (!can_rope_cache_write(probe, probe, probe, probe[0], probe[0], rows, probe, probe)) {
    GTEST_SKIP() << "built without the kernel";
  }
  at::Generator gen = make_generator(at::kCPU, 53);
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf}) {
    for (const Case& c : {Case{128, 128, false}, Case{64, 16, false}, Case{128, 128, true},
                          Case{100, 36, true}, Case{256, 64, true}}) {
      check_case(dtype, c, gen);
    }
  }
}

TEST(RopeCacheWriteGpu, WrongInputIsOneLineError) {
  const at::Tensor x = at::zeros({2, 3, 4});
  try {
    rope_cache_write(x, x, x, at::zeros({2, 4}), at::zeros({2, 4}), at::zeros({2}, at::kLong), x,
                     x);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rope cache write kernel"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(RopeCacheWriteGpu, OneNormWeightWithoutTheOtherIsRefused) {
  const at::Tensor x = at::zeros({2, 3, 4});
  const QkNorm half_norm{at::ones({4}), at::Tensor(), 1e-6};
  EXPECT_FALSE(can_rope_cache_write(x, x, x, at::zeros({2, 4}), at::zeros({2, 4}),
                                    at::zeros({2}, at::kLong), x, x, half_norm));
  try {
    rope_cache_write(x, x, x, at::zeros({2, 4}), at::zeros({2, 4}), at::zeros({2}, at::kLong), x, x,
                     half_norm);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("norm weights [4] and [none]"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace verlpp::kernels
