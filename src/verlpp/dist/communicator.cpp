#include "verlpp/dist/communicator.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <torch/version.h>

#include <algorithm>
#include <functional>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/dist/collective_time.h"

#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif
#ifdef VERLPP_HAVE_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef USE_C10D_NCCL
#include <c10/cuda/CUDAFunctions.h>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace verlpp::dist {
namespace {

// The class the Gloo and NCCL backends derive from: c10d::ProcessGroup in LibTorch 1.13,
// c10d::Backend in 2.x (distributed.md §6.2).
#if TORCH_VERSION_MAJOR >= 2
using BackendBase = c10d::Backend;
#else
using BackendBase = c10d::ProcessGroup;
#endif

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

c10d::ReduceOp c10d_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg:  // where AVG is not native: SUM, then a division by the world size
      return c10d::ReduceOp::SUM;
    case ReduceOp::max:
      return c10d::ReduceOp::MAX;
    case ReduceOp::min:
      return c10d::ReduceOp::MIN;
  }
  return c10d::ReduceOp::SUM;
}

bool is_half(const at::Tensor& t) {
  return t.scalar_type() == at::kBFloat16 || t.scalar_type() == at::kHalf;
}

bool port_in_use(const std::string& message) {
  return message.find("in use") != std::string::npos ||
         message.find("EADDRINUSE") != std::string::npos;
}

}  // namespace

struct Communicator::Impl {
  ~Impl() {
#if defined(USE_C10D_NCCL) && TORCH_VERSION_MAJOR >= 2
    // PyTorch 2.x warns (and may leak) when a NCCL group is destroyed without shutdown().
    if (auto* nccl = dynamic_cast<c10d::ProcessGroupNCCL*>(backend.get())) nccl->shutdown();
#endif
  }

  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<BackendBase> backend;
  std::string name;  // "gloo" or "nccl"
  at::Device device = at::Device(at::kCPU);
  std::chrono::milliseconds timeout{0};
  std::string master_addr;  // Gloo's subgroups bind to the interface that reaches it
  int rank = 0, size = 1;
  int splits = 0;  // subgroups made so far: each split's groups meet under their own store prefix
  // Each partition split() was given, with this rank's subgroup of it (handed back for the same
  // partition: the actor, the reference policy and the critic share their hybrid-sharding groups).
  std::vector<std::pair<std::vector<std::vector<int>>, Communicator>> subgroups;

  // Runs one collective and waits for it; c10d's and Gloo's failures become one-line errors.
  void run(const char* op, const std::function<c10::intrusive_ptr<c10d::Work>()>& start) const {
    const CollectiveTiming timing(device);
    try {
      start()->wait();
    } catch (const c10::Error& e) {
      fail(op, e.what_without_backtrace());
    } catch (const std::exception& e) {
      fail(op, e.what());
    }
  }

  [[noreturn]] void fail(const char* op, const std::string& why) const {
    throw Error(fmt::format("rank {}: {} over {} ranks ({}) failed: {}", rank, op, size, name,
                            first_line(why)));
  }
};

Communicator::Communicator() = default;
Communicator::~Communicator() = default;

namespace {

c10::intrusive_ptr<c10d::Store> make_store(const LaunchEnv& env,
                                           std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(env.master_port);
  options.isServer = env.rank == 0 && !env.agent_store;
  if (!env.agent_store) options.numWorkers = static_cast<std::size_t>(env.world_size);
  options.waitWorkers = !env.agent_store;
  options.timeout = timeout;
  c10::intrusive_ptr<c10d::Store> store;
  try {
    store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
  } catch (const std::exception& e) {
    const std::string why = first_line(e.what());
    if (options.isServer && port_in_use(why)) {
      throw Error(
          fmt::format("MASTER_PORT {} on {} is taken by another process; choose a free port "
                      "(verlpp launch --master-port, or MASTER_PORT): {}",
                      env.master_port, env.master_addr, why));
    }
    throw Error(fmt::format("rank {}: cannot join the c10d store at {}:{} ({} ranks): {}", env.rank,
                            env.master_addr, env.master_port, env.world_size, why));
  }
  if (env.agent_store) {
    store = c10::make_intrusive<c10d::PrefixStore>(
        "/worker/attempt_" + std::to_string(env.restart_count), store);
  }
  return c10::make_intrusive<c10d::PrefixStore>("verlpp/world", store);
}

c10::intrusive_ptr<BackendBase> make_gloo(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                          int size, const std::string& master_addr,
                                          std::chrono::milliseconds timeout) {
#ifdef VERLPP_HAVE_GLOO
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
  if (interface != nullptr && *interface != '\0') {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(master_addr));
  }
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
#else
  (void)store, (void)rank, (void)size, (void)master_addr, (void)timeout;
  throw Error(
      "this build has no Gloo (the c10d backend of CPU ranks): build against a LibTorch with "
      "Gloo headers (Debian's libtorch-dev with libgloo-dev), or run the ranks on CUDA devices");
#endif
}

