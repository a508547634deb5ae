// TilePool's order: first in, first out until the viewer's focus is known, then nearest to it
// first (ties first in, first out); jobs without a place count as at the focus.
#include "tile_pool.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <string>
#include <vector>

namespace chunkforge::map {
namespace {

// One worker held by a first job until release(), so that the rest queue up and their order
// is the pool's choice alone.
class HeldPool {
 public:
  HeldPool() : pool_(1, 64) {
    pool_.submit([this] { release_.get_future().wait(); });
  }
  void add(const std::string& name, std::optional<TilePlace> place) {
    pool_.submit(
        [this, name] {
          std::lock_guard lock(mutex_);
          order_.push_back(name);
        },
        place);
  }
  std::vector<std::string> run() {
    release_.set_value();
    std::promise<void> done;
    pool_.submit([&done] { done.set_value(); }, TilePlace{1e300, 1e300});  // the farthest: last
    done.get_future().wait();
    std::lock_guard lock(mutex_);
    return order_;
  }
  TilePool& pool() { return pool_; }

 private:
  std::promise<void> release_;
  std::mutex mutex_;
  std::vector<std::string> order_;
  TilePool pool_;  // last: its worker stops before the rest goes
};

TEST(TilePoolTest, FirstInFirstOutWithoutAFocus) {
  HeldPool held;
  held.add("a", TilePlace{900, 0});
  held.add("b", TilePlace{0, 0});
  held.add("c", TilePlace{-50, 10});
  EXPECT_EQ(held.run(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(TilePoolTest, NearestToTheFocusFirst) {
  HeldPool held;
  held.add("far", TilePlace{5000, 0});
  held.add("near", TilePlace{1010, 990});
  held.add("middle", TilePlace{1000, 1600});
  held.add("near too", TilePlace{990, 1010});  // as near as "near": after it
  held.add("search", std::nullopt);
  held.pool().set_focus(TilePlace{1000, 1000});
  EXPECT_EQ(held.run(), (std::vector<std::string>{"search", "near", "near too", "middle", "far"}));
}

}  // namespace
}  // namespace chunkforge::map
