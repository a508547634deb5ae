// The rule for log lines a client can cause (server/log/client_log.h): client text quoted short
// and escaped, lines printable and at most 512 bytes, each kind rate limited by its token bucket
// with what it left out counted. The buckets run on a stepped clock; the last tests write
// through spdlog into a real logger, as the server does.
#include "log/client_log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

namespace chunkforge::server {
namespace {

using namespace std::chrono_literals;
using Clock = TokenBucket::Clock;

TEST(ClientLogTest, QuoteClientKeepsShortTextAndEscapesIt) {
  EXPECT_EQ(quote_client("v2-abc"), "\"v2-abc\"");
  EXPECT_EQ(quote_client("a\nb\x1b[31m\"\\"), "\"a\\nb\\x1b[31m\\\"\\\\\"");
  EXPECT_EQ(quote_client(std::string(64, 'x')), "\"" + std::string(64, 'x') + "\"");
}

TEST(ClientLogTest, QuoteClientCutsLongTextAndSaysHowLong) {
  const std::string fingerprint(120000, 'f');
  EXPECT_EQ(quote_client(fingerprint), "\"" + std::string(64, 'f') + "\"... (120000 bytes)");
  // Control bytes count as input bytes, however long their escapes are.
  const std::string newlines(1000, '\n');
  std::string escaped;
  for (int k = 0; k < 64; ++k) escaped += "\\n";
  EXPECT_EQ(quote_client(newlines), "\"" + escaped + "\"... (1000 bytes)");
}

TEST(ClientLogTest, QuoteClientListShowsWhatFitsAndCountsTheRest) {
  EXPECT_EQ(quote_client_list(std::vector<uint32_t>{}), "[]");
  EXPECT_EQ(quote_client_list(std::vector<uint32_t>{1}), "[1]");
  EXPECT_EQ(quote_client_list(std::vector<uint32_t>{1, 2, 3}), "[1, 2, 3]");
  std::vector<uint32_t> many;
  for (uint32_t k = 0; k < 25000; ++k) many.push_back(1000000 + k);
  const std::string listed = quote_client_list(many);
  EXPECT_EQ(listed.rfind("[1000000, 1000001, ", 0), 0u) << listed;
  EXPECT_NE(listed.find("... (25000 entries)]"), std::string::npos) << listed;
  EXPECT_LE(listed.size(), kQuotedClientBytes + 24) << listed;
}

TEST(ClientLogTest, TokenBucketGivesItsBurstThenItsRate) {
  TokenBucket bucket(2, 10);
  const Clock::time_point start{};
  for (int k = 0; k < 10; ++k) EXPECT_TRUE(bucket.take(start)) << k;
  EXPECT_FALSE(bucket.take(start));
  EXPECT_FALSE(bucket.take(start + 400ms));  // 0.8 of a token
  EXPECT_TRUE(bucket.take(start + 500ms));
  EXPECT_FALSE(bucket.take(start + 500ms));
  // A long quiet refills the burst, not more.
  int taken = 0;
  while (bucket.take(start + 1h)) ++taken;
  EXPECT_EQ(taken, 10);
  // A clock read before another thread's take may be older than the last: no refill, no harm.
  EXPECT_FALSE(bucket.take(start + 30min));
}

TEST(ClientLogTest, LimiterCountsWhatItLeavesOutPerKind) {
  LineLimiter limiter(2, 3);
  const Clock::time_point start{};
  uint64_t left_out = 99;
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(limiter.admit(LogKind::kSessionStarted, start, left_out));
    EXPECT_EQ(left_out, 0u);
  }
  for (int k = 0; k < 1000; ++k) EXPECT_FALSE(limiter.admit(LogKind::kSessionStarted, start, left_out));
  EXPECT_EQ(limiter.suppressed(LogKind::kSessionStarted), 1000u);
  // Another kind has a bucket of its own.
  EXPECT_TRUE(limiter.admit(LogKind::kCallFailed, start, left_out));
  EXPECT_EQ(limiter.suppressed(LogKind::kCallFailed), 0u);
  // The next line of the flooded kind says how many went before it, once.
  ASSERT_TRUE(limiter.admit(LogKind::kSessionStarted, start + 1s, left_out));
  EXPECT_EQ(left_out, 1000u);
  ASSERT_TRUE(limiter.admit(LogKind::kSessionStarted, start + 1s, left_out));
  EXPECT_EQ(left_out, 0u);
}

TEST(ClientLogTest, LineTextIsPrintableAndShort) {
  EXPECT_EQ(client_line_text("session started (ipv4:127.0.0.1:5000)", 37, 0), "session started (ipv4:127.0.0.1:5000)");
  EXPECT_EQ(client_line_text("a\nforged line\r\x7f\xc3\xa9", 17, 0), "a\\x0aforged line\\x0d\\x7f\\xc3\\xa9");
  EXPECT_EQ(client_line_text("refused", 7, 12), "refused (and 12 lines of this kind suppressed before it)");
  // A message longer than the line: cut, with its length.
  const std::string long_message(5000, 'm');
  const std::string line = client_line_text(long_message, long_message.size(), 7);
  EXPECT_LE(line.size(), kMaxMessageBytes);
  EXPECT_NE(line.find("m... (5000 bytes) (and 7 lines"), std::string::npos) << line;
  // The formatter kept only the first bytes: the length said is the whole message's.
  EXPECT_NE(client_line_text(std::string(kMaxMessageBytes, 'm'), 90000, 0).find("... (90000 bytes)"),
            std::string::npos);
  // Escapes take four bytes each; the line still fits.
  const std::string controls(kMaxMessageBytes, '\x01');
  EXPECT_LE(client_line_text(controls, controls.size(), 0).size(), kMaxMessageBytes);
  EXPECT_EQ(client_line_text(std::string(kMaxMessageBytes, 'm'), kMaxMessageBytes, 0).size(), kMaxMessageBytes);
}

// spdlog's default logger swapped for one writing into a string, for one test.
class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("captured", std::make_shared<spdlog::sinks::ostream_sink_mt>(text_));
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::istringstream in(text_.str());
    for (std::string line; std::getline(in, line);) out.push_back(line + "\n");
    return out;
  }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST(ClientLogTest, AFloodOfOneKindWritesItsBurstOfShortLinesAndCountsTheRest) {
  CapturedLog log;
  const uint64_t before = client_log_limiter().suppressed(LogKind::kLocalGenerationRefused);
  const std::string message = "the client's world fingerprint " + std::string(120000, '\n');
  for (int k = 0; k < 1000; ++k) {
    log_client(LogKind::kLocalGenerationRefused, spdlog::level::info, "session: local generation refused: {}", message);
  }
  const std::string cut =
      "... (" + std::to_string(std::string("session: local generation refused: ").size() + message.size()) + " bytes)";
  const std::vector<std::string> lines = log.lines();
  // The bucket may have been used by an earlier test of this process, and refills while the
  // loop runs (2 a second): at most the burst and a few.
  EXPECT_GE(lines.size(), 1u);
  EXPECT_LE(lines.size(), static_cast<size_t>(kBurstLines) + 2);
  EXPECT_GE(client_log_limiter().suppressed(LogKind::kLocalGenerationRefused) - before, 1000 - lines.size());
  for (const std::string& line : lines) {
    EXPECT_LE(line.size(), 512u) << line;
    EXPECT_NE(line.find(cut), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), line.size() - 1) << line;  // its own newline only
  }
}

TEST(ClientLogTest, LinesBelowTheLogLevelAreNeitherWrittenNorCounted) {
  CapturedLog log;
  const uint64_t before = client_log_limiter().suppressed(LogKind::kHttpConnectionRefused);
  for (int k = 0; k < 100; ++k) {
    log_client(LogKind::kHttpConnectionRefused, spdlog::level::debug, "HTTP side port: closing {}", k);
  }
  EXPECT_TRUE(log.lines().empty());
  EXPECT_EQ(client_log_limiter().suppressed(LogKind::kHttpConnectionRefused), before);
}

}  // namespace
}  // namespace chunkforge::server
