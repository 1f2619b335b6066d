// CUDA: the chunk-terms kernel (kernels/delta_rule_chunk_terms.h) against the terms written out in
// float64 from their definitions (delta_rule_chunk_terms_kernel.h, models.md §3.1): chunks of 64
// and of 17 rows, head dims that are not powers of two (7, 40, 72, 200) and the largest (256), pad
// rows at a chunk's end (zeros, g = beta = 0). Also the binding's one-line error, which runs
// without a GPU.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/delta_rule_chunk_terms.h"

namespace verlpp::kernels {
namespace {

struct Shape {
  int64_t chunks, heads, chunk, dk, dv, pads;
};

struct Inputs {
  at::Tensor q, k, v, g, beta;  // float64 on the CPU
};

Inputs random_inputs(const Shape& s, uint64_t seed) {
  at::Generator gen = make_generator(at::kCPU, seed);
  const auto rows = [](const at::Tensor& x) { return x / x.norm(2, -1, /*keepdim=*/true); };
  Inputs in;
  in.q = rows(at::randn({s.chunks, s.heads, s.chunk, s.dk}, gen, at::kDouble)) /
         std::sqrt(static_cast<double>(s.dk));
  in.k = rows(at::randn({s.chunks, s.heads, s.chunk, s.dk}, gen, at::kDouble));
  in.v = at::randn({s.chunks, s.heads, s.chunk, s.dv}, gen, at::kDouble);
  in.g = -(at::rand({s.chunks, s.heads, s.chunk}, gen, at::kDouble) * 0.98 + 0.02);
  in.beta = at::rand({s.chunks, s.heads, s.chunk}, gen, at::kDouble);
  if (s.pads > 0) {
    for (at::Tensor* t : {&in.q, &in.k, &in.v, &in.g, &in.beta}) {
      t->narrow(2, s.chunk - s.pads, s.pads).zero_();
    }
  }
  // The inputs as the kernel sees them (fp32), back in float64 for the reference.
  for (at::Tensor* t : {&in.q, &in.k, &in.v, &in.g, &in.beta})
    *t = t->to(at::kFloat).to(at::kDouble);
  return in;
}

DeltaRuleChunkTerms reference(const Inputs& in) {
  const int64_t C = in.q.size(2);
  DeltaRuleChunkTerms t;
  const at::Tensor gamma = in.g.cumsum(-1);
  const at::Tensor last = gamma.narrow(-1, C - 1, 1);
  const at::Tensor lower = at::ones({C, C}, at::kBool).tril();
  t.decay = (gamma.unsqueeze(-1) - gamma.unsqueeze(-2)).exp() * lower;
  t.egamma = gamma.exp();
  t.tail = (last - gamma).exp();
  t.last_decay = last.squeeze(-1).exp();
  t.kk = at::matmul(in.k, in.k.transpose(-1, -2));
  t.qk = at::matmul(in.q, in.k.transpose(-1, -2));
  t.p = t.qk * t.decay;
  const at::Tensor a = (in.beta.unsqueeze(-1) * t.kk * t.decay).tril(-1);
  t.inverse = at::linalg_inv(at::eye(C, at::kDouble) + a);
  t.u = at::matmul(t.inverse * in.beta.unsqueeze(-2), in.v);
  t.w = at::matmul(t.inverse * (in.beta * t.egamma).unsqueeze(-2), in.k);
  t.qd = in.q * t.egamma.unsqueeze(-1);
  t.kd = in.k * t.tail.unsqueeze(-1);
  return t;
}

struct Term {
  const char* name;
  at::Tensor got, want;
  double tolerance;
};

TEST(DeltaRuleChunkTermsGpu, MatchFloat64Definitions) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const Shape& s :
       {Shape{5, 3, 64, 40, 72, 0}, Shape{3, 2, 64, 128, 128, 9}, Shape{4, 2, 17, 7, 9, 3},
        Shape{2, 1, 64, 256, 256, 0}, Shape{2, 2, 64, 200, 33, 63}}) {
    const Inputs in = random_inputs(s, 17 + s.dk);
    const auto f = [](const at::Tensor& x) { return x.to(at::kCUDA, at::kFloat); };
    if (!can_delta_rule_chunk_terms(f(in.q), f(in.v))) GTEST_SKIP() << "built without the kernel";
    const DeltaRuleChunkTerms want = reference(in);
    const std::string shape = "chunks " + std::to_string(s.chunks) + ", heads " +
                              std::to_string(s.heads) + ", C " + std::to_string(s.chunk) + ", dk " +
                              std::to_string(s.dk) + ", dv " + std::to_string(s.dv) + ", pads " +
                              std::to_string(s.pads);
    for (const bool backward_terms : {false, true}) {
      const DeltaRuleChunkTerms got =
          delta_rule_chunk_terms(f(in.q), f(in.k), f(in.v), f(in.g), f(in.beta), backward_terms);
      // Elementwise terms: a few fp32 roundings; products and the inverse: fp32 sums of up to
      // 256 terms (the inverse's forward substitution 64 deep).
      std::vector<Term> terms = {{"egamma", got.egamma, want.egamma, 1e-6},
                                 {"tail", got.tail, want.tail, 1e-6},
                                 {"last_decay", got.last_decay, want.last_decay, 1e-6},
                                 {"qd", got.qd, want.qd, 1e-6},
                                 {"kd", got.kd, want.kd, 1e-6},
                                 {"p", got.p, want.p, 2e-6},
                                 {"u", got.u, want.u, 1e-5},
                                 {"w", got.w, want.w, 1e-5}};
      if (backward_terms) {
        terms.insert(terms.end(), {{"decay", got.decay, want.decay, 1e-6},
                                   {"kk", got.kk, want.kk, 2e-6},
                                   {"qk", got.qk, want.qk, 2e-6},
                                   {"inverse", got.inverse, want.inverse, 1e-5}});
      } else {
        EXPECT_FALSE(got.decay.defined() || got.kk.defined() || got.qk.defined() ||
                     got.inverse.defined());
      }
      for (const Term& t : terms) {
        EXPECT_LT(model::testing::relative_diff(t.got, t.want), t.tolerance)
            << t.name << ", " << shape << ", backward terms " << backward_terms;
      }
    }
  }
}

TEST(DeltaRuleChunkTermsGpu, WrongInputIsOneLineError) {
  const at::Tensor x = at::zeros({1, 1, 64, 8});
  const at::Tensor g = at::zeros({1, 1, 64});
  try {
    delta_rule_chunk_terms(x, x, x, g, g, false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("delta rule chunk terms kernel"), std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace verlpp::kernels
