// File: tests/contract/update_wire_contract.cc
//
// Rewrites the committed wire contract from the protos compiled into it, after a deliberate,
// compatible change; run through `cmake --build build --target update_wire_contract`. It
// refuses a change that breaks the committed contract (the contract would then stop guarding
// the shipped clients), unless told --allow-breaking: only for something no client ever had.
//
//   update_wire_contract_tool CONTRACT_FILE [--allow-breaking]
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "wire_breaks.h"
#include "wire_contract.h"

namespace {

using namespace chunkforge::contract;

std::string read_file(const std::string& path, bool& found) {
  std::ifstream in(path, std::ios::binary);
  found = static_cast<bool>(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// False (and why, on stderr) when `committed` cannot be read or `compiled` breaks it.
bool compatible(const std::string& path, const std::string& committed,
                const google::protobuf::FileDescriptorSet& compiled) {
  google::protobuf::FileDescriptorSet before;
  std::string error;
  if (!parse_contract(committed, before, error)) {
    std::cerr << path << ": " << error << " (resolve it, or rewrite it with --allow-breaking)\n";
    return false;
  }
  const std::vector<WireBreak> breaks = wire_breaks(before, compiled);
  for (const WireBreak& b : breaks) std::cerr << b.text() << '\n';
  if (!breaks.empty()) {
    std::cerr << path << " not written: " << breaks.size()
              << " wire-breaking change(s) above would break shipped clients (docs/api.md)\n";
  }
  return breaks.empty();
}

}  // namespace

int main(int argc, char** argv) {
  const bool allow_breaking = argc == 3 && std::string(argv[2]) == "--allow-breaking";
  if (argc < 2 || argc > 3 || (argc == 3 && !allow_breaking) || std::string(argv[1]) == "--help") {
    std::cerr << "usage: update_wire_contract_tool CONTRACT_FILE [--allow-breaking]\n";
    return argc == 2 && std::string(argv[1]) == "--help" ? 0 : 2;
  }
  const std::string path = argv[1];
  const google::protobuf::FileDescriptorSet compiled = compiled_contract();
  bool found = false;
  const std::string committed = read_file(path, found);
  if (found && !allow_breaking && !compatible(path, committed, compiled)) return 1;
  const std::string text = contract_text(compiled);
  if (found && committed == text) {
    std::cout << path << ": up to date\n";
    return 0;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::cerr << path << ": cannot write\n";
    return 1;
  }
  std::cout << path << ": written (" << compiled.file_size() << " files); commit it with the change\n";
  return 0;
}