c10::intrusive_ptr<BackendBase> make_nccl(const c10::intrusive_ptr<c10d::Store>& store, int rank,
                                          int size, at::Device device,
                                          std::chrono::milliseconds timeout) {
#ifdef USE_C10D_NCCL
  c10::cuda::set_device(device.index());
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, options);
#else
  (void)store, (void)rank, (void)size, (void)device, (void)timeout;
  throw Error(
      "this build has no NCCL (the c10d backend of CUDA ranks): build against a CUDA "
      "LibTorch");
#endif
}

// A peer that exits closes its sockets; this rank's next write to one raises SIGPIPE, whose default
// action ends the process without a word. Python ignores SIGPIPE at start-up, so under torchrun the
// write fails with EPIPE and the collective throws; join does the same for this process unless a
// handler is already installed.
void ignore_sigpipe() {
  struct sigaction current {};
  if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, nullptr);
  }
}

}  // namespace

Communicator Communicator::join(const LaunchEnv& env, at::Device device,
                                std::chrono::milliseconds timeout) {
  Communicator out;
  auto impl = std::make_shared<Impl>();
  impl->rank = env.rank;
  impl->size = env.world_size;
  impl->device = device;
  impl->timeout = timeout;
  impl->master_addr = env.master_addr;
  impl->name = device.is_cuda() ? "nccl" : "gloo";
  ignore_sigpipe();
  impl->store = make_store(env, timeout);
  try {
    impl->backend =
        device.is_cuda()
            ? make_nccl(impl->store, env.rank, env.world_size, device, timeout)
            : make_gloo(impl->store, env.rank, env.world_size, env.master_addr, timeout);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    // bt12: a lone rank of WORLD_SIZE=2 said only "Socket Timeout".
    throw Error(fmt::format(
        "rank {}: cannot create the {} process group of {} ranks: {} (it waited up to {} s at "
        "{}:{} for every rank to join; start all {} ranks with this MASTER_ADDR/MASTER_PORT, or "
        "check that they reach it)",
        env.rank, impl->name, env.world_size, first_line(e.what()),
        std::chrono::duration_cast<std::chrono::seconds>(timeout).count(), env.master_addr,
        env.master_port, env.world_size));
  }
  out.impl_ = std::move(impl);
  out.barrier();
  return out;
}

bool Communicator::backend_available(at::Device device) {
#ifdef USE_C10D_NCCL
  const bool nccl = true;
#else
  const bool nccl = false;
#endif
#ifdef VERLPP_HAVE_GLOO
  const bool gloo = true;
#else
  const bool gloo = false;
#endif
  return device.is_cuda() ? nccl : gloo;
}

int Communicator::rank() const { return impl_ ? impl_->rank : 0; }

int Communicator::size() const { return impl_ ? impl_->size : 1; }

std::string Communicator::backend() const { return impl_ ? impl_->name : "none"; }

void Communicator::all_reduce(at::Tensor& tensor, ReduceOp op) const {
  if (!impl_) return;
  const bool widen = impl_->name == "gloo" && is_half(tensor);
  std::vector<at::Tensor> buffer{widen ? tensor.to(at::kFloat) : tensor};
  // NCCL's AVG is native except for a world of one; Gloo has none.
  const bool native_avg = op == ReduceOp::avg && impl_->name == "nccl" && impl_->size > 1;
  c10d::AllreduceOptions options;
  options.reduceOp = native_avg ? c10d::ReduceOp(c10d::ReduceOp::AVG) : c10d_op(op);
  impl_->run("all_reduce", [&] { return impl_->backend->allreduce(buffer, options); });
  if (op == ReduceOp::avg && !native_avg) buffer[0].div_(impl_->size);
  if (widen) tensor.copy_(buffer[0]);
}

std::vector<double> Communicator::all_reduce(const std::vector<double>& values, ReduceOp op) const {
  if (!impl_ || values.empty()) return values;
  at::Tensor t = at::tensor(values, at::TensorOptions(at::kDouble)).to(impl_->device);
  all_reduce(t, op);
  t = t.to(at::kCPU).contiguous();
  const double* p = t.data_ptr<double>();
  return {p, p + t.numel()};
}

double Communicator::all_reduce(double value, ReduceOp op) const {
  return all_reduce(std::vector<double>{value}, op).front();
}

void Communicator::broadcast(at::Tensor& tensor, int root) const {
  if (!impl_) return;
  const bool widen = impl_->name == "gloo" && is_half(tensor);
  std::vector<at::Tensor> buffer{widen ? tensor.to(at::kFloat) : tensor};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  impl_->run("broadcast", [&] { return impl_->backend->broadcast(buffer, options); });
  if (widen) tensor.copy_(buffer[0]);
}

