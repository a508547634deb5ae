// `chunkforge edits log` and `chunkforge edits rollback` (edits_moderation.h).
#include "edits_moderation.h"

#include <google/protobuf/util/json_util.h>

#include <charconv>
#include <ctime>
#include <iostream>

#include "args.h"
#include "chunkforge/chunk.h"
#include "chunkforge/encode.h"
#include "chunkforge/world_extent.h"
#include "commands.h"
#include "edits/edit_history.h"
#include "edits/rollback.h"
#include "edits_text.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

// Unix seconds from "1765100000" or "2026-12-07T10:00:00Z"; nullopt if it is neither.
std::optional<int64_t> parse_time(const std::string& text) {
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec == std::errc() && end == text.data() + text.size()) return seconds;
  std::tm tm{};
  const char* rest = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (rest == nullptr || *rest != '\0') return std::nullopt;
  return static_cast<int64_t>(timegm(&tm));
}

// The window's bounds into since and until; false after saying which is wrong.
bool parse_window(const ModerationOptions& o, const char* command, int64_t& since, int64_t& until) {
  for (const auto& [flag, text, out] :
       {std::tuple{"--since", &o.since, &since}, std::tuple{"--until", &o.until, &until}}) {
    if (text->empty()) continue;
    const std::optional<int64_t> t = parse_time(*text);
    if (!t) {
      std::cerr << "edits " << command << ": " << flag << ": Unix seconds or YYYY-MM-DDTHH:MM:SSZ (got \"" << *text
                << "\")\n";
      return false;
    }
    *out = *t;
  }
  return true;
}

void add_filters(CLI::App& app, ModerationOptions& o) {
  app.add_option("--area", o.area, "CX0 CZ0 CX1 CZ1: chunks in this rectangle")->expected(4);
  app.add_option("--player", o.player, "whose changes (a token's subject, or the name a service gave)");
  app.add_option("--since", o.since, "committed at or after: Unix seconds or YYYY-MM-DDTHH:MM:SSZ");
  app.add_option("--until", o.until, "committed before: Unix seconds or YYYY-MM-DDTHH:MM:SSZ");
}

void set_area(v1::ChunkArea& area, const std::vector<int64_t>& c) {
  area.mutable_min()->set_x(std::min(c[0], c[2]));
  area.mutable_min()->set_z(std::min(c[1], c[3]));
  area.mutable_max()->set_x(std::max(c[0], c[2]));
  area.mutable_max()->set_z(std::max(c[1], c[3]));
}

// An entry as a line in the export's words (edits_text.h): hex ids, layer names.
std::string entry_line(const v1::EditLogEntry& e, const World& world) {
  v1::ChunkChange change;
  *change.mutable_chunk() = e.chunk();
  change.set_version(e.version());
  *change.mutable_edits() = e.edits();
  change.set_reset(e.reset());
  change.set_rollback_id(e.rollback_id());
  change.set_author(e.player());
  change.set_committed_at(e.at());
  return change_line(change, world);
}

}  // namespace

CLI::App* declare_log(CLI::App& edits, ModerationOptions& o) {
  CLI::App* log = edits.add_subcommand("log", "who changed what: the stored changes matching the filters");
  set_help(*log,
           "usage: chunkforge edits log (--data DIR | --store URI) [--chunk CX CZ | --area CX0 CZ0 CX1 CZ1]\n"
           "         [--player NAME] [--since T] [--until T] [--object ID] [--limit N] [--world FILE]\n",
           "Prints the stored changes matching every filter given, newest first, one JSON line each\n"
           "in the export's words plus \"author\" and \"committed_at\" (Unix seconds). --object needs\n"
           "its chunk (--chunk). At most --limit lines (default 1000, at most 10000).\n");
  add_filters(*log, o);
  log->add_option("--chunk", o.chunk, "CX CZ: one chunk")->expected(2);
  log->add_option("--object", o.object, "only changes naming this object (hex id)");
  log->add_option("--limit", o.limit, "at most this many lines")->check(CLI::Range(1u, 10000u));
  return log;
}

