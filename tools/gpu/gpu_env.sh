# Sourced by the tools/gpu jobs (from the repository root): unpacks the carried PCRE2/utf8proc
# debs (.gpu-deps/debs, see ../shared/gpu-machine/README.md) into .gpu-deps/root once, points
# CMake and the loader at them, and names nvcc for CMake when it is not on PATH.
deps=$PWD/.gpu-deps/root
if [ -d .gpu-deps/debs ] && [ ! -d "$deps" ]; then
  for f in .gpu-deps/debs/*.deb; do dpkg -x "$f" "$deps"; done
fi
export EXTRA_PREFIX_PATH="$deps/usr" CMAKE_INCLUDE_PATH="$deps/usr/include"
export CMAKE_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
command -v nvcc >/dev/null || [ ! -x /usr/local/cuda/bin/nvcc ] || export CUDACXX=/usr/local/cuda/bin/nvcc
