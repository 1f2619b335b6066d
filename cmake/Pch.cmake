# Precompiled headers: LibTorch's ATen/ATen.h parsed once into one precompiled header that the
# targets using LibTorch reuse. Parsing it is most of a typical file's compile time here
# (weight_table.cpp on a 2-core machine: 18.7 s, 9.9 s with the precompiled header), but loading
# the header (360 MB with -g) costs about 3 s, so a file that reaches none of LibTorch's heavy
# headers, by itself or through a project header it includes, compiles without it.
# -DVERLPP_PCH=OFF builds without, which also shows a file that uses ATen without including it.
option(VERLPP_PCH "Precompile ATen's headers once for the targets that use LibTorch" ON)

if(VERLPP_PCH)
  set(anchor ${CMAKE_BINARY_DIR}/generated/pch_anchor.cpp)
  file(WRITE ${anchor} "// the precompiled header's own target\n")
  add_library(verlpp_pch OBJECT ${anchor})
  target_link_libraries(verlpp_pch PRIVATE ${TORCH_LIBRARIES})
  target_precompile_headers(verlpp_pch PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:<ATen/ATen.h$<ANGLE-R>>")
endif()

# Sets `out` to whether `file` includes one of LibTorch's heavy headers (ATen/ATen.h, the Tensor
# class, ATen's operators, torch/csrc) itself or through a quoted header it includes (looked up
# beside it, in src/ and in tests/unit/), `depth` levels of quoted headers deep.
set(VERLPP_HEAVY_TORCH_INCLUDE
    "^#include <(ATen/ATen\\.h|ATen/core/Tensor\\.h|ATen/ops/|ATen/Functions\\.h|torch/torch\\.h|torch/csrc/)")
function(verlpp_reaches_torch file depth out)
  file(STRINGS ${file} includes REGEX "^#include [<\"]")
  foreach(line ${includes})
    if(line MATCHES "${VERLPP_HEAVY_TORCH_INCLUDE}")
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
  if(depth GREATER 0)
    get_filename_component(dir ${file} DIRECTORY)
    math(EXPR next "${depth} - 1")
    foreach(line ${includes})
      if(NOT line MATCHES "^#include \"([^\"]+)\"")
        continue()
      endif()
      foreach(base ${dir} ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests/unit)
        if(EXISTS ${base}/${CMAKE_MATCH_1})
          verlpp_reaches_torch(${base}/${CMAKE_MATCH_1} ${next} found)
          if(found)
            set(${out} TRUE PARENT_SCOPE)
            return()
          endif()
          break()
        endif()
      endforeach()
    endforeach()
  endif()
  set(${out} FALSE PARENT_SCOPE)
endfunction()

# verlpp_use_pch(target...): the targets (each must link LibTorch) compile their files that reach
# LibTorch headers with verlpp_pch's precompiled header; targets with CUDA sources keep their own
# compile (nvcc reads no GCC header).
function(verlpp_use_pch)
  if(NOT VERLPP_PCH)
    return()
  endif()
  foreach(target ${ARGN})
    if(NOT TARGET ${target})
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    get_target_property(source_dir ${target} SOURCE_DIR)
    set(cuda ${sources})
    list(FILTER cuda INCLUDE REGEX "\\.cu$")
    if(cuda)
      continue()
    endif()
    target_precompile_headers(${target} REUSE_FROM verlpp_pch)
    foreach(source ${sources})
      get_filename_component(path ${source} ABSOLUTE BASE_DIR ${source_dir})
      verlpp_reaches_torch(${path} 2 torch)
      if(NOT torch)
        set_property(SOURCE ${path} TARGET_DIRECTORY ${target} PROPERTY SKIP_PRECOMPILE_HEADERS ON)
      endif()
    endforeach()
  endforeach()
endfunction()
