// Fuzz target session_update: a Session's update path as the server runs it, without gRPC. The
// input is a series of SessionUpdates, each behind a one-byte length; each is parsed and
// checked (update_error) as session.cc does, and a valid one moves a SessionView. Between
// updates, some generations come back (as chunks or dropped) and some events are written, as
// the input's bytes decide. What must hold: the window is never exceeded, every load lies in
// the view, and once everything is served and written the view settles.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "session/session_view.h"

namespace {

using namespace chunkforge;
using namespace chunkforge::server;

constexpr int64_t kChunkSize = 64, kChunkLimit = (int64_t{1} << 40) / kChunkSize;
constexpr uint32_t kMaxRadius = 16;
constexpr size_t kWindow = 8;

void ignore_log(google::protobuf::LogLevel, const char*, int, const std::string&) {}

void require(bool condition) {
  if (!condition) __builtin_trap();
}

// Serves up to `generations` generations (each kept or dropped by one bit of `pattern`) and
// writes up to `events` events, checking each load against the view's radius.
void step(SessionView& view, uint32_t radius, int generations, int events, uint8_t pattern) {
  for (int k = 0; k < generations; ++k) {
    const auto next = view.next_generation();
    if (!next) break;
    const bool dropped = (pattern >> (k % 8)) & 1;
    view.generated(next->key, dropped ? nullptr : std::make_shared<const std::string>("chunk"));
  }
  require(view.under_way() + view.ready() <= kWindow);
  for (int k = 0; k < events; ++k) {
    const auto event = view.next_event();
    if (!event) break;
    if (event->kind == SessionView::Kind::load) require(view.distance2(event->key) <= 2 * int64_t{radius} * radius);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(ignore_log);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  SessionView view(kChunkSize, kChunkLimit, kWindow);
  uint32_t radius = 0;
  size_t at = 0;
  while (at < size) {
    const size_t length = data[at++];
    if (length > size - at) break;
    v1::SessionUpdate update;
    const bool parsed = update.ParseFromArray(data + at, static_cast<int>(length));
    at += length;
    if (!parsed || !update_error(update, kMaxRadius, kMaxRadius, static_cast<double>(int64_t{1} << 40)).empty()) break;
    view.move(update);
    radius = update.view_radius();
    const uint8_t knobs = at < size ? data[at] : 0;
    step(view, radius, knobs & 0x0f, knobs >> 4, static_cast<uint8_t>(length));
  }
  // Everything served and written: the client holds exactly its view.
  for (int rounds = 0; !view.settled(); ++rounds) {
    require(rounds < 100000);
    step(view, radius, 64, 64, 0);
  }
  return 0;
}
