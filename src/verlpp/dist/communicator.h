// The ranks of a run and the collectives between them, over torch c10d (distributed.md §6):
// ProcessGroupNCCL for CUDA tensors, ProcessGroupGloo for CPU tensors, a TCPStore for the
// rendezvous at MASTER_ADDR:MASTER_PORT (rank 0 listens unless torchrun's agent serves it).
// A default-constructed Communicator is a world of one without any c10d group: every collective
// returns its input, so single-process code needs no special case.
//
// Gloo on Debian's LibTorch 1.13 lacks AVG, _allgather_base and reduce-scatter; this class hides
// that: AVG is a SUM divided by the world size, all_gather goes through Gloo's list all-gather into
// views of the output, reduce_scatter is an all-reduce and a slice (twice the traffic), and bf16 /
// fp16 tensors travel as fp32 (Gloo has no bf16 all-gather, and its bf16 all-reduce crashes). On
// NCCL a world of one reduces with SUM (FSDP2's note: NCCL AVG may be wrong with one rank).
//
// Every collective must be called by every rank in the same order with tensors of the same shape
// and dtype. A failed collective (a peer that died, a timeout) throws verlpp::Error naming this
// rank, the operation and c10d's reason; a rank that stops answering is detected after the group's
// timeout (actor_rollout_ref.nccl_timeout). join sets SIGPIPE to be ignored (unless a handler is
// installed), as Python does, so that writing to a departed peer's socket is that error and not a
// silent exit. Every collective's time adds to dist::collective_seconds() (collective_time.h).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "verlpp/dist/launch_env.h"

namespace verlpp::dist {

enum class ReduceOp { sum, avg, max, min };

class Communicator {
 public:
  // A world of one, no c10d group.
  Communicator();
  ~Communicator();
  Communicator(const Communicator&) = default;
  Communicator& operator=(const Communicator&) = default;

  // Joins the ranks of `env` with NCCL when `device` is CUDA, Gloo when it is the CPU (also for a
  // world of one, so that a launched run exercises the c10d path). Throws verlpp::Error when this
  // build lacks that backend, when MASTER_PORT is taken on rank 0, when the store cannot be reached
  // or the other ranks do not join within `timeout`.
  static Communicator join(const LaunchEnv& env, at::Device device,
                           std::chrono::milliseconds timeout);

  // Whether this build has the backend `device` needs (NCCL for CUDA, Gloo for the CPU).
  static bool backend_available(at::Device device);

  int rank() const;
  int size() const;
  bool is_main() const { return rank() == 0; }
  // "nccl", "gloo" or "none".
  std::string backend() const;

  // In place; any dtype the backend reduces (float, int64). Contiguous tensors.
  void all_reduce(at::Tensor& tensor, ReduceOp op) const;
  // Element-wise over ranks, returned; computed in fp64 on the group's device.
  std::vector<double> all_reduce(const std::vector<double>& values, ReduceOp op) const;
  double all_reduce(double value, ReduceOp op) const;
  // In place: every rank gets root's values.
  void broadcast(at::Tensor& tensor, int root) const;
  // [n, ...] on every rank -> [size * n, ...], rank r's rows at [r * n, (r + 1) * n).
  at::Tensor all_gather(const at::Tensor& tensor) const;
  // [size * n, ...] on every rank -> [n, ...]: rank r gets rows [r * n, (r + 1) * n) of the
  // element-wise reduction over ranks.
  at::Tensor reduce_scatter(const at::Tensor& tensor, ReduceOp op) const;
  void barrier() const;
  // A flag in the group's store that one rank raises without the others taking part (a stop
  // request that reached that rank alone): raise_flag sets key `name`, flag_raised asks whether
  // any rank set it (one store round trip, no collective). A world of one has no store: nothing
  // to tell, flag_raised is false.
  void raise_flag(const std::string& name) const;
  bool flag_raised(const std::string& name) const;

  // The subgroup of this group's ranks that holds this rank, from a partition of [0, size()) into
  // `groups` (each a list of this group's ranks; the subgroup's rank r is the list's r-th). Every
  // rank calls it with the same partition, and every rank makes its splits in the same order (each
  // split's groups meet under their own store prefix). A partition split before gives the same
  // subgroup back without the other ranks. A group of one rank gets a world of one. Throws
  // verlpp::Error when `groups` is not a partition of [0, size()), or when a subgroup's process
  // group cannot be made (as join).
  Communicator split(const std::vector<std::vector<int>>& groups) const;

 private:
  Communicator make_subgroup(const std::vector<std::vector<int>>& groups, std::size_t mine) const;

  struct Impl;
  std::shared_ptr<Impl> impl_;  // null: a world of one
};

}  // namespace verlpp::dist
