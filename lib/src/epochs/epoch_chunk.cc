// A chunk of a world with epochs (chunkforge/epochs.h): its epoch's generator's chunk, then,
// where older land lies within reach, the seam's rules: structures kept or not built, objects
// kept off older objects and kept structures, heights lifted onto the blended land. The work's
// memos live in an EpochStream (Epochs::generate makes a fresh one per chunk).
//
// "State e" is the world as it stood while epoch e was the newest: chunks of epochs below e are
// its older land, everything else is epoch e's. A chunk of epoch e is what state e makes of
// it, and state e looks only at older land, whose chunks never change epoch again.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "chunkforge/epochs.h"
#include "chunkforge/structures.h"

namespace chunkforge {
namespace {

// A structure and the epoch whose planner placed it (its type and padding are that epoch's).
struct Placed {
  StructureInstance s;
  uint32_t epoch = 0;
};

bool canonical_order(const Placed& a, const Placed& b) {
  return std::tie(a.s.z, a.s.x, a.s.id) < std::tie(b.s.z, b.s.x, b.s.id);
}

// The chunks a footprint [x, x + size) touches along one axis.
std::pair<int64_t, int64_t> chunk_span(int64_t origin, double size, double grow, int64_t chunk_size) {
  const auto lo = static_cast<int64_t>(std::floor(static_cast<double>(origin) - grow));
  const auto hi = static_cast<int64_t>(std::ceil(static_cast<double>(origin) + size + grow)) - 1;
  return {floor_div(lo, chunk_size), floor_div(hi, chunk_size)};
}

}  // namespace

class EpochStream::Work {
 public:
  explicit Work(const Epochs& epochs) : epochs_(epochs), size_(epochs.world(0).chunk_size()) {
    for (uint32_t e = 0; e <= epochs_.newest(); ++e) {
      max_padding_ = std::max(max_padding_, epochs_.world(e).structures().max_padding());
    }
  }

  void watch_abandon(const std::atomic<bool>* abandon) {
    abandon_ = abandon;
    for (auto& p : planners_) {
      if (p) p->watch_abandon(abandon);
    }
  }
  // Whether the memos outgrew their bounds (the stream then starts afresh).
  bool full() const {
    size_t cells = 0;
    for (const auto& p : planners_) cells += p ? p->cells_planned() : 0;
    return chunks_.size() > kMaxChunks || structures_.size() > kMaxStructureLists || cells > kMaxCells;
  }

  // Chunk c as state e makes it.
  ChunkData chunk(uint32_t e, ChunkCoord c) {
    ChunkData data = stream(e).generate(c, abandon_);
    const Epochs::Reach& reach = epochs_.reaches();
    if (!older_within(e, c, reach.all)) return data;
    if (older_within(e, c, reach.structures)) {
      data.structures.clear();
      for (const Placed& p : structures(e, c)) data.structures.push_back(p.s);
      std::erase_if(data.objects, [&](const ResourceObject& o) { return on_kept(e, c, o); });
    }
    if (older_within(e, c, reach.objects)) {
      std::erase_if(data.objects, [&](const ResourceObject& o) { return near_older(e, c, o); });
    }
    if (older_within(e, c, reach.band)) lift_objects(e, c, data.objects);
    return data;
  }

 private:
  static constexpr size_t kMaxChunks = 256, kMaxStructureLists = 16384, kMaxCells = 65536;

  ChunkStream& stream(uint32_t e) {
    if (streams_.size() <= e) streams_.resize(e + 1);
    if (!streams_[e]) streams_[e] = std::make_unique<ChunkStream>(epochs_.world(e));
    return *streams_[e];
  }

  bool older_within(uint32_t e, ChunkCoord c, int64_t chunks) const {
    return e > 0 && epochs_.seen().any_before({c.x - chunks, c.z - chunks}, {c.x + chunks, c.z + chunks}, e);
  }

  StructurePlanner& planner(uint32_t e) {
    if (planners_.size() <= e) planners_.resize(e + 1);
    if (!planners_[e]) {
      planners_[e] = std::make_unique<StructurePlanner>(epochs_.world(e));
      planners_[e]->watch_abandon(abandon_);
    }
    return *planners_[e];
  }

