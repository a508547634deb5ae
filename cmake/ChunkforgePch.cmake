# Precompiled headers for the targets of many files that each spend most of their compile time
# parsing the same heavy headers (gRPC, protobuf, CLI11, GoogleTest, spdlog): each target parses
# them once. The `chunkforge` command's files went from about 24 s to 8 s of CPU each. Only
# targets with several files gain (the header is compiled once per target); the generation
# library takes none (its files include no heavy header). Compiled through ccache like the rest
# (scripts/lib/common.sh sets the sloppiness ccache needs for them). CHUNKFORGE_PCH=OFF builds
# without, e.g. to check that every file includes what it uses.
option(CHUNKFORGE_PCH "Precompiled headers for the gRPC-, CLI11- and GoogleTest-heavy targets" ON)

# chunkforge_precompile(TARGET HEADER...): HEADERs (<system> headers) precompiled for TARGET.
function(chunkforge_precompile target)
  if(CHUNKFORGE_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()
