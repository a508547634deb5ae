// File: tests/contract/wire_contract.h
//
// The wire contract of chunkforge.v1: every file of the package as compiled into this program
// (the generated code's DescriptorPool), as a FileDescriptorSet without source info and without
// the google/protobuf files it imports, and its committed text form
// (proto/chunkforge/v1/wire_contract.txtpb, rewritten by the build target update_wire_contract).
#pragma once

#include <google/protobuf/descriptor.pb.h>

#include <string>

namespace chunkforge::contract {

// The command that rewrites the committed contract, as the failing test and the docs name it.
inline constexpr const char* kUpdateCommand = "cmake --build build --target update_wire_contract";

// The committed contract's path under the source tree.
inline constexpr const char* kContractPath = "proto/chunkforge/v1/wire_contract.txtpb";

// Every file of package chunkforge.v1 compiled into this program, sorted by name.
google::protobuf::FileDescriptorSet compiled_contract();

// The committed form of `contract`: a header comment, then the set in protobuf text format.
// The same set always gives the same text.
std::string contract_text(const google::protobuf::FileDescriptorSet& contract);

// Parses a committed contract; false with the parser's message in `error`.
bool parse_contract(const std::string& text, google::protobuf::FileDescriptorSet& contract, std::string& error);

}  // namespace chunkforge::contract
