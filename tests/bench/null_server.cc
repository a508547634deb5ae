// chunkforge-null-server: the transport ceiling. Answers WorldService's GetChunk and
// StreamRegion with one pre-encoded chunk of realistic size (the default world's chunk (0, 0),
// as the real server sends it) for every coordinate, with no cache, queue or generation, so
// chunkforge-loadgen against it measures what gRPC alone allows on this machine. Its Session
// answers a client that generates (`chunkforge-loadgen --mode local`) as the real server does a
// world without edits: the answer, then every chunk entering the view as a pristine offset, with
// no bookkeeping beyond the last view.
//
//   chunkforge-null-server --listen 127.0.0.1:50052
#include <grpcpp/grpcpp.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>

#include "chunkforge/encode.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world.h"
#include "parse_command_line.h"

namespace {

using chunkforge::v1::WorldService;
using Base = WorldService::WithRawCallbackMethod_GetChunk<WorldService::WithRawCallbackMethod_StreamRegion<
    WorldService::WithCallbackMethod_GetWorldInfo<WorldService::WithCallbackMethod_Session<WorldService::Service>>>>;

// A Session of a client that generates: each update's new chunks as one `pristine` event, one
// write in flight, ended when the client half-closes or cancels. Views are clipped to the
// server's largest radius, so no update costs more than the real server's would.
class NullSession final : public grpc::ServerBidiReactor<chunkforge::v1::SessionUpdate, chunkforge::v1::SessionEvent> {
 public:
  NullSession() { StartRead(&update_); }

  void OnReadDone(bool ok) override {
    std::lock_guard lock(mutex_);
    if (!ok) return end(grpc::Status::OK);
    if (update_.has_local_generation() && !answered_) {
      chunkforge::v1::SessionEvent answer;
      answer.mutable_local_generation()->set_accepted(true);
      queued_.push_back(std::move(answer));
      answered_ = true;
    }
    const int64_t r = std::min<int64_t>(update_.view_radius(), kMaxRadius);
    const auto cx = static_cast<int64_t>(std::floor(update_.x() / 64)),
               cz = static_cast<int64_t>(std::floor(update_.z() / 64));
    chunkforge::v1::SessionEvent event;
    event.mutable_pristine()->mutable_origin()->set_x(cx);
    event.mutable_pristine()->mutable_origin()->set_z(cz);
    for (int64_t z = cz - r; z <= cz + r; ++z) {
      for (int64_t x = cx - r; x <= cx + r; ++x) {
        if (seen_ && std::abs(x - x_) <= r_ && std::abs(z - z_) <= r_) continue;
        event.mutable_pristine()->add_offsets(static_cast<int32_t>(x - cx));
        event.mutable_pristine()->add_offsets(static_cast<int32_t>(z - cz));
      }
    }
    seen_ = true;
    x_ = cx, z_ = cz, r_ = r;
    if (event.pristine().offsets_size() > 0) queued_.push_back(std::move(event));
    write_next();
    StartRead(&update_);
  }
  void OnWriteDone(bool ok) override {
    std::lock_guard lock(mutex_);
    writing_ = false;
    if (!ok) return end(grpc::Status(grpc::StatusCode::CANCELLED, ""));
    write_next();
  }
  void OnCancel() override {
    std::lock_guard lock(mutex_);
    end(grpc::Status(grpc::StatusCode::CANCELLED, ""));
  }
  void OnDone() override { delete this; }

 private:
  void write_next() {
    if (writing_ || queued_.empty() || finishing_) return;
    out_ = std::move(queued_.front());
    queued_.pop_front();
    writing_ = true;
    StartWrite(&out_);
  }
  void end(const grpc::Status& status) {
    if (finishing_) return;
    finishing_ = true;
    Finish(status);
  }

