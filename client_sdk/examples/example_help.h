// --help for the SDK's examples: a hand check rather than an argument library, because a game
// copies these examples and they take nothing but positional words.
#pragma once

#include <iostream>
#include <string_view>

// Prints `usage` and returns true when any argument is --help or -h; the example then exits 0.
inline bool answered_help(int argc, char** argv, std::string_view usage) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--help" || word == "-h") {
      std::cout << usage;
      return true;
    }
  }
  return false;
}
