// The model dtypes verlpp computes in, by the names Hugging Face configs and verl keys use.
#pragma once

#include <c10/core/ScalarType.h>

#include <string>

namespace verlpp {

// "bfloat16"/"bf16", "float16"/"fp16"/"half", "float32"/"fp32"/"float" -> ScalarType. Throws
// verlpp::Error "<where>: unknown dtype ..." otherwise.
at::ScalarType parse_dtype(const std::string& name, const std::string& where);

// The dtype a trainer computes in, from its dtype key (`key`, e.g.
// actor_rollout_ref.actor.fsdp_config.dtype, whose value is `name`): parse_dtype on CUDA; float32
// on the CPU, where verlpp trains in fp32, with a note naming the key when it asks for another
// dtype. A name parse_dtype does not know is an error on either device.
at::ScalarType trainer_compute_dtype(const std::string& name, const std::string& key, bool cuda);

// "bfloat16", "float16", "float32" (config.json's torch_dtype). Throws verlpp::Error for any other
// dtype.
std::string dtype_name(at::ScalarType dtype);

}  // namespace verlpp