  static constexpr int64_t kMaxRadius = 16;  // the real server's default --max-radius
  // Recursive: gRPC may run a reaction inline from StartRead or StartWrite, which are called
  // with it held.
  std::recursive_mutex mutex_;
  chunkforge::v1::SessionUpdate update_;
  chunkforge::v1::SessionEvent out_;
  std::deque<chunkforge::v1::SessionEvent> queued_;
  bool answered_ = false, seen_ = false, writing_ = false, finishing_ = false;
  int64_t x_ = 0, z_ = 0, r_ = 0;
};

class NullService final : public Base {
 public:
  NullService(std::string chunk, const chunkforge::World& world) : chunk_(std::move(chunk)) {
    info_.set_generator_version(world.generator_version());
    info_.set_fingerprint(world.fingerprint());
  }

  grpc::ServerUnaryReactor* GetWorldInfo(grpc::CallbackServerContext* context,
                                         const chunkforge::v1::GetWorldInfoRequest*,
                                         chunkforge::v1::WorldInfo* info) override {
    *info = info_;
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerBidiReactor<chunkforge::v1::SessionUpdate, chunkforge::v1::SessionEvent>* Session(
      grpc::CallbackServerContext*) override {
    return new NullSession;
  }

  grpc::ServerUnaryReactor* GetChunk(grpc::CallbackServerContext* context, const grpc::ByteBuffer*,
                                     grpc::ByteBuffer* response) override {
    grpc::Slice slice(chunk_.data(), chunk_.size());
    *response = grpc::ByteBuffer(&slice, 1);
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerWriteReactor<grpc::ByteBuffer>* StreamRegion(grpc::CallbackServerContext*,
                                                           const grpc::ByteBuffer* request) override {
    chunkforge::v1::StreamRegionRequest r;
    std::vector<grpc::Slice> slices;
    std::string bytes;
    if (request->Dump(&slices).ok()) {
      for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
    r.ParseFromString(bytes);
    const size_t side = 2 * static_cast<size_t>(r.radius()) + 1;
    return new Writer(chunk_, side * side);
  }

 private:
  // One write in flight, like the real server.
  class Writer final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
   public:
    Writer(const std::string& chunk, size_t count) : count_(count) {
      grpc::Slice slice(chunk.data(), chunk.size());
      buffer_ = grpc::ByteBuffer(&slice, 1);
      Next();
    }
    void OnWriteDone(bool ok) override {
      if (!ok) return Finish(grpc::Status(grpc::StatusCode::CANCELLED, ""));
      Next();
    }
    void OnDone() override { delete this; }

   private:
    void Next() {
      if (sent_++ == count_) return Finish(grpc::Status::OK);
      StartWrite(&buffer_);
    }
    size_t count_, sent_ = 0;
    grpc::ByteBuffer buffer_;
  };

  std::string chunk_;
  chunkforge::v1::WorldInfo info_;
};

// --listen into `listen`; nullopt to go on, else the exit code (--help: 0 without serving; a bad
// or unknown option: 2).
std::optional<int> parse(int argc, char** argv, std::string& listen) {
  CLI::App app(
      "The transport ceiling: answers GetChunk and StreamRegion with one pre-encoded chunk for\n"
      "every coordinate (no cache, queue or generation), and Session as for a client that\n"
      "generates (chunkforge-loadgen --mode local), for chunkforge-loadgen to measure what gRPC\n"
      "alone allows on this machine. Serves until killed.\n",
      "chunkforge-null-server");
  app.get_formatter()->label("Usage", "usage");
  app.add_option("--listen", listen, "host:port to listen on (default 127.0.0.1:50052)")->type_name("ADDR");
  return chunkforge::tool::parse_command_line(app, argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen = "127.0.0.1:50052";
  if (const std::optional<int> exit_code = parse(argc, argv, listen)) return *exit_code;
  chunkforge::v1::Chunk chunk = chunkforge::encode_chunk(
      chunkforge::default_world(), chunkforge::Generator(chunkforge::default_world()).generate({0, 0}));
  NullService service(chunkforge::canonical_bytes(chunk), chunkforge::default_world());
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  if (!server) return 1;
  std::cout << "null server on port " << port << ", chunk of " << chunkforge::canonical_bytes(chunk).size() << " bytes"
            << std::endl;
  server->Wait();
}
