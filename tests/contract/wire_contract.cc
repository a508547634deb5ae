// File: tests/contract/wire_contract.cc
//
// The contract read from the generated pool. The pool holds only the files whose generated code
// is linked in, so one message of each file anchors it; wire_contract_test checks that the set
// holds every .proto file of proto/chunkforge/v1, so a new file cannot be left out unnoticed.
#include "wire_contract.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <map>

#include "chunkforge/v1/lod.pb.h"
#include "chunkforge/v1/service.pb.h"
#include "chunkforge/v1/world.pb.h"

namespace chunkforge::contract {
namespace {

using google::protobuf::FileDescriptor;
using google::protobuf::FileDescriptorSet;

constexpr const char* kPackage = "chunkforge.v1";

// `file` and the files of the package it imports, by name.
void collect(const FileDescriptor* file, std::map<std::string, const FileDescriptor*>& files) {
  if (file->package() != kPackage || !files.emplace(file->name(), file).second) return;
  for (int i = 0; i < file->dependency_count(); ++i) collect(file->dependency(i), files);
}

class ErrorText : public google::protobuf::io::ErrorCollector {
 public:
  explicit ErrorText(std::string& error) : error_(error) {}
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (!error_.empty()) return;  // the first error; the others follow from it
    error_ = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
  }

 private:
  std::string& error_;
};

}  // namespace

FileDescriptorSet compiled_contract() {
  // service.proto imports chunk, edit and info; world.proto stands alone (the world file);
  // lod.proto (LOD tiles, built by the library, no RPC yet) imports chunk.
  std::map<std::string, const FileDescriptor*> files;
  collect(v1::GetChunkRequest::descriptor()->file(), files);
  collect(v1::WorldDefinition::descriptor()->file(), files);
  collect(v1::LodTile::descriptor()->file(), files);
  FileDescriptorSet contract;
  for (const auto& [name, file] : files) file->CopyTo(contract.add_file());  // CopyTo leaves source info out
  return contract;
}

std::string contract_text(const FileDescriptorSet& contract) {
  std::string body;
  google::protobuf::TextFormat::Printer printer;
  printer.PrintToString(contract, &body);
  return std::string("# proto-file: google/protobuf/descriptor.proto\n") +
         "# proto-message: google.protobuf.FileDescriptorSet\n"
         "#\n"
         "# The wire contract of chunkforge.v1 (docs/api.md, \"Evolving the API\"): the descriptors of\n"
         "# proto/chunkforge/v1/*.proto as shipped. Do not edit: after a compatible change, run\n"
         "#   " +
         std::string(kUpdateCommand) +
         "\n"
         "# tests/contract/wire_contract_test.cc fails on a change that breaks it.\n\n" +
         body;
}

bool parse_contract(const std::string& text, FileDescriptorSet& contract, std::string& error) {
  ErrorText errors(error);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  return parser.ParseFromString(text, &contract);
}

}  // namespace chunkforge::contract
