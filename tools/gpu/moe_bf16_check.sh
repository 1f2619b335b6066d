source tools/gpu/gpu_env.sh
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > /dev/null 2>&1
timeout 200 cmake --build build -j 16 --target verlpp_model_tests > build.log 2>&1 || tail -20 build.log
timeout 40 build/tests/unit/model/verlpp_model_tests --gtest_filter='*MoeGpu*' 2>&1 | grep -E "FAILED|PASSED|bf16|fp32 CUDA"
