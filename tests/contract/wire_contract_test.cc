// File: tests/contract/wire_contract_test.cc
//
// The committed wire contract (proto/chunkforge/v1/wire_contract.txtpb) against the protos
// compiled into this test: a wire-breaking change fails with each break on a line; a compatible
// change fails until the contract is rewritten with the update command, so that every change to
// the API shows in review as a change to the contract.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "chunkforge/v1/service.pb.h"
#include "wire_breaks.h"
#include "wire_contract.h"

namespace chunkforge::contract {
namespace {

using google::protobuf::FileDescriptorSet;

const std::filesystem::path kSourceDir = CHUNKFORGE_SOURCE_DIR;

std::string committed_text() {
  std::ifstream in(kSourceDir / kContractPath, std::ios::binary);
  EXPECT_TRUE(in) << kContractPath << " is missing: write it with " << kUpdateCommand;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

FileDescriptorSet committed() {
  FileDescriptorSet contract;
  std::string error;
  EXPECT_TRUE(parse_contract(committed_text(), contract, error)) << kContractPath << ": " << error;
  return contract;
}

TEST(WireContractTest, TheCompiledProtosDoNotBreakTheCommittedContract) {
  const FileDescriptorSet before = committed();
  ASSERT_GT(before.file_size(), 0) << kContractPath << " holds no file";
  std::string found;
  for (const WireBreak& b : wire_breaks(before, compiled_contract())) found += "\n  " + b.text();
  EXPECT_TRUE(found.empty()) << "proto/chunkforge/v1 breaks the wire contract that shipped clients rely on:" << found
                             << "\nUndo the change, or make it compatible (docs/api.md, \"Evolving the API\").";
}

TEST(WireContractTest, TheCommittedContractIsUpToDate) {
  const FileDescriptorSet compiled = compiled_contract();
  if (committed_text() == contract_text(compiled)) return;
  if (!wire_breaks(committed(), compiled).empty()) {
    FAIL() << kContractPath << " is out of date, and the change breaks it: see "
           << "TheCompiledProtosDoNotBreakTheCommittedContract.";
  }
  ADD_FAILURE() << kContractPath << " is out of date (the change is compatible): run\n  " << kUpdateCommand
                << "\nand commit the contract with the change.";
}

TEST(WireContractTest, TheContractHoldsEveryProtoFileOfThePackageAndNoOther) {
  std::set<std::string> sources;
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDir / "proto/chunkforge/v1")) {
    if (entry.path().extension() == ".proto") sources.insert("chunkforge/v1/" + entry.path().filename().string());
  }
  std::set<std::string> contract;
  const FileDescriptorSet compiled = compiled_contract();
  for (const auto& file : compiled.file()) {
    contract.insert(file.name());
    EXPECT_FALSE(file.has_source_code_info()) << file.name();
  }
  EXPECT_EQ(contract, sources) << "a .proto file missing from the contract is not compiled (proto/CMakeLists.txt) "
                                  "or not linked into the test: anchor it in tests/contract/wire_contract.cc";
}

TEST(WireContractTest, TheTextFormIsStableAndReadsBackAsTheSameSet) {
  const FileDescriptorSet compiled = compiled_contract();
  const std::string text = contract_text(compiled);
  EXPECT_EQ(text, contract_text(compiled_contract()));
  FileDescriptorSet read;
  std::string error;
  ASSERT_TRUE(parse_contract(text, read, error)) << error;
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(read, compiled));
}

// The checker sees a break in the real contract too, not only in hand-made files.
TEST(WireContractTest, ABreakInTheRealContractIsFound) {
  const FileDescriptorSet before = compiled_contract();
  FileDescriptorSet after = before;
  for (auto& file : *after.mutable_file()) {
    for (auto& service : *file.mutable_service()) service.mutable_method()->RemoveLast();
  }
  const std::vector<WireBreak> found = wire_breaks(before, after);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rule, "RPC_NO_DELETE");
  EXPECT_EQ(found[0].file, "chunkforge/v1/service.proto");
  const auto* service = v1::GetChunkRequest::descriptor()->file()->FindServiceByName("WorldService");
  ASSERT_NE(service, nullptr);
  EXPECT_EQ(found[0].element, service->method(service->method_count() - 1)->full_name());
}

}  // namespace
}  // namespace chunkforge::contract