CLI::App* declare_rollback(CLI::App& edits, ModerationOptions& o) {
  CLI::App* rollback = edits.add_subcommand("rollback", "undo one player's (or everyone's) changes in an area");
  set_help(*rollback,
           "usage: chunkforge edits rollback (--data DIR | --store URI) --area CX0 CZ0 CX1 CZ1\n"
           "         [--player NAME] [--since T] [--until T] (--preview | --request-id ID) [--world FILE]\n",
           "Undoes the matching changes, keeping everyone else's later changes (docs/edits.md,\n"
           "\"Rollback\": conflicts are reported), as new versions of the chunks: running servers\n"
           "send them to their players. --preview says what would change and changes nothing. The\n"
           "request id makes a retry (after a crash mid-way) finish the rest and apply nothing twice.\n");
  add_filters(*rollback, o);
  rollback->add_flag("--preview", o.preview, "say what would change; change nothing");
  rollback->add_option("--request-id", o.request_id, "required to apply: a retry with it applies once");
  rollback->add_option("--by", o.by, "recorded as the rollback's author (default: operator)");
  return rollback;
}

int log_edits(server::EditStore& store, const World& world, const ModerationOptions& o) {
  v1::EditLogRequest request;
  if (!o.area.empty()) set_area(*request.mutable_area(), o.area);
  if (!o.chunk.empty()) set_area(*request.mutable_area(), {o.chunk[0], o.chunk[1], o.chunk[0], o.chunk[1]});
  request.set_player(o.player);
  int64_t since = 0, until = 0;
  if (!parse_window(o, "log", since, until)) return kExitBadInput;
  request.set_since(since);
  request.set_until(until);
  if (!o.object.empty()) {
    uint64_t id = 0;
    const auto [end, ec] = std::from_chars(o.object.data(), o.object.data() + o.object.size(), id, 16);
    if (ec != std::errc() || end != o.object.data() + o.object.size() || id == 0) {
      std::cerr << "edits log: --object: a hex id as `chunkforge chunk` prints it (got \"" << o.object << "\")\n";
      return kExitBadInput;
    }
    request.set_object(id);
  }
  request.set_limit(o.limit);
  if (grpc::Status s = server::check_edit_log(request, chunk_limit(static_cast<uint32_t>(world.chunk_size())));
      !s.ok()) {
    std::cerr << "edits log: " << s.error_message() << '\n';
    return kExitBadInput;
  }
  const v1::EditLogResponse log = server::edit_log(store, request);
  for (const v1::EditLogEntry& e : log.entries()) std::cout << entry_line(e, world) << '\n';
  if (log.truncated()) std::cerr << "edits log: more changes match; narrow the filters or raise --limit\n";
  return kExitOk;
}

int rollback_edits(server::EditStore& store, const World& world, const ModerationOptions& o) {
  if (o.area.empty()) {
    std::cerr << "edits rollback: --area CX0 CZ0 CX1 CZ1 is required\n";
    return kExitBadInput;
  }
  server::RollbackSpec spec;
  spec.area = {{std::min(o.area[0], o.area[2]), std::min(o.area[1], o.area[3])},
               {std::max(o.area[0], o.area[2]), std::max(o.area[1], o.area[3])}};
  if (!o.player.empty()) spec.author = store.player_id(o.player).value_or(UINT32_MAX);
  if (!parse_window(o, "rollback", spec.since, spec.until)) return kExitBadInput;
  spec.request_id = o.request_id;
  spec.by = o.by;
  spec.preview = o.preview;
  const Generator generator(world);
  v1::RollbackResponse answer;
  const grpc::Status s = server::roll_back(
      store, [&](ChunkCoord c) { return encode_chunk(world, generator.generate(c)); }, spec, answer,
      [](size_t done, size_t total) { std::cerr << "edits rollback: " << done << " of " << total << " chunks\n"; });
  if (!s.ok()) {
    std::cerr << "edits rollback: " << s.error_message() << '\n';
    return kExitBadInput;
  }
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(answer, &json, options);
  std::cout << json << '\n';
  return kExitOk;
}

}  // namespace chunkforge::tool