  double padding(const Placed& p) const { return epochs_.world(p.epoch).structures().all()[p.s.type].padding; }

  // Whether s's footprint touches a chunk of an epoch below e.
  bool touches_older(uint32_t e, const StructureInstance& s) const {
    const auto [x0, x1] = chunk_span(s.x, s.size_x, 0, size_);
    const auto [z0, z1] = chunk_span(s.z, s.size_z, 0, size_);
    return epochs_.seen().any_before({x0, z0}, {x1, z1}, e);
  }

  // The structures touching c in state e, by origin (z, x), then id.
  const std::vector<Placed>& structures(uint32_t e, ChunkCoord c) {
    const auto key = std::make_tuple(e, c.x, c.z);
    if (const auto it = structures_.find(key); it != structures_.end()) return it->second;
    std::vector<Placed> out;
    if (!older_within(e, c, epochs_.reaches().structures)) {
      for (const StructureInstance& s : planner(e).in_chunk(c)) out.push_back({s, e});
    } else {
      // An older state's structure touching older land stays; this epoch's is built only where
      // it touches no older land and no structure that stays.
      for (const Placed& p : structures(e - 1, c)) {
        if (touches_older(e, p.s)) out.push_back(p);
      }
      for (const StructureInstance& s : planner(e).in_chunk(c)) {
        Placed fresh{s, e};
        if (touches_older(e, s) || overlaps_kept(e, fresh)) continue;
        lift(e, fresh.s);
        out.push_back(fresh);
      }
      std::sort(out.begin(), out.end(), canonical_order);
    }
    return structures_.emplace(key, std::move(out)).first->second;
  }

  // Whether `fresh` (its footprints grown by both paddings) overlaps an older state's
  // structure that stays in state e.
  bool overlaps_kept(uint32_t e, const Placed& fresh) {
    const double grow = padding(fresh) + max_padding_;
    const auto [x0, x1] = chunk_span(fresh.s.x, fresh.s.size_x, grow, size_);
    const auto [z0, z1] = chunk_span(fresh.s.z, fresh.s.size_z, grow, size_);
    for (int64_t cz = z0; cz <= z1; ++cz) {
      for (int64_t cx = x0; cx <= x1; ++cx) {
        for (const Placed& p : structures(e - 1, {cx, cz})) {
          if (touches_older(e, p.s) && overlap(fresh, p)) return true;
        }
      }
    }
    return false;
  }

  bool overlap(const Placed& a, const Placed& b) const {
    // As the planner's: both footprints grown by their own padding.
    const double pa = padding(a), pb = padding(b);
    const auto bx = static_cast<double>(b.s.x - a.s.x), bz = static_cast<double>(b.s.z - a.s.z);
    return bx - pb < a.s.size_x + pa && -pa < bx + b.s.size_x + pb && bz - pb < a.s.size_z + pa &&
           -pa < bz + b.s.size_z + pb;
  }

  // Whether object o of chunk c stands within its footprint of a kept structure around c.
  bool on_kept(uint32_t e, ChunkCoord c, const ResourceObject& o) {
    const double margin = epochs_.world(e).resources().layer(o.layer).footprint;
    const double wx = static_cast<double>(c.x * size_) + o.x, wz = static_cast<double>(c.z * size_) + o.z;
    for (int64_t dz = -1; dz <= 1; ++dz) {
      for (int64_t dx = -1; dx <= 1; ++dx) {
        for (const Placed& p : structures(e, {c.x + dx, c.z + dz})) {
          if (p.epoch == e) continue;
          const double px = wx - static_cast<double>(p.s.x), pz = wz - static_cast<double>(p.s.z);
          if (px > -margin && px < p.s.size_x + margin && pz > -margin && pz < p.s.size_z + margin) return true;
        }
      }
    }
    return false;
  }

