// `chunkforge edits`: the edit store of a server, directly (docs/edits.md) — export a consistent
// copy while the server runs, import one into an empty store, reset an area to the generated
// world, count what is stored, and moderate: who changed what (log) and undoing it (rollback,
// edits_moderation.h). The running servers see an import or a reset through the
// store's own notification, as they see each other's edits.
#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "args.h"
#include "chunkforge/v1/edit.pb.h"
#include "commands.h"
#include "edit_store.h"
#include "edits_moderation.h"
#include "edits_text.h"
#include "sqlite_backup.h"
#include "store_location.h"
#include "world_options.h"

namespace chunkforge::tool {
namespace {

using server::ChunkRange;
using server::EditStore;
using server::StoredChange;

// The first line of an export: what it is, its format and which world it belongs to. Format 2
// writes the CLI's words (edits_text.h); format 1, protobuf's JSON mapping as it is, is still read.
constexpr char kExportFormat[] = "chunkforge_edits";
constexpr int kExportVersion = 2;
constexpr int kLegacyExportVersion = 1;
// A longer line is no change a server stored (256 operations of at most 256 bytes of state).
constexpr size_t kMaxLineBytes = size_t{1} << 20;

// A stored change as one self-contained message: the blob plus its chunk, version, author's
// name and commit time.
v1::ChunkChange to_message(const StoredChange& stored, const std::string& author) {
  v1::ChunkChange change;
  change.ParseFromString(stored.change);
  change.mutable_chunk()->set_x(stored.chunk.x);
  change.mutable_chunk()->set_z(stored.chunk.z);
  change.set_version(stored.version);
  change.set_author(author);
  change.set_committed_at(stored.at);
  return change;
}

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// The world whose layer names an export writes or an import reads: the store's or the file's,
// which --world (and --seed) must give. "" when it is, else why not.
std::string check_world(const World& world, const std::string& bound, const std::string& whose) {
  if (bound.empty() || bound == world.fingerprint()) return "";
  return whose + " is of the world " + bound + ", --world gives " + world.fingerprint() +
         ": give the world it was made with (--world FILE, --seed N), whose layer names it uses";
}

int export_edits(EditStore& store, const World& world, std::optional<std::string> out_path) {
  const std::string fingerprint = store.meta(server::kWorldFingerprintKey).value_or("");
  if (const std::string error = check_world(world, fingerprint, "the store"); !error.empty()) {
    std::cerr << "edits export: " << error << '\n';
    return kExitBadInput;
  }
  if (out_path == "-") out_path.reset();  // "-": standard output, as for every tool
  std::ofstream file;
  if (out_path) {
    file.open(*out_path, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::cerr << "edits export: cannot write " << *out_path << '\n';
      return kExitFailure;
    }
  }
  std::ostream& out = out_path ? file : std::cout;
  out << "{" << quoted(kExportFormat) << ":" << kExportVersion << ",\"world_fingerprint\":" << quoted(fingerprint)
      << "}\n";
  uint64_t count = 0;
  store.snapshot([&](const StoredChange& stored) {
    out << change_line(to_message(stored, stored.author_name), world) << '\n';
    ++count;
  });
  out.flush();
  if (!out) {
    std::cerr << "edits export: writing failed\n";
    return kExitFailure;
  }
  std::cerr << "edits export: " << count << " changes\n";
  return kExitOk;
}

// What an export's first line says.
struct ExportHeader {
  int format = 0;
  std::string fingerprint;
};

// The header, or nullopt after saying why the file is not an export.
std::optional<ExportHeader> read_header(std::istream& in) {
  std::string line;
  std::getline(in, line);
  for (const int format : {kExportVersion, kLegacyExportVersion}) {
    const std::string prefix = "{" + quoted(kExportFormat) + ":" + std::to_string(format) + ",\"world_fingerprint\":\"";
    if (line.size() <= kMaxLineBytes && line.rfind(prefix, 0) == 0 && line.size() >= prefix.size() + 2) {
      return ExportHeader{format, line.substr(prefix.size(), line.size() - prefix.size() - 2)};
    }
  }
  std::cerr << "edits import: line 1: not a chunkforge edits export (format " << kLegacyExportVersion << " or "
            << kExportVersion << ")\n";
  return std::nullopt;
}

// One line's change checked against the store as the import left it: the next version of its
// chunk, or a reset (an export of a chunk reset earlier starts with its reset marker). `world`:
// for a line of format 2, whose layers have names; null for format 1.
std::string append_line(EditStore::Transaction& tx, const std::string& line, const World* world) {
  if (line.size() > kMaxLineBytes) return "longer than " + std::to_string(kMaxLineBytes) + " bytes";
  v1::ChunkChange change;
  if (std::string error = parse_change_line(line, world, world == nullptr, change); !error.empty()) return error;
  const ChunkCoord chunk{change.chunk().x(), change.chunk().z()};
  const uint64_t now = tx.version(chunk);
  if (change.reset() ? change.version() <= now : change.version() != now + 1) {
    return "chunk (" + std::to_string(chunk.x) + ", " + std::to_string(chunk.z) + ") is at version " +
           std::to_string(now) + " here; the change is version " + std::to_string(change.version()) +
           " (import into a store without these chunks' edits)";
  }
  if (change.reset()) tx.erase_log(chunk);
  const uint64_t version = change.version();
  const server::Authorship by{change.author().empty() ? 0 : tx.player(change.author()), change.committed_at()};
  change.clear_chunk();
  change.clear_version();
  change.clear_author();
  change.clear_committed_at();
  tx.append(chunk, version, change.SerializeAsString(), by);
  return "";
}

// Thrown inside the import's transaction to roll all of it back.
struct ImportRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// All or nothing, in one transaction. `world`: for a file of format 2 (layer names).
int import_edits(EditStore& store, const std::string& path, const WorldOptions& world_options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "edits import: cannot read " << path << '\n';
    return kExitBadInput;
  }
  const std::optional<ExportHeader> header = read_header(in);
  if (!header) return kExitBadInput;
  const std::string* fingerprint = &header->fingerprint;
  std::optional<World> world;
  if (header->format != kLegacyExportVersion) {
    world = load_world(world_options);
    if (!world) return kExitBadInput;
    if (const std::string error = check_world(*world, *fingerprint, "the file"); !error.empty()) {
      std::cerr << "edits import: " << error << '\n';
      return kExitBadInput;
    }
  }
  uint64_t count = 0;
  try {
    store.write([&](EditStore::Transaction& tx) {
      const std::optional<std::string> bound = tx.meta(server::kWorldFingerprintKey);
      if (bound && !bound->empty() && *bound != *fingerprint && store.last_seq() > 0) {
        throw ImportRefused("the store holds edits of the world " + *bound + ", the file is of " + *fingerprint);
      }
      std::string line;
      for (uint64_t number = 2; std::getline(in, line); ++number) {
        if (line.empty()) continue;
        if (const std::string error = append_line(tx, line, world ? &*world : nullptr); !error.empty()) {
          throw ImportRefused("line " + std::to_string(number) + ": " + error);
        }
        ++count;
      }
      if (!fingerprint->empty()) tx.set_meta(server::kWorldFingerprintKey, *fingerprint);
    });
  } catch (const ImportRefused& refused) {
    std::cerr << "edits import: " << refused.what() << "; nothing imported\n";
    return kExitBadInput;
  }
  std::cerr << "edits import: " << count << " changes\n";
  return kExitOk;
}

// Every edited chunk in the range goes back to the generated base: its log is deleted and a
// reset marker is its next version, so servers replace the chunk in sessions that hold it.
int reset_edits(EditStore& store, const int64_t (&corners)[4]) {
  const ChunkRange range{{std::min(corners[0], corners[2]), std::min(corners[1], corners[3])},
                         {std::max(corners[0], corners[2]), std::max(corners[1], corners[3])}};
  uint64_t count = 0;
  store.write([&](EditStore::Transaction& tx) {
    for (const ChunkCoord chunk : tx.edited_chunks(range)) {
      const uint64_t version = tx.version(chunk);
      tx.erase_log(chunk);
      v1::ChunkChange marker;
      marker.set_reset(true);
      tx.append(chunk, version + 1, marker.SerializeAsString());
      ++count;
    }
  });
  std::cout << "{\"chunks_reset\":" << count << "}\n";
  return kExitOk;
}

int print_stats(EditStore& store) {
  const server::StoreStats s = store.stats();
  std::cout << "{\"store\":" << quoted(store.describe()) << ",\"chunks\":" << s.chunks << ",\"changes\":" << s.changes
            << ",\"change_bytes\":" << s.change_bytes << ",\"disk_bytes\":" << s.disk_bytes
            << ",\"requests\":" << s.requests << ",\"last_seq\":" << store.last_seq()
            << ",\"world_fingerprint\":" << quoted(store.meta(server::kWorldFingerprintKey).value_or("")) << "}\n";
  return kExitOk;
}

// An online copy of a SQLite store's file (sqlite_backup.h); a PostgreSQL store has its own tools.
int backup_store(const StoreLocation& where, const std::string& out, bool force) {
  const std::string location = where.location();
  if (location.rfind("sqlite:", 0) != 0) {
    std::cerr << "edits backup: a PostgreSQL store is backed up with PostgreSQL's own tools while it serves:\n"
                 "  pg_dump -Fc -f edits.dump URI, and pg_restore -d NEW_DATABASE edits.dump (docs/deploy.md)\n";
    return kExitBadInput;
  }
  const SqliteBackup result = backup_sqlite(location.substr(7), out, force);
  if (!result.error.empty()) {
    std::cerr << "edits backup: " << result.error << '\n';
    return result.output_exists ? kExitBadInput : kExitFailure;
  }
  std::cerr << "edits backup: " << result.pages << " pages (" << result.bytes << " bytes) to " << out << " in "
            << result.seconds << " s"
            << (result.restarts ? ", begun again " + std::to_string(result.restarts) + " times as servers committed"
                                : "")
            << '\n';
  return kExitOk;
}

class EditsCommand final : public Command {
 public:
  CLI::App& declare(CLI::App& parent) override;
  int run() override;

