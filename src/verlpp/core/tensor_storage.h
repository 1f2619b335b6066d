// A tensor's storage released and re-allocated in place (FSDP1's storage-resize technique): the
// TensorImpl keeps its sizes, dtype, device and identity (autograd's saved tensors and the
// model's parameter slots refer to it), only its bytes come and go. A tensor without storage
// must not be read or written until allocate_storage gives it bytes again.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp {

// Frees `tensor`'s bytes (its storage's size becomes 0). The tensor must own its storage whole:
// contiguous, offset 0, storage exactly its numel × element size.
void release_storage(const at::Tensor& tensor);
// Gives a released tensor fresh, uninitialised bytes on its device (numel × element size).
void allocate_storage(const at::Tensor& tensor);
// Whether `tensor` has the bytes its sizes need (false after release_storage).
bool has_storage(const at::Tensor& tensor);
// A tensor of `sizes` and `options` (requires_grad false) that never had storage: nothing is
// allocated, so a model of such tensors costs no memory until allocate_storage.
at::Tensor empty_without_storage(at::IntArrayRef sizes, const at::TensorOptions& options);

}  // namespace verlpp
