// make_local_chunk (local_chunk.h): a chunk made on the client, an edited one checked.
#include "local_chunk.h"

#include "chunk_change.h"
#include "chunkforge/chunk_edits.h"
#include "chunkforge/chunk_hash.h"
#include "chunkforge/v1/chunk.pb.h"

namespace chunkforge::client {

void describe_generator(const BaseGenerator& generator, v1::LocalGeneration& ask) {
  for (uint32_t version : generator.generator_versions()) ask.add_generator_versions(version);
  ask.set_fingerprint(generator.fingerprint());
  for (const std::string& epoch : generator.older_epochs()) ask.mutable_older_epochs()->append(epoch);
}

LocalChunk make_local_chunk(BaseGenerator& generator, ChunkCoord coord, const ChunkOptions& options,
                            const v1::ChunkChange* edited, const std::atomic<bool>* abandon) {
  LocalChunk done;
  std::shared_ptr<const v1::Chunk> base = generator.generate(coord, options, abandon);
  if (!base) return done;
  auto chunk = std::make_shared<v1::Chunk>(*base);
  if (edited == nullptr) {
    done.chunk = std::move(chunk);
    return done;
  }
  v1::ChunkChange change = *edited;
  change.set_reset(false);  // the base is the start already
  done.edited = true;
  done.version = change.version();
  const auto layers = layer_filter(options);
  apply_change(*chunk, change, layers);
  const bool known = understood(change);
  if (change.chunk_hash() == 0) {
    done.mismatch = !known;  // nothing to check against: an edit unknown here is never half applied
  } else {
    uint64_t hash = 0;
    if (layers.empty()) {
      hash = served_hash(*chunk);
    } else {
      std::shared_ptr<const v1::Chunk> whole = generator.generate(coord, {}, abandon);
      if (!whole) return done;
      v1::Chunk full = *whole;
      apply_change(full, change, {});
      hash = chunk_hash(full);
    }
    done.verified = hash == change.chunk_hash();
    done.mismatch = !done.verified;
  }
  if (!done.mismatch) done.chunk = std::move(chunk);
  return done;
}

}  // namespace chunkforge::client
