// `chunkforge lod` run as a real process: the PNG it writes is read back pixel by pixel and
// checked against the LOD tiles it draws (land where the lattice says land, water where it says
// water, many colours), and a bad value is refused naming the option.
#include <gtest/gtest.h>
#include <png.h>

#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "chunkforge/lod.h"
#include "chunkforge/world.h"
#include "chunkforge/world_extent.h"

namespace chunkforge {
namespace {

std::string temp_file(const std::string& name) {
  const std::string dir = testing::TempDir() + "lod_cli_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct LodRun {
  int exit_code;
  std::string out, err;
};

LodRun run_lod(const std::string& args) {
  const std::string out = temp_file("stdout"), err = temp_file("stderr");
  const int status = std::system((std::string(CHUNKFORGE_CLI) + " lod " + args + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

struct Pixels {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  const uint8_t* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
};

Pixels read_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  Pixels p;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return p;
  image.format = PNG_FORMAT_RGB;
  p.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, p.rgb.data(), 0, nullptr)) return {};
  p.width = static_cast<int>(image.width);
  p.height = static_cast<int>(image.height);
  return p;
}

// The material of the lattice sample a pixel of the view shows: the tile of the view holding
// the pixel's centre, its sample at or below that point.
class ViewSamples {
 public:
  ViewSamples(double x, double z, int64_t radius, int size) : world_(default_world()) {
    const int64_t cs = world_.chunk_size();
    keys_ = lod_view(cs, x, z, radius);
    x0_ = static_cast<double>((chunk_coordinate(x, 64) - radius) * cs);
    z0_ = static_cast<double>((chunk_coordinate(z, 64) - radius) * cs);
    upp_ = static_cast<double>((2 * radius + 1) * cs) / size;
  }
  uint32_t material(int px, int py) {
    const double wx = x0_ + (px + 0.5) * upp_, wz = z0_ + (py + 0.5) * upp_;
    for (const LodKey& k : keys_) {
      const double span = static_cast<double>(k.chunks() * world_.chunk_size());
      const double tx = wx - static_cast<double>(k.x) * span, tz = wz - static_cast<double>(k.z) * span;
      if (tx < 0 || tx >= span || tz < 0 || tz >= span) continue;
      auto it = tiles_.find(k);
      if (it == tiles_.end()) it = tiles_.emplace(k, lod_tile(world_, k)).first;
      const v1::TerrainGrid& t = it->second.terrain();
      const int i = static_cast<int>(tx / t.step()), j = static_cast<int>(tz / t.step());
      return t.material(j * static_cast<int>(t.size()) + i);
    }
    ADD_FAILURE() << "no tile holds pixel (" << px << ", " << py << ")";
    return 0;
  }

 private:
  const World& world_;
  std::vector<LodKey> keys_;
  std::map<LodKey, v1::LodTile> tiles_;
  double x0_, z0_, upp_;
};

TEST(CliLodTest, DrawsTheTerrainOfTheViewsTiles) {
  const std::string png = temp_file("view.png");
  const LodRun r = run_lod("--x 5000 --z -7000 --radius 96 --size 512 --out " + png);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("tiles"), std::string::npos) << r.out;
  const Pixels pixels = read_png(png);
  ASSERT_EQ(pixels.width, 512);
  ASSERT_EQ(pixels.height, 512);
  std::set<uint32_t> colours;
  for (size_t k = 0; k < pixels.rgb.size(); k += 3) {
    colours.insert(uint32_t{pixels.rgb[k]} << 16 | uint32_t{pixels.rgb[k + 1]} << 8 | pixels.rgb[k + 2]);
  }
  EXPECT_GE(colours.size(), 100u) << "not terrain: too few distinct colours";
  // Water's colour is blue (blue well above red); no land material of the default world is.
  const uint32_t water = 0;  // materials[0] of docs/worlds/default.json
  ASSERT_EQ(default_world().definition().materials(0).name(), "water");
  // Structure outlines are drawn over the terrain in their types' colours: those pixels are not
  // the terrain's.
  std::set<uint32_t> structure_colours;
  for (const v1::Structure& s : default_world().definition().structures()) {
    structure_colours.insert(static_cast<uint32_t>(std::stoul(s.color().substr(1), nullptr, 16)));
  }
  ViewSamples view(5000, -7000, 96, 512);
  int agree = 0, checked = 0, water_pixels = 0, structure_pixels = 0;
  for (int py = 2; py < 512; py += 4) {
    for (int px = 2; px < 512; px += 4) {
      const uint8_t* c = pixels.at(px, py);
      if (structure_colours.count(uint32_t{c[0]} << 16 | uint32_t{c[1]} << 8 | c[2]) != 0) {
        ++structure_pixels;
        continue;
      }
      const bool drawn_as_water = c[2] > c[0] + 50;
      const bool is_water = view.material(px, py) == water;
      agree += drawn_as_water == is_water;
      water_pixels += is_water;
      ++checked;
    }
  }
  EXPECT_EQ(agree, checked);
  EXPECT_GT(structure_pixels, 0) << "no structure drawn";
  EXPECT_LT(structure_pixels, checked / 10) << "structures hide the terrain";
  EXPECT_GT(water_pixels, checked / 50) << "the view holds too little water to tell";
  EXPECT_LT(water_pixels, checked * 98 / 100) << "the view holds too little land to tell";
}

TEST(CliLodTest, RefusesABadRadiusNamingIt) {
  const LodRun r = run_lod("--radius 0 --out " + temp_file("never.png"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--radius"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(temp_file("never.png")));
}

}  // namespace
}  // namespace chunkforge
