// File: tests/support/local_client.h
//
// The SDK's side of the tests of clients that generate: a client of a test server, and the
// SDK's own local generator for its world, each failing the test with the reason when refused.
//
//   client::Client plain = test::connect_client(store.target());
//   std::shared_ptr<client::BaseGenerator> generator = test::local_generator(plain);
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "chunkforge/client.h"
#include "chunkforge/client/local_generator.h"

namespace chunkforge::test {

inline client::Client connect_client(const std::string& target) {
  client::Result<client::Client> made = client::Client::connect(target);
  EXPECT_TRUE(made) << made.status().to_string();
  return std::move(*made);
}

inline std::shared_ptr<client::BaseGenerator> local_generator(client::Client& client) {
  client::Result<std::shared_ptr<client::BaseGenerator>> made = client::make_local_generator(client);
  EXPECT_TRUE(made) << made.status().to_string();
  return made ? *made : nullptr;
}

}  // namespace chunkforge::test
