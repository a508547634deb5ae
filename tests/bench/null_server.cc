// chunkforge-null-server: the transport ceiling. Answers WorldService's GetChunk and
// StreamRegion with one pre-encoded chunk of realistic size (the default world's chunk (0, 0),
// as the real server sends it) for every coordinate, with no cache, queue or generation, so
// chunkforge-loadgen against it measures what gRPC alone allows on this machine.
//
//   chunkforge-null-server --listen 127.0.0.1:50052
#include <grpcpp/grpcpp.h>
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>

#include "chunkforge/encode.h"
#include "chunkforge/v1/service.grpc.pb.h"
#include "chunkforge/world.h"
#include "parse_command_line.h"

namespace {

using Base = chunkforge::v1::WorldService::WithRawCallbackMethod_GetChunk<
    chunkforge::v1::WorldService::WithRawCallbackMethod_StreamRegion<chunkforge::v1::WorldService::Service>>;

class NullService final : public Base {
 public:
  explicit NullService(std::string chunk) : chunk_(std::move(chunk)) {}

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
};

// --listen into `listen`; nullopt to go on, else the exit code (--help: 0 without serving; a bad
// or unknown option: 2).
std::optional<int> parse(int argc, char** argv, std::string& listen) {
  CLI::App app(
      "The transport ceiling: answers GetChunk and StreamRegion with one pre-encoded chunk for\n"
      "every coordinate (no cache, queue or generation), for chunkforge-loadgen to measure\n"
      "what gRPC alone allows on this machine. Serves until killed.\n",
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
  NullService service(chunkforge::canonical_bytes(chunk));
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
