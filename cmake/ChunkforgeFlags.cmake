# Compiler flags shared by every chunkforge target, as an interface target; and the sanitizer
# and fuzz build options, applied to every target.
#
# Determinism (docs/determinism.md, "Floating point"): floating point must round the same way on every build,
# so no contraction of a*b+c into FMA (-ffp-contract=off) and never -ffast-math, which
# reorders sums. The baseline x86-64 instruction set keeps results identical on every CPU.
add_library(chunkforge_flags INTERFACE)
add_library(chunkforge::flags ALIAS chunkforge_flags)
target_compile_options(chunkforge_flags INTERFACE
  -ffp-contract=off -fno-fast-math
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  # A switch over an enum without a case for each value does not build, warnings-as-errors or
  # not: adding a ScatterMethod (docs/extending.md) stops at every switch that must learn it.
  -Werror=switch)
if(CHUNKFORGE_WARNINGS_AS_ERRORS)
  target_compile_options(chunkforge_flags INTERFACE -Werror)
endif()

# Sanitizer builds (scripts/check-sanitizers): CHUNKFORGE_SANITIZE=address,undefined or =thread
# instruments every target, ours and the generated protobuf code alike, so they apply globally
# rather than through chunkforge::flags (which the generated code does not take). UBSan must
# fail the test, not print and go on: -fno-sanitize-recover. Frame pointers give whole stacks
# cheaply. The determinism flags above are unchanged: sanitizers do not touch floating point,
# and neither does the optimisation level (no contraction at any level), so the golden tests
# hold in these builds too.
set(CHUNKFORGE_SANITIZE "" CACHE STRING
  "Sanitizers for every target: address, undefined, address,undefined or thread; empty: none")
# libFuzzer targets (tests/fuzz): clang only; everything is built for the fuzzer's coverage
# with ASan and UBSan, and the fuzz executables link libFuzzer's main.
option(CHUNKFORGE_FUZZ "Build the libFuzzer targets in tests/fuzz (clang; implies address,undefined)" OFF)

if(CHUNKFORGE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "CHUNKFORGE_FUZZ needs clang (CXX=clang++-14), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(NOT CHUNKFORGE_SANITIZE)
    set(CHUNKFORGE_SANITIZE "address,undefined")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(CHUNKFORGE_SANITIZE)
  string(REPLACE "," ";" chunkforge_sanitizers "${CHUNKFORGE_SANITIZE}")
  foreach(s IN LISTS chunkforge_sanitizers)
    if(NOT s MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "CHUNKFORGE_SANITIZE: unknown sanitizer '${s}' (address, undefined, thread)")
    endif()
  endforeach()
  if("thread" IN_LIST chunkforge_sanitizers AND "address" IN_LIST chunkforge_sanitizers)
    message(FATAL_ERROR "CHUNKFORGE_SANITIZE: thread cannot be combined with address")
  endif()
  set(chunkforge_sanitize_flags -fsanitize=${CHUNKFORGE_SANITIZE})
  if("undefined" IN_LIST chunkforge_sanitizers)
    # GCC leaves float-to-integer overflow out of "undefined"; a coordinate cast out of range
    # is exactly the bug to catch here.
    list(APPEND chunkforge_sanitize_flags -fsanitize=float-cast-overflow -fno-sanitize-recover=all)
  endif()
  # -O1 -g1 (after the build type's -O2 -g, so they win): line tables are all a sanitizer report
  # needs, and at -O2 with full debug info the ASan+UBSan build took about twice as long
  # (server/http/http_endpoint.cc: 96 s of CPU at -O2 -g, 47 s at -O1 -g1; the whole build in CI's
  # ASan stage, 25 min then 12 min on 2 cores).
  add_compile_options(${chunkforge_sanitize_flags} -fno-omit-frame-pointer -O1 -g1)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC's sanitizer instrumentation makes -Wmaybe-uninitialized fire falsely inside Boost.Beast
    # (its own documentation warns of this); the plain build keeps the warning.
    add_compile_options(-Wno-maybe-uninitialized)
    # GCC warns at every Boost.Asio handler that TSan does not model atomic_thread_fence. Known,
    # and said once here instead: a race TSan reports in Asio's handler recycling is suspect.
    if("thread" IN_LIST chunkforge_sanitizers)
      add_compile_options(-Wno-tsan)
    endif()
  endif()
  add_link_options(${chunkforge_sanitize_flags})
  message(STATUS "chunkforge: sanitizers ${CHUNKFORGE_SANITIZE}")
endif()
