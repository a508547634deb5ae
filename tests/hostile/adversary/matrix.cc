// File: tests/hostile/adversary/matrix.cc
//
// The matrix runner of matrix.h.
#include "matrix.h"

#include <map>
#include <set>

#include "fan_out.h"

namespace chunkforge::hostile::adversary {
namespace {

// What a client can make the server hold, log, and whether the good clients are still served
// (/healthz every time, no probe call failed or past its 5 s deadline, a clean exit). Their p99s
// are reported, not bound: the 16 attacking connections' threads run on the server's cores, and
// a flood of GetWorldInfo, which does no work, takes a 0.4 ms p99 past 100 ms (docs/server.md,
// "The generated adversary").
const Bounds kBounds{.min_healthz = 1.0, .log_rate = true, .cold = true, .latency = false};
// The bounds a cell of a known hole breaks, reported apart: HTTP/2 rapid reset
// (leaves_mid_call) costs memory, the good clients' gRPC calls (seconds each) and shutdown time
// inside gRPC 1.51, Debian 12's, below any RPC's code (docs/server.md, "Rapid reset: a known
// hole, below the server's code"). Its exit code, the log and /healthz are bound as in every cell.
bool known_hole(const Cell& cell, const std::string& broken) {
  if (cell.behaviour != Behaviour::leaves_mid_call) return false;
  const bool exit_time = broken.starts_with("exit ") && broken.ends_with(" s");
  const bool probe_failed = broken.starts_with("warm failures") || broken.starts_with("cold failures");
  return broken.starts_with("rss +") || probe_failed || exit_time || broken.starts_with("shutdown forced");
}

// A server grown this far past its RSS at the attack's start is killed: the bound is 256 MiB,
// and on a shared machine one grew to 15 GiB before the next cell.
constexpr double kKillPastMib = 2048;
// How long a shared server's RSS is still watched after its cell's attack.
constexpr auto kAftermath = 500ms;

// A 64 MiB chunk cache (256 by default): the cache fills to its bound whoever asks, and the RSS
// bound is for what the server holds for its clients.
std::vector<std::string> server_args(const std::string& data_dir) {
  return {"--data", data_dir, "--open-edits", "--client-generation", "on", "--cache-mb", "64"};
}

std::string shorten(std::string text, size_t most = 160) {
  if (text.size() > most) text = text.substr(0, most) + "... (" + std::to_string(text.size()) + " chars)";
  return text;
}

void print_inputs(const MethodInputs& in, std::FILE* out) {
  std::fprintf(out, "adversary derived %s (%d probes): base {%s}\n", in.method.name.c_str(), in.probes,
               shorten(in.base->ShortDebugString()).c_str());
  for (const Maximum& m : in.maxima) std::fprintf(out, "  max %s\n", m.describe().c_str());
  std::fprintf(out, "  %zu bogus declarations; fan-out {%s}: %.0f answer bytes per request byte\n", in.bogus.size(),
               shorten(in.fan_out->ShortDebugString()).c_str(), in.fan_out_ratio);
  std::fflush(out);
}

// Every method the cells use, derived on a probe server over a copy of `store`.
std::map<std::string, MethodInputs> derive_all(const std::vector<Cell>& cells, const std::string& store,
                                               const MatrixOptions& options, std::FILE* out) {
  const std::vector<Method> methods = service_methods();
  std::set<std::string> used;
  for (const Cell& c : cells) used.insert(c.method);  // the control cell's "" is no method
  ServerProcess server("adversary_probe", server_args(copy_store(store)));
  if (!server.serving()) throw std::runtime_error("the probe server did not start:\n" + server.log());
  Prober prober(server.channel());
  const std::vector<PublishedValue> published = published_values(methods, prober);
  std::map<std::string, MethodInputs> inputs;
  const auto start = Clock::now();
  for (const Method& m : methods) {
    if (used.count(m.name) == 0) continue;
    MethodInputs in = derive_inputs(m, prober, published);
    choose_fan_out(in, prober, options.fan_out_window);
    print_inputs(in, out);
    inputs.emplace(m.name, std::move(in));
  }
  std::fprintf(out, "adversary: %d probes in %.1f s\n", prober.calls(), seconds_since(start));
  std::fflush(out);
  server.terminate();
  return inputs;
}

// Whether a server that ran earlier cells can take the next: it runs, has not grown by more than
// the bound since it started, and answers a warm GetChunk within 100 ms. Otherwise the next cell
// gets a fresh server: one cell's damage must not be measured as the next one's.
bool fit_for_next(ServerProcess& server, double started_mib) {
  if (server.exited() || !server.serving()) return false;
  const double rss = status_mib(server.pid(), "VmRSS");
  if (rss <= 0 || rss - started_mib > 256) return false;
  ChunkProbe probe(server.channel());
  for (int k = 0; k < 3; ++k) {
    const double ms = probe.once();
    if (ms < 0 || ms > 100) return false;
  }
  return true;
}

CellResult run_cell(const Cell& cell, const MethodInputs* inputs, ServerProcess& server, bool last,
                    const MatrixOptions& options) {
  CellResult result;
  result.cell = cell;
  result.report.name = cell.name();
  const CallPlan plan = inputs == nullptr ? CallPlan{} : plan_for(cell, *inputs);
  Received received;
  measure_attack(server, result.report, options.attack,
                 [&](std::stop_token stop) { attack(cell.behaviour, plan, server.port(), std::move(stop), received); },
                 {.cold_probe = true,
                  .terminate = last,
                  .aftermath = kAftermath,
                  .cut_probes = true,
                  .kill_past_mib = kKillPastMib});
  result.messages = received.messages;
  result.bytes = received.bytes;
  result.calls = received.calls;
  result.server_resets = received.server_resets;
  for (std::string& b : broken_bounds(result.report, kBounds)) {
    (known_hole(cell, b) ? result.known : result.broken).push_back(std::move(b));
  }
  return result;
}

// The cells of one server: all of one store state, or one cell.
std::vector<std::vector<Cell>> groups_of(const std::vector<Cell>& cells, bool server_per_cell) {
  std::vector<std::vector<Cell>> groups;
  if (server_per_cell) {
    for (const Cell& c : cells) groups.push_back({c});
    return groups;
  }
  for (StoreState s : kStoreStates) {
    std::vector<Cell> group;
    for (const Cell& c : cells) {
      if (c.store == s) group.push_back(c);
    }
    if (!group.empty()) groups.push_back(std::move(group));
  }
  return groups;
}

double per_second(int64_t n, const Report& r) {
  return r.attack_seconds > 0 ? static_cast<double>(n) / r.attack_seconds : 0;
}

}  // namespace

std::string CellResult::verdict() const {
  std::string text = broken.empty() ? "ok" : "**FAIL**:";
  for (const std::string& b : broken) text += " " + b + ";";
  if (!known.empty()) text += " known hole (rapid reset):";
  for (const std::string& b : known) text += " " + b + ";";
  return text;
}

std::string CellResult::line() const {
  char text[256];
  std::snprintf(text, sizeof text,
                "; attackers received %lld messages (%.0f/s), %.1f MB, in %lld calls (%lld reset by "
                "the server)",
                static_cast<long long>(messages), per_second(messages, report), static_cast<double>(bytes) / 1e6,
                static_cast<long long>(calls), static_cast<long long>(server_resets));
  return report.line() + text + " => " + verdict();
}

std::string CellResult::table_row() const {
  const Report& r = report;
  char text[512];
  char exit[64] = "(not the last on its server)";
  if (r.killed) std::snprintf(exit, sizeof exit, "killed");
  if (r.terminated) std::snprintf(exit, sizeof exit, "%d after %.2f s", r.exit_code, r.exit_seconds);
  std::snprintf(text, sizeof text,
                "| %s | %s | %s | %s | +%.0f | %.0f | %.1f | %.0f | %.1f | %.1f / %.1f | %.1f / %.1f | %.1f | %s |",
                cell.method.empty() ? "(control)" : cell.method.c_str(), behaviour_name(cell.behaviour),
                store_name(cell.store), kind_name(cell.kind), r.rss_peak_mib - r.rss_before_mib, r.log_kb_per_minute(),
                r.cpu_seconds, per_second(messages, r),
                static_cast<double>(bytes) / 1e6 / std::max(r.attack_seconds, 1e-9), r.quiet_p99_ms, r.attack_p99_ms,
                r.cold_quiet_p99_ms, r.cold_attack_p99_ms, r.healthz * 100, exit);
  return std::string(text) + " " + verdict() + " |";
}

std::vector<CellResult> run_matrix(const std::vector<Cell>& cells, const MatrixOptions& options, std::FILE* progress) {
  std::fflush(progress);
  std::map<StoreState, std::string> stores;
  stores[options.probe_store] = "";
  for (const Cell& c : cells) stores[c.store] = "";
  for (auto& [state, dir] : stores) {
    const auto start = Clock::now();
    dir = build_store(state);
    std::fprintf(progress, "adversary: store %s made in %.1f s\n", store_name(state), seconds_since(start));
    std::fflush(progress);
  }
  const std::map<std::string, MethodInputs> inputs = derive_all(cells, stores[options.probe_store], options, progress);
  std::vector<CellResult> results;
  for (const std::vector<Cell>& group : groups_of(cells, options.server_per_cell)) {
    std::unique_ptr<ServerProcess> server;
    double started_mib = 0;
    for (size_t k = 0; k < group.size(); ++k) {
      if (!server || !fit_for_next(*server, started_mib)) {
        if (server) std::fprintf(progress, "adversary: a fresh server (the last cell left its own unfit)\n");
        std::fflush(progress);  // a forked child would print what is still buffered again
        server.reset();         // SIGKILL: its exit is not measured
        server = std::make_unique<ServerProcess>("adversary", server_args(copy_store(stores[group[k].store])));
        started_mib = status_mib(server->pid(), "VmRSS");
      }
      if (!server->serving()) throw std::runtime_error("the server did not start:\n" + server->log());
      const auto in = inputs.find(group[k].method);  // none for the control cell
      results.push_back(
          run_cell(group[k], in == inputs.end() ? nullptr : &in->second, *server, k + 1 == group.size(), options));
      std::fprintf(progress, "%s\n", results.back().line().c_str());
      std::fflush(progress);
      if (k + 1 < group.size()) std::this_thread::sleep_for(250ms);  // the attack's connections wind down
    }
  }
  return results;
}

std::string markdown_table(const std::vector<CellResult>& results) {
  std::string table =
      "| method | behaviour | store | session kind | RSS growth (MiB) | log (KB/min) | server CPU (s) | messages/s to "
      "attackers | MB/s to attackers | warm p99 quiet / attack (ms) | cold p99 quiet / attack (ms) | /healthz (%) | "
      "exit after SIGTERM | bounds |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const CellResult& r : results) table += r.table_row() + "\n";
  return table;
}

}  // namespace chunkforge::hostile::adversary