 private:
  void declare_backup(CLI::App& app);
  CLI::App* export_ = nullptr;
  CLI::App* import_ = nullptr;
  CLI::App* reset_ = nullptr;
  CLI::App* backup_ = nullptr;
  StoreLocation where_;
  std::string backup_out_;
  bool force_ = false;
  std::optional<std::string> out_;
  std::string in_;
  WorldOptions world_;
  CLI::App *log_ = nullptr, *rollback_ = nullptr;
  ModerationOptions moderation_;
  int64_t corners_[4] = {};
};

CLI::App& EditsCommand::declare(CLI::App& parent) {
  CLI::App& app =
      *parent.add_subcommand("edits", "export, import, reset, count, audit or roll back a server's stored edits");
  set_help(app,
           "usage: chunkforge edits export (--data DIR | --store URI) [--out FILE] [--world FILE]\n"
           "       chunkforge edits import FILE (--data DIR | --store URI) [--world FILE]\n"
           "       chunkforge edits reset CX0 CZ0 CX1 CZ1 (--data DIR | --store URI)\n"
           "       chunkforge edits stats (--data DIR | --store URI)\n"
           "       chunkforge edits backup (--data DIR | --store sqlite:PATH) --out FILE [--force]\n"
           "       chunkforge edits log (--data DIR | --store URI) [filters]\n"
           "       chunkforge edits rollback (--data DIR | --store URI) --area CX0 CZ0 CX1 CZ1 [filters]\n",
           "Works on the edit store itself, while servers run on it or not. export writes one\n"
           "consistent snapshot as JSON lines (a header, then every stored change in commit order):\n"
           "a backup. import restores one into a store without those chunks' edits, all or\n"
           "nothing. reset returns every edited chunk of the rectangle to the generated world.\n"
           "stats prints counts and the store's size as one JSON line. backup copies a SQLite\n"
           "store's file while servers serve from it. log prints who changed what; rollback undoes\n"
           "one player's (or everyone's) changes in an area and a time window.\n");
  app.require_subcommand(1);
  export_ = app.add_subcommand("export", "write every stored change as JSON lines");
  set_help(*export_, "usage: chunkforge edits export (--data DIR | --store URI) [--out FILE] [--world FILE]\n",
           "Writes one consistent snapshot of the store, a header and then every stored change in\n"
           "commit order, as JSON lines: a backup that servers running on the store do not notice.\n"
           "Ids are hex and states hex, as `chunkforge chunk` prints them, and layers are named by\n"
           "the store's world, which --world (and --seed) must give (default: the built-in world).\n");
  export_->add_option("--out", out_, "the file to write (default, or -: standard output)");
  import_ = app.add_subcommand("import", "restore an export into the store");
  set_help(*import_, "usage: chunkforge edits import FILE (--data DIR | --store URI) [--world FILE]\n",
           "Restores an export into a store that holds none of its chunks' edits, all or nothing.\n"
           "Its layer names are read in the export's world, which --world (and --seed) must give;\n"
           "an export of format 1 (decimal ids, layer numbers) needs no world.\n");
  import_->add_option("FILE", in_, "an export")->required();
  reset_ = app.add_subcommand("reset", "return the edited chunks of a rectangle to the generated world");
  set_help(*reset_, "usage: chunkforge edits reset CX0 CZ0 CX1 CZ1 (--data DIR | --store URI)\n",
           "Returns every edited chunk of the rectangle to the generated world; running servers\n"
           "send the change to their players.\n");
  add_corner_arguments(*reset_, corners_);
  CLI::App* stats = app.add_subcommand("stats", "count the stored edits");
  set_help(*stats, "usage: chunkforge edits stats (--data DIR | --store URI)\n",
           "Prints the store's counts and size as one JSON line.\n");
  declare_backup(app);
  log_ = declare_log(app, moderation_);
  rollback_ = declare_rollback(app, moderation_);
  for (CLI::App* sub : {export_, import_, reset_, stats, backup_, log_, rollback_}) add_store_options(*sub, where_);
  for (CLI::App* sub : {export_, import_, log_, rollback_}) add_world_options(*sub, world_);
  return app;
}

void EditsCommand::declare_backup(CLI::App& app) {
  backup_ = app.add_subcommand("backup", "copy a SQLite store's file while servers serve from it");
  set_help(*backup_, "usage: chunkforge edits backup (--data DIR | --store sqlite:PATH) --out FILE [--force]\n",
           "Copies the SQLite store through SQLite's backup API, a few pages at a time, while\n"
           "servers serve from it and commit: one consistent snapshot, on disk before it says ok.\n"
           "Restore: stop the server and put the copy in place as its edits.db. An existing FILE\n"
           "is refused unless --force. A PostgreSQL store: pg_dump and pg_restore (exit 2).\n");
  backup_->add_option("--out", backup_out_, "the copy to write")->required();
  backup_->add_flag("--force", force_, "replace FILE if it exists");
}

int EditsCommand::run() {
  // Before the store is opened: opening migrates its schema, and a backup changes nothing.
  if (backup_->parsed()) return backup_store(where_, backup_out_, force_);
  std::unique_ptr<EditStore> store;
  try {
    store = server::open_store(where_.location());
    if (export_->parsed()) {
      const std::optional<World> world = load_world(world_);
      return world ? export_edits(*store, *world, out_) : kExitBadInput;
    }
    if (import_->parsed()) return import_edits(*store, in_, world_);
    if (log_->parsed() || rollback_->parsed()) {
      const std::optional<World> world = load_world(world_);
      if (!world) return kExitBadInput;
      return log_->parsed() ? log_edits(*store, *world, moderation_) : rollback_edits(*store, *world, moderation_);
    }
    if (reset_->parsed()) return reset_edits(*store, corners_);
    return print_stats(*store);
  } catch (const server::StoreError& e) {
    std::cerr << "edits: " << e.what() << '\n';
    return kExitFailure;
  }
}

}  // namespace

std::unique_ptr<Command> make_edits_command() { return std::make_unique<EditsCommand>(); }

}  // namespace chunkforge::tool
