// verl's startup rules (verl/utils/config.py::validate_config, the dataclass __post_init__/validate
// methods in verl/workers/config/*.py, and the runtime asserts verl hits at worker init or the
// first step), checked before anything runs. See ../shared/reference/verl.md §2. Parallel-layout
// rules are in layout.h; these use its data-parallel size.
#pragma once

#include <string>

#include "verlpp/config/finding.h"
#include "verlpp/config/layout.h"
#include "verlpp/config/sections.h"

namespace verlpp::config {

// Appends every violated rule (error) and verl's warnings (notice) to `findings`.
void validate_config(const Config& config, const Layout& layout, Findings& findings);

// optim.clip_grad: a finite number > 0 (at 0 torch's clip_grad_norm_, which verl uses, zeroes
// every gradient). An error finding under `key` otherwise.
void check_clip_grad(const std::string& key, double value, Findings& findings);

// An optim section `prefix` (e.g. "actor_rollout_ref.actor.optim") of an engine `strategy`:
// optimizer AdamW (the one verlpp has; verl's default), which torch.optim names "AdamW" (FSDP
// engines) and Megatron-Core "adam" (decoupled weight decay), and the numbers as torch's AdamW and
// verl's schedulers take them: lr and weight_decay finite, >= 0 and within float range; betas two
// finite values in [0, 1) (torch raises "Invalid beta parameter"); lr_warmup_steps_ratio and
// min_lr_ratio finite in [0, 1]; num_cycles finite; clip_grad as check_clip_grad. NaN fails every
// rule. An error finding per violated key.
void check_optim(const std::string& prefix, const OptimConfig& optim, const std::string& strategy,
                 Findings& findings);

// checkpoint.save_contents / load_contents under `prefix` (actor, critic, SFT's top level): verl's
// items model, optimizer, extra, hf_model; verlpp writes all of them at every checkpoint (a save
// list leaving one out is a notice) and restores model, optimizer and extra on resume (a load list
// leaving one out is an error).
void check_checkpoint_contents(const std::string& prefix, const CheckpointContents& contents,
                               Findings& findings);

// `prefix`.lora_rank (model.lora.rank or model.lora_rank): 0, since verlpp trains no LoRA
// adapters (a rank would silently become full fine-tuning). An error finding otherwise.
void check_no_lora(const std::string& prefix, std::int64_t rank, Findings& findings);

}  // namespace verlpp::config
