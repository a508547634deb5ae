// File: server/generation/chunk_source.h
//
// Where every chunk and LOD tile the server sends comes from (docs/architecture.md, "A chunk's
// path"): one class owns the cache keys, the cache's single flight, the generation queue and the
// making of the bytes (ChunkMaker: which generator; an edited chunk is its generated base with
// its stored changes applied). The RPCs validate a request, ask for a job's bytes and get them:
// at once on a hit, later through on_ready otherwise. They never touch the cache or the queue.
//
//   ChunkJob job = source.job(coord, canonical_options);
//   ChunkSource::Fetched f = source.fetch(job, Work::view, ring, cancelled, on_ready, client);
//   if (f.refused) answer RESOURCE_EXHAUSTED; else if (f.hit) send it; else on_ready sends it.
//
// Work that is not a chunk but runs on the generation threads (Locate's planning, reading edit
// logs) goes through offer() and submit(), so that one queue orders everything.
//
// Thread safety: every method from any thread; base_chunk() and make_here() block while they
// generate, so they belong on the generation threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "chunkforge/coord.h"
#include "chunkforge/lod.h"
#include "chunkforge/v1/service.pb.h"
#include "chunkforge/world.h"
#include "generation/bytes.h"
#include "generation/chunk_maker.h"
#include "generation/routed_jobs.h"
#include "log/client_log.h"

namespace chunkforge::server {

class ChunkCache;
class EditService;
class GenerationQueue;

// A chunk as a request asks for it: the cache key and how to make the bytes.
struct ChunkJob {
  ChunkCoord coord;
  v1::ChunkOptions options;  // canonical: sorted unique layers, the step only with terrain
  uint64_t version = 0;      // the chunk's edit version: 0 is the generated chunk
  std::string key;
};

class ChunkSource {
 public:
  // Told of what was made (the server's metrics).
  struct Observers {
    ChunkMaker::Observer chunk_made;
    std::function<void()> tile_made;
  };
  // `edits` may be null (no store: every chunk is generated). `view_rings`: the largest view
  // radius, so that a prefetch and a tile come after every view's rings.
  // `epochs`: the world's epochs when it changed after launch (ChunkMaker), else null.
  ChunkSource(const World& world, ChunkCache& cache, GenerationQueue& queue, EditService* edits, uint32_t view_rings,
              Observers observers = {}, std::shared_ptr<const Epochs> epochs = nullptr);
  ~ChunkSource();
  ChunkSource(const ChunkSource&) = delete;
  ChunkSource& operator=(const ChunkSource&) = delete;

  // The job of `coord` with `options` (already canonical) at the chunk's current edit version.
  ChunkJob job(ChunkCoord coord, v1::ChunkOptions options) const;

  // What fetch() did: the bytes of a hit, or refused (the queue is full: nothing was queued,
  // on_ready is never called, the caller answers RESOURCE_EXHAUSTED), or neither (on_ready gets
  // the bytes later, or null if the making was dropped).
  struct Fetched {
    Bytes hit;
    bool refused = false;
  };
  // The job's bytes now on a cache hit; otherwise on_ready gets them later, by joining a making
  // under way or queueing one of `kind` (Work::view or Work::prefetch) on the worker that owns
  // the chunk's region. Its priority: `ring`, the chunk's ring in its requester's view (0 for
  // GetChunk); a prefetch's after every view's rings. A request more urgent than a queued
  // making it joins queues one more at its own priority; whichever runs first makes the chunk.
  // A making nobody waits for any more leaves the queue. `client` takes its turn among the
  // clients at the same priority.
  Fetched fetch(const ChunkJob& job, Work kind, int64_t ring, std::function<bool()> cancelled,
                std::function<void(Bytes)> on_ready, uint64_t client);
  // A LOD tile's canonical bytes (docs/lod.md, "Sessions"), as fetch() does for a chunk: cached
  // beside the chunks, made on any worker after every view's chunks, finer levels first, as
  // work of the prefetch kind. `key` must be valid (lod_view's tiles are).
  Fetched fetch_tile(const LodKey& key, std::function<bool()> cancelled, std::function<void(Bytes)> on_ready,
                     uint64_t client);
  // Whether the tile is the library's lod_tile as it stands, so that a client that generates
  // can make it (docs/lod.md, "Clients that generate"): it lists no structures (a level past
  // kLodStructureMaxLevel), or none of its chunks was ever edited. Edits change a tile only by
  // removing structures, and a removal edits every chunk the structure touches, so one of the
  // tile's own chunks among them. From the version index: no generation, no store.
  bool tile_pristine(const LodKey& key) const;

  // Whether a client that generates with the (newest) world makes the chunk's generated base
  // alone: not for land of an older epoch, nor new land within a seam's reach of it
  // (docs/world-definition.md, "Epochs"), which it is sent whole. A client that holds every
  // epoch (`holds_epochs`: LocalGeneration.older_epochs accepted) makes every chunk.
  bool client_generates(ChunkCoord coord, bool holds_epochs) const {
    return holds_epochs || maker_.newest_generates(coord);
  }
  // The world's epochs (null: it never changed).
  const std::shared_ptr<const Epochs>& epochs() const { return maker_.epochs(); }

  // The job's bytes from the cache, or made on this thread and cached (when no one else is
  // making them: this one never waits for another's).
  Bytes make_here(const ChunkJob& job);
  // The generated chunk of `coord` with every layer and no terrain (what edits are checked
  // against), as make_here.
  v1::Chunk base_chunk(ChunkCoord coord);

  // Other work on the generation threads, on any worker: bounded (false when the queue is full
  // for its kind: nothing was queued) or, for submit, never refused.
  bool offer(QueuedJob job);
  void submit(double priority, std::function<void()> job);
  size_t threads() const;

 private:
  // How a missing cache entry is made: on the queue, as `kind` at `priority`, by the worker
  // owning `region` (nullopt: any worker), with `make`; a failure logged as `failure`, naming
  // `what` ("chunk 3,-4").
  struct Making {
    Work kind;
    double priority;
    std::optional<uint64_t> region;
    std::function<Bytes()> make;
    uint64_t client;
    LogKind failure;
    std::string what;
  };
  Fetched join_or_queue(const std::string& key, Making making, std::function<bool()> cancelled,
                        std::function<void(Bytes)> on_ready);
  // A queued making as it runs: nothing if nobody waits any more or a more urgent one made it;
  // else the bytes stored, or the entry abandoned when making failed.
  void run_making(const std::string& key, const Making& making);
  // The bytes of a job: generated, or an edited chunk's generated base with its changes.
  Bytes make(const ChunkJob& job);
  // chunk_source_tiles.cc: a tile's cache key (with the structure epoch below up to the
  // structures' level), its making, and the epoch's listener.
  std::string tile_cache_key(const LodKey& key) const;
  Bytes make_tile(const LodKey& key);
  void drop_removed_structures(v1::LodTile& tile);
  void listen_for_structure_changes();

  const World& world_;
  ChunkCache& cache_;
  GenerationQueue& queue_;
  EditService* edits_;
  const uint32_t view_rings_;
  const Observers observers_;
  const ChunkMaker maker_;
  // Committed changes that touched structures so far (changes_structures), counted on the edit
  // service's tail thread before any session hears of them: tiles that show structures are
  // cached under it, so a change makes them anew. Shared: the listener outlives nothing.
  std::shared_ptr<std::atomic<uint64_t>> structure_epoch_ = std::make_shared<std::atomic<uint64_t>>(0);
};

}  // namespace chunkforge::server
