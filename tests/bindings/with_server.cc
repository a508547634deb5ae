// Runs a bindings test program (C, C#, the C walker) against real chunkforge-server processes:
// one plain with a SQLite edit store, a read token and a write token, one with TLS. The program
// finds them in CF_TEST_* variables; "{target}" in its arguments becomes the plain server's
// address. With --compare FILE, every "x z hex" line the program wrote to FILE (a chunk's
// canonical bytes) must equal what the C++ SDK gets for that chunk from the same server.
//
// With --measure, the C++ SDK's first-view and poll figures come first (CF_TEST_CPP_*).
//
//   bindings_with_server SERVER [--compare FILE] [--measure] -- PROGRAM ARGS...
#include <chunkforge/client.h>
#include <chunkforge/client/local_generator.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <cstdlib>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "chunkforge/v1/chunk.pb.h"
#include "support/certificate.h"
#include "support/server_process.h"

namespace {

using namespace chunkforge;
using namespace std::chrono_literals;

std::string temp_dir() {
  char pattern[] = "/tmp/chunkforge_bindings_XXXXXX";
  if (mkdtemp(pattern) == nullptr) return "";
  return std::string(pattern) + "/";
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string hex_canonical_bytes(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) (hex += digits[c >> 4]) += digits[c & 15];
  return hex;
}

// Every chunk of `file` against the C++ SDK's; the number of chunks compared, or -1 on a mismatch.
int compare_chunks(const std::string& file, const std::string& target, const std::string& token) {
  client::ConnectOptions options;
  options.bearer_token = token;
  client::Result<client::Client> sdk = client::Client::connect(target, options);
  if (!sdk) return -1;
  std::ifstream in(file);
  std::string line;
  int compared = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    int64_t x = 0, z = 0;
    std::string hex;
    fields >> x >> z >> hex;
    client::Result<client::Chunk> chunk = sdk->chunk({x, z});
    if (!chunk || hex_canonical_bytes(chunk->message()) != hex) {
      std::cerr << "chunk (" << x << ", " << z
                << ") differs from the C++ SDK's: " << (chunk ? "other bytes" : chunk.status().to_string()) << '\n';
      return -1;
    }
    ++compared;
  }
  return compared;
}

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Milliseconds until a radius-8 first view (289 chunks) is loaded: through callbacks, or
// polled on this thread. The server's cache is warm by then (the caller's first view warmed it).
double first_view_ms(client::Client& sdk, bool polled) {
  client::ViewOptions view;
  view.view_radius = 8;
  std::atomic<size_t> loads{0};
  const Clock::time_point start = Clock::now();
  if (polled) {
    auto session = client::ViewSession::start_polled(sdk, {32, 32}, view);
    std::vector<client::ViewEvent> events;
    while (session && events.size() < 289 && ms_since(start) < 20'000) {
      if (session->get()->poll(events, 64) == 0) std::this_thread::yield();
    }
  } else {
    client::ViewCallbacks callbacks;
    callbacks.on_load = [&](const client::Chunk&) { ++loads; };
    auto session = client::ViewSession::start(sdk, {32, 32}, view, callbacks);
    while (session && loads < 289 && ms_since(start) < 20'000) std::this_thread::yield();
  }
  return ms_since(start);
}

// Milliseconds until a radius-8 first view is loaded by a polled session that generates
// locally with LOD radius 1024, the generator made from the server's definition first (as the C
// ABI's generate_locally does).
double local_first_view_ms(client::Client& sdk) {
  client::ViewOptions view;
  view.view_radius = 8;
  view.lod_radius = 1024;
  const Clock::time_point start = Clock::now();
  client::Result<std::shared_ptr<client::BaseGenerator>> generator = client::make_local_generator(sdk);
  if (!generator) return 0;
  view.generator = *generator;
  auto session = client::ViewSession::start_polled(sdk, {32, 32}, view);
  std::vector<client::ViewEvent> events;
  size_t loads = 0;
  while (session && loads < 289 && ms_since(start) < 20'000) {
    events.clear();
    if (session->get()->poll(events, 64) == 0) std::this_thread::yield();
    for (const client::ViewEvent& e : events) loads += e.kind == client::ViewEvent::Kind::load;
  }
  return ms_since(start);
}

// Events per second that poll() drains from a full queue (289 loads waiting), reading each
// chunk's objects as a game would.
double poll_drain_rate(client::Client& sdk) {
  client::ViewOptions view;
  view.view_radius = 8;
  auto session = client::ViewSession::start_polled(sdk, {32, 32}, view);
  const Clock::time_point filling = Clock::now();
  while (session && session->get()->stats().queued_events < 289 && ms_since(filling) < 20'000) {
    std::this_thread::sleep_for(1ms);
  }
  std::vector<client::ViewEvent> events;
  const Clock::time_point start = Clock::now();
  size_t objects = 0;
  while (session && events.size() < 289 && ms_since(start) < 20'000) {
    const size_t before = events.size();
    session->get()->poll(events, 64);
    for (size_t k = before; k < events.size(); ++k) objects += events[k].chunk->objects().size();  // as a game reads
  }
  const double rate = 289 / (ms_since(start) / 1000);
  return objects > 0 ? rate : 0;
}

// The C++ SDK's figures for the same server, set as CF_TEST_CPP_* for the program to print
// beside its own (docs/engines.md, "Measures").
void measure_cpp(const std::string& target) {
  client::ConnectOptions options;
  options.bearer_token = "read-secret";
  client::Result<client::Client> sdk = client::Client::connect(target, options);
  if (!sdk) return;
  first_view_ms(*sdk, true);  // generates the view: the figures below are the transport's
  std::vector<double> callbacks, polled, drained, local;
  for (int k = 0; k < 9; ++k) {
    callbacks.push_back(first_view_ms(*sdk, false));
    polled.push_back(first_view_ms(*sdk, true));
    drained.push_back(poll_drain_rate(*sdk));
    if (k < 5) local.push_back(local_first_view_ms(*sdk));
  }
  setenv("CF_TEST_CPP_LOCAL_FIRST_VIEW_MS", std::to_string(median(local)).c_str(), 1);
  setenv("CF_TEST_CPP_FIRST_VIEW_CALLBACKS_MS", std::to_string(median(callbacks)).c_str(), 1);
  setenv("CF_TEST_CPP_FIRST_VIEW_POLLED_MS", std::to_string(median(polled)).c_str(), 1);
  setenv("CF_TEST_CPP_POLL_EVENTS_PER_S", std::to_string(median(drained)).c_str(), 1);
  std::cout << "C++ SDK, radius-8 first view (289 chunks, warm server), median of 9: callbacks " << median(callbacks)
            << " ms, polled " << median(polled) << " ms; poll drains " << median(drained)
            << " events/s; generating locally with LOD radius 1024, polled, median of 5: " << median(local) << " ms\n";
}

int run(std::vector<std::string> args, const std::string& target) {
  for (std::string& a : args) {
    if (a == "{target}") a = target;
  }
  test::Process program;  // its output is ours (test::spawn would send it to a log)
  program.pid = fork();
  if (program.pid == 0) {
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  const int code = test::wait_for(program, 120s);
  if (code == -1) std::cerr << args[0] << " did not end within 120 s\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string compare;
  const auto dash = std::find(args.begin(), args.end(), "--");
  if (args.size() < 3 || dash == args.end() || dash + 1 == args.end()) {
    std::cerr << "usage: bindings_with_server SERVER [--compare FILE] [--measure] -- PROGRAM ARGS...\n";
    return 2;
  }
  if (args[1] == "--compare") compare = args[2];
  const bool measure = std::find(args.begin(), dash, "--measure") != dash;
  const std::string dir = temp_dir();
  const test::CertificateFiles cert = test::make_certificate(dir);
  if (dir.empty() || cert.cert.empty()) return 2;
  write_file(dir + "read.token", "read-secret\n");
  write_file(dir + "write.token", "write-secret\n");
  const test::Process plain =
      test::spawn(args[0],
                  {"--listen", "127.0.0.1:0", "--http", "", "--threads", "2", "--max-radius", "8", "--data", dir,
                   "--auth-token-file", dir + "read.token", "--write-token-file", dir + "write.token"},
                  dir + "plain.log");
  const test::Process tls = test::spawn(
      args[0],
      {"--listen", "127.0.0.1:0", "--http", "", "--threads", "1", "--tls-cert", cert.cert, "--tls-key", cert.key},
      dir + "tls.log");
  const int plain_port = test::wait_until_serving(plain), tls_port = test::wait_until_serving(tls);
  int code = 2;
  if (plain_port == 0 || tls_port == 0) {
    std::cerr << "a server did not start:\n" << test::read_text(plain.log) << test::read_text(tls.log);
  } else {
    const std::string target = "127.0.0.1:" + std::to_string(plain_port);
    setenv("CF_TEST_TARGET", target.c_str(), 1);
    setenv("CF_TEST_READ_TOKEN", "read-secret", 1);
    setenv("CF_TEST_WRITE_TOKEN", "write-secret", 1);
    setenv("CF_TEST_TLS_TARGET", ("localhost:" + std::to_string(tls_port)).c_str(), 1);
    setenv("CF_TEST_TLS_CA", cert.cert.c_str(), 1);
    if (!compare.empty()) std::remove(compare.c_str());
    if (measure) measure_cpp(target);
    code = run(std::vector<std::string>(dash + 1, args.end()), target);
    if (code == 0 && !compare.empty()) {
      const int compared = compare_chunks(compare, target, "read-secret");
      std::cout << "compared with the C++ SDK: " << compared << " chunks, byte for byte\n";
      if (compared <= 0) code = 1;
    }
  }
  for (const test::Process* p : {&plain, &tls}) kill(p->pid, SIGTERM);
  for (const test::Process* p : {&plain, &tls}) test::wait_for(*p, 5s);
  if (code == 0) std::filesystem::remove_all(dir);  // a failure's logs are left for reading
  return code;
}