  // Whether object o of chunk c lies too near an object of an older chunk: within either's
  // spacing (same layer, blue noise) or their footprints' sum.
  bool near_older(uint32_t e, ChunkCoord c, const ResourceObject& o) {
    const ResourceLayer& own = epochs_.world(e).resources().layer(o.layer);
    const int64_t reach = epochs_.reaches().objects;
    for (int64_t cz = c.z - reach; cz <= c.z + reach; ++cz) {
      for (int64_t cx = c.x - reach; cx <= c.x + reach; ++cx) {
        const std::optional<uint32_t> epoch = epochs_.seen().epoch_of({cx, cz});
        if (!epoch || *epoch >= e) continue;
        const double ox = static_cast<double>((cx - c.x) * size_), oz = static_cast<double>((cz - c.z) * size_);
        for (const ResourceObject& b : older_chunk(*epoch, {cx, cz}).objects) {
          const ResourceLayer& theirs = epochs_.world(*epoch).resources().layer(b.layer);
          double limit = own.footprint + theirs.footprint;
          if (b.layer == o.layer && own.method == ScatterMethod::kBlueNoise && o.density > 0 && b.density > 0) {
            limit = std::max({limit, own.spacing / o.density, theirs.spacing / b.density});
          }
          const double dx = ox + b.x - o.x, dz = oz + b.z - o.z;
          if (dx * dx + dz * dz < limit * limit) return true;
        }
      }
    }
    return false;
  }

  const ChunkData& older_chunk(uint32_t epoch, ChunkCoord c) {
    const auto key = std::make_tuple(epoch, c.x, c.z);
    if (const auto it = chunks_.find(key); it != chunks_.end()) return it->second;
    ChunkData data = chunk(epoch, c);
    return chunks_.emplace(key, std::move(data)).first->second;
  }

  // Heights onto epoch e's land as shown: an object's y is the blended elevation where it
  // stands; a structure moves by the blend at its origin.
  void lift_objects(uint32_t e, ChunkCoord c, std::vector<ResourceObject>& objects) const {
    const ElevationBlend& blend = *epochs_.blend(e);
    for (ResourceObject& o : objects) {
      o.y = blend.at(Coord::from_parts(c.x * size_, o.x), Coord::from_parts(c.z * size_, o.z), o.y);
    }
  }
  void lift(uint32_t e, StructureInstance& s) const {
    const Coord x{s.x, 0.0}, z{s.z, 0.0};
    const double own = epochs_.world(e).terrain().elevation(x, z);
    const double shown = epochs_.blend(e)->at(x, z, own);
    if (shown != own) s.y += shown - own;
  }

  const Epochs& epochs_;
  int64_t size_;
  double max_padding_ = 0;  // over every epoch's structure types
  const std::atomic<bool>* abandon_ = nullptr;
  std::vector<std::unique_ptr<ChunkStream>> streams_;
  std::vector<std::unique_ptr<StructurePlanner>> planners_;
  std::map<std::tuple<uint32_t, int64_t, int64_t>, std::vector<Placed>> structures_;
  std::map<std::tuple<uint32_t, int64_t, int64_t>, ChunkData> chunks_;
};

EpochStream::EpochStream(std::shared_ptr<const Epochs> epochs) : epochs_(std::move(epochs)) {}
EpochStream::~EpochStream() = default;

EpochChunk EpochStream::generate(ChunkCoord c, const std::atomic<bool>* abandon) {
  if (!work_ || work_->full()) work_ = std::make_unique<Work>(*epochs_);
  work_->watch_abandon(abandon);
  const uint32_t e = epochs_->epoch_of(c);
  try {
    return EpochChunk{e, work_->chunk(e, c)};
  } catch (const GenerationAbandoned&) {
    work_.reset();  // cut off mid-decision: the memos may hold half-built entries
    throw;
  }
}

EpochChunk Epochs::generate(ChunkCoord c, const std::atomic<bool>* abandon) const {
  // A stream that does not own the epochs: this object outlives the call.
  EpochStream stream(std::shared_ptr<const Epochs>(std::shared_ptr<const Epochs>(), this));
  return stream.generate(c, abandon);
}

}  // namespace chunkforge