at::Tensor Communicator::all_gather(const at::Tensor& tensor) const {
  if (!impl_) return tensor;
  if (impl_->name == "gloo" && is_half(tensor)) {
    return all_gather(tensor.to(at::kFloat)).to(tensor.scalar_type());
  }
  at::Tensor input = tensor.contiguous();
  std::vector<int64_t> shape = input.sizes().vec();
  if (shape.empty()) {
    input = input.reshape({1});
    shape = {1};
  }
  const std::int64_t rows = shape[0];
  shape[0] = rows * impl_->size;
  at::Tensor output = at::empty(shape, input.options());
  if (impl_->name == "nccl") {
    impl_->run("all_gather", [&] { return impl_->backend->_allgather_base(output, input); });
    return output;
  }
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int r = 0; r < impl_->size; ++r) outputs[0].push_back(output.narrow(0, r * rows, rows));
  std::vector<at::Tensor> inputs{input};
  impl_->run("all_gather", [&] { return impl_->backend->allgather(outputs, inputs); });
  return output;
}

at::Tensor Communicator::reduce_scatter(const at::Tensor& tensor, ReduceOp op) const {
  if (tensor.dim() == 0 || tensor.size(0) % size() != 0) {
    throw Error(
        fmt::format("reduce_scatter: the first dimension ({}) is not a multiple of the "
                    "world size {}",
                    tensor.dim() == 0 ? 0 : tensor.size(0), size()));
  }
  if (!impl_) return tensor;
  const std::int64_t rows = tensor.size(0) / impl_->size;
  if (impl_->name == "nccl") {
    at::Tensor input = tensor.contiguous();
    at::Tensor output = at::empty_like(input.narrow(0, 0, rows));
    const bool native_avg = op == ReduceOp::avg && impl_->size > 1;
    c10d::ReduceScatterOptions options;
    options.reduceOp = native_avg ? c10d::ReduceOp(c10d::ReduceOp::AVG) : c10d_op(op);
    impl_->run("reduce_scatter",
               [&] { return impl_->backend->_reduce_scatter_base(output, input, options); });
    if (op == ReduceOp::avg && !native_avg) output.div_(impl_->size);
    return output;
  }
  at::Tensor all = tensor.contiguous().clone();
  all_reduce(all, op);
  return all.narrow(0, impl_->rank * rows, rows).clone();
}

namespace {

// The index in `groups` of the list holding `rank`; throws unless the lists partition [0, size).
std::size_t group_holding(const std::vector<std::vector<int>>& groups, int rank, int size) {
  std::vector<int> seen(static_cast<std::size_t>(size), 0);
  std::size_t mine = groups.size();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (int r : groups[g]) {
      if (r < 0 || r >= size || seen[static_cast<std::size_t>(r)]++ > 0) {
        throw Error(fmt::format("split: rank {} is outside [0, {}) or listed twice", r, size));
      }
      if (r == rank) mine = g;
    }
  }
  if (std::find(seen.begin(), seen.end(), 0) != seen.end()) {
    throw Error(fmt::format("split: the groups do not cover all {} ranks", size));
  }
  return mine;
}

}  // namespace

Communicator Communicator::split(const std::vector<std::vector<int>>& groups) const {
  const std::size_t mine = group_holding(groups, rank(), size());
  if (!impl_) return {};
  for (const auto& [partition, subgroup] : impl_->subgroups) {
    if (partition == groups) return subgroup;
  }
  Communicator out = make_subgroup(groups, mine);
  impl_->subgroups.emplace_back(groups, out);
  return out;
}

Communicator Communicator::make_subgroup(const std::vector<std::vector<int>>& groups,
                                         std::size_t mine) const {
  const int split = impl_->splits++;
  const std::vector<int>& members = groups[mine];
  if (members.size() == 1) return {};
  auto impl = std::make_shared<Impl>();
  impl->rank =
      static_cast<int>(std::find(members.begin(), members.end(), impl_->rank) - members.begin());
  impl->size = static_cast<int>(members.size());
  impl->device = impl_->device;
  impl->timeout = impl_->timeout;
  impl->master_addr = impl_->master_addr;
  impl->name = impl_->name;
  impl->store = c10::make_intrusive<c10d::PrefixStore>(fmt::format("split{}/group{}", split, mine),
                                                       impl_->store);
  try {
    impl->backend =
        impl->name == "nccl"
            ? make_nccl(impl->store, impl->rank, impl->size, impl->device, impl->timeout)
            : make_gloo(impl->store, impl->rank, impl->size, impl->master_addr, impl->timeout);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(fmt::format("rank {}: cannot create the {} subgroup of ranks {}: {}", impl_->rank,
                            impl->name, fmt::join(members, ", "), first_line(e.what())));
  }
  Communicator out;
  out.impl_ = std::move(impl);
  out.barrier();
  return out;
}

void Communicator::raise_flag(const std::string& name) const {
  if (impl_) impl_->store->set("flag/" + name, std::vector<uint8_t>{1});
}

bool Communicator::flag_raised(const std::string& name) const {
  return impl_ && impl_->store->check({"flag/" + name});
}

void Communicator::barrier() const {
  if (!impl_) return;
  at::Tensor token = at::zeros({1}, at::TensorOptions(at::kFloat).device(impl_->device));
  all_reduce(token, ReduceOp::sum);
  if (impl_->device.is_cuda()) (void)token.item<float>();
}

}  // namespace verlpp::dist
