#include "verlpp/core/tensor_storage.h"

#include <ATen/ATen.h>
#include <c10/core/StorageImpl.h>

#include <utility>

namespace verlpp {

void release_storage(const at::Tensor& tensor) {
  c10::StorageImpl* storage = tensor.storage().unsafeGetStorageImpl();
  storage->set_data_ptr_noswap(at::DataPtr(nullptr, tensor.device()));
  storage->set_nbytes(0);
}

void allocate_storage(const at::Tensor& tensor) {
  at::Tensor fresh = at::empty({tensor.numel()}, tensor.options().requires_grad(false));
  at::DataPtr data =
      fresh.storage().unsafeGetStorageImpl()->set_data_ptr(at::DataPtr(nullptr, tensor.device()));
  c10::StorageImpl* storage = tensor.storage().unsafeGetStorageImpl();
  storage->set_data_ptr_noswap(std::move(data));
  storage->set_nbytes(static_cast<size_t>(tensor.numel()) * tensor.element_size());
}

bool has_storage(const at::Tensor& tensor) {
  return tensor.storage().nbytes() >= static_cast<size_t>(tensor.numel()) * tensor.element_size();
}

at::Tensor empty_without_storage(at::IntArrayRef sizes, const at::TensorOptions& options) {
  at::Tensor tensor = at::empty({0}, options.requires_grad(false));
  tensor.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return tensor;
}

}  // namespace verlpp
