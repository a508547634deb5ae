# Compiler flags shared by every chunkforge target, as an interface target.
#
# Determinism (DESIGN.md section 3): floating point must round the same way on every build,
# so no contraction of a*b+c into FMA (-ffp-contract=off) and never -ffast-math, which
# reorders sums. The baseline x86-64 instruction set keeps results identical on every CPU.
add_library(chunkforge_flags INTERFACE)
add_library(chunkforge::flags ALIAS chunkforge_flags)
target_compile_options(chunkforge_flags INTERFACE
  -ffp-contract=off -fno-fast-math
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(CHUNKFORGE_WARNINGS_AS_ERRORS)
  target_compile_options(chunkforge_flags INTERFACE -Werror)
endif()
