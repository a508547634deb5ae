// Players' signed tokens (server/auth/player_tokens.h), checked against tokens a real key pair
// signed with libjwt: what verifies, and each way a token is refused with a reason a person can
// act on, the algorithm-confusion attack (an HS256 token whose secret is the public key)
// included.
#include "auth/player_tokens.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/jwt_signer.h"

namespace chunkforge::server {
namespace {

class PlayerTokensTest : public testing::Test {
 protected:
  grpc::Status verify(const std::string& token, Caller& caller) { return tokens_.verify(token, caller); }
  grpc::Status verify(const std::string& token) {
    Caller caller;
    return tokens_.verify(token, caller);
  }
  std::map<std::string, std::string> claims(const std::string& sub = "alice") const {
    return {{"sub", sub}, {"iss", "game-auth"}, {"aud", "world-1"}};
  }
  static void expect_refused(const grpc::Status& status, const std::string& why) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
    EXPECT_NE(status.error_message().find(why), std::string::npos) << status.error_message();
  }

  test::JwtSigner auth_;
  PlayerTokens tokens_{{auth_.public_pem(), "game-auth", "world-1"}};
};

TEST_F(PlayerTokensTest, ASignedTokenNamesItsPlayerAndRole) {
  Caller caller;
  ASSERT_TRUE(verify(auth_.sign(claims(), 600), caller).ok());
  EXPECT_EQ(caller.player, "alice");
  EXPECT_EQ(caller.role, Caller::Role::kPlayer);

  auto moderator = claims("mod-1");
  moderator["role"] = "moderator";
  ASSERT_TRUE(verify(auth_.sign(moderator, 600), caller).ok());
  EXPECT_EQ(caller.player, "mod-1");
  EXPECT_EQ(caller.role, Caller::Role::kModerator);
}

TEST_F(PlayerTokensTest, AnRsaKeyWorksToo) {
  test::JwtSigner rsa(true);
  PlayerTokens tokens({rsa.public_pem(), "game-auth", "world-1"});
  Caller caller;
  ASSERT_TRUE(tokens.verify(rsa.sign(claims("bob"), 600), caller).ok());
  EXPECT_EQ(caller.player, "bob");
}

TEST_F(PlayerTokensTest, AnAudienceListHoldingThisWorldIsAccepted) {
  const std::string token = auth_.sign_json(R"({"sub":"carol","iss":"game-auth","aud":["world-0","world-1"],"exp":)" +
                                            std::to_string(test::JwtSigner::now() + 600) + "}");
  EXPECT_TRUE(verify(token).ok());
}

TEST_F(PlayerTokensTest, BadTokensAreRefusedSayingWhy) {
  expect_refused(verify(auth_.sign(claims(), -120)), "expired");
  expect_refused(verify(auth_.sign(claims(), 0)), "no expiry");
  auto other_world = claims();
  other_world["aud"] = "world-2";
  expect_refused(verify(auth_.sign(other_world, 600)), "another world");
  auto other_issuer = claims();
  other_issuer["iss"] = "someone-else";
  expect_refused(verify(auth_.sign(other_issuer, 600)), "issuer");
  expect_refused(verify(auth_.sign(claims(""), 600)), "subject");
  expect_refused(verify("not.a.token"), "not a token signed by the game's key");
}

TEST_F(PlayerTokensTest, ATokenNotSignedByTheGamesKeyIsRefused) {
  const test::JwtSigner someone_else;
  expect_refused(verify(someone_else.sign(claims(), 600)), "signed by another key");

  // The payload changed after signing: another player's name in the same signature.
  const std::string token = auth_.sign(claims("alice"), 600);
  const std::string forged_payload = auth_.sign(claims("mallory"), 600);
  const size_t a1 = token.find('.'), a2 = token.rfind('.');
  const size_t b1 = forged_payload.find('.'), b2 = forged_payload.rfind('.');
  const std::string tampered = token.substr(0, a1) + forged_payload.substr(b1, b2 - b1) + token.substr(a2);
  expect_refused(verify(tampered), "tampered");

  // Algorithm confusion: HS256 with the public key (which anyone may have) as the secret.
  const std::string public_key = auth_.public_pem();
  expect_refused(verify(auth_.sign(claims(), 600, JWT_ALG_HS256, &public_key)), "");
  // No signature at all.
  expect_refused(verify(auth_.sign(claims(), 600, JWT_ALG_NONE, &public_key)), "");
}

TEST_F(PlayerTokensTest, AVerifiedTokenIsKeptUntilItExpires) {
  const std::string token = auth_.sign(claims(), 100);
  Caller caller;
  ASSERT_TRUE(tokens_.verify(token, caller, test::JwtSigner::now()).ok());
  EXPECT_TRUE(tokens_.verify(token, caller, test::JwtSigner::now() + 50).ok());
  // Past its expiry and the leeway, the cached token is checked again, and refused.
  expect_refused(tokens_.verify(token, caller, test::JwtSigner::now() + 100 + PlayerTokens::kLeewaySeconds + 1),
                 "expired");
}

TEST_F(PlayerTokensTest, ANotBeforeInTheFutureIsRefused) {
  const long now = test::JwtSigner::now();
  const std::string token =
      auth_.sign_json(R"({"sub":"dave","iss":"game-auth","aud":"world-1","exp":)" + std::to_string(now + 6000) +
                      R"(,"nbf":)" + std::to_string(now + 3000) + "}");
  expect_refused(verify(token), "not valid before");
}

TEST_F(PlayerTokensTest, AnAddressWhoseTokensKeepFailingIsRefusedUnchecked) {
  // Every token is signed first: signing is slow under TSan, and the bucket refills 16 a second
  // meanwhile, so verifies must follow one another closely for the refusals to be certain.
  const test::JwtSigner stranger;
  const std::string good = auth_.sign(claims("alice"), 600);
  std::vector<std::string> forged;
  for (int k = 0; k < 200; ++k) forged.push_back(stranger.sign(claims(std::to_string(k)), 600));
  const std::string bob = auth_.sign(claims("bob"), 600), carol = auth_.sign(claims("carol"), 600);
  const std::string dave = auth_.sign(claims("dave"), 600);
  Caller caller;
  ASSERT_TRUE(tokens_.verify(good, caller, 0, "ipv4:10.0.0.7").ok());  // known from now on
  int checked = 0;
  for (const std::string& token : forged) {
    const grpc::Status status = tokens_.verify(token, caller, 0, "ipv4:10.0.0.7");
    checked += status.error_message().find("too many tokens") == std::string::npos;
  }
  // The burst, and what refilled meanwhile (16 a second), were checked; the rest were not.
  EXPECT_GE(checked, static_cast<int>(PlayerTokens::kFailureBurst));
  EXPECT_LT(checked, 150);
  // Good tokens from that address are refused too: one may meet a token that refilled in the
  // last microseconds, the one right after it cannot.
  const grpc::Status first = tokens_.verify(bob, caller, 0, "ipv4:10.0.0.7");
  expect_refused(first.ok() ? tokens_.verify(carol, caller, 0, "ipv4:10.0.0.7") : first, "too many tokens");
  EXPECT_TRUE(tokens_.verify(good, caller, 0, "ipv4:10.0.0.7").ok());  // cached: still works
  EXPECT_TRUE(tokens_.verify(dave, caller, 0, "ipv4:10.0.0.8").ok());  // another address
}

}  // namespace
}  // namespace chunkforge::server
