// The join of collision grid files (collision_file_join_p.h): parts written for some tiles each
// of one source join into the file written for all of them at once, byte for byte — in any
// part order, with parts that have heights beside parts that have none, with tiles of a part
// that have no set cell — and parts that do not belong together, or a damaged part, are named.

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "../support/memory_layer_source.h"
#include "../support/scratch_dir.h"
#include "collision_file_join_p.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/export/collision_file_writer.h"

namespace terrabit::test {
namespace {

using namespace core;
namespace fs = std::filesystem;

constexpr int kZoom = 17;
constexpr std::uint32_t kTx0 = 68000, kTy0 = 47800;

std::vector<std::uint8_t> readBytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class CollisionFileMergeTest : public ::testing::Test {
protected:
    /// A 4 × 3 block of tiles less two, random building and water cells, heights on the tiles of
    /// the east half only; one tile (1, 1) with no set cell at all.
    CollisionFileMergeTest() {
        std::mt19937_64 rng(5);
        for (std::uint32_t y = 0; y < 3; ++y) {
            for (std::uint32_t x = 0; x < 4; ++x) {
                if ((x == 0 && y == 2) || (x == 3 && y == 0)) continue;
                const TileId t{kZoom, kTx0 + x, kTy0 + y};
                mTiles.push_back(t);
                if (x == 1 && y == 1) continue;
                mSource.randomize(t, 0, 0.1, rng);
                if (x != 2) mSource.randomize(t, 1, 0.05, rng);  // column 2: no water, a mask bit clear
                if (x < 2) continue;
                terrain::HeightTile& h = mSource.heightsAt(t);
                std::uniform_real_distribution<float> height(10.f, 12.f);
                for (float& v : h.heights) v = height(rng);
            }
        }
    }

    /// The collision file of `tiles` (each tile's bits and heights from the one source).
    fs::path write(const std::string& name, const std::vector<TileId>& tiles) const {
        const std::array<std::string, 2> names{"building", "water"};
        const CollisionGrid grid = CollisionGrid::build(mSource, tiles, names).value();
        const std::vector<std::uint8_t> bytes = encodeCollisionFile(grid, tiles).value();
        const fs::path file = mDir / name;
        std::ofstream(file, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        return file;
    }

    /// The tiles of the block's columns [from, to).
    std::vector<TileId> columns(std::uint32_t from, std::uint32_t to) const {
        std::vector<TileId> out;
        for (const TileId& t : mTiles) {
            if (t.x >= kTx0 + from && t.x < kTx0 + to) out.push_back(t);
        }
        return out;
    }

    MemoryLayerSource mSource{{"building", "water"}};
    std::vector<TileId> mTiles;
    const ScratchDir mScratch;
    const fs::path mDir = mScratch.path();
};

TEST_F(CollisionFileMergeTest, PartsJoinIntoTheFileOfAllTheirTiles) {
    const fs::path whole = write("whole.tbcg", mTiles);
    // West (no heights: version 1), east (heights: version 2), and a part of one tile.
    const std::vector<fs::path> parts{write("east.tbcg", columns(2, 4)), write("west.tbcg", columns(0, 1)),
                                      write("middle.tbcg", columns(1, 2))};
    ASSERT_EQ(readBytes(parts[1])[8], kCollisionFileVersionFlat);
    ASSERT_EQ(readBytes(parts[0])[8], kCollisionFileVersion);
    auto joined = scale::joinCollisionFiles(parts, mDir / "joined.tbcg");
    ASSERT_TRUE(joined) << joined.message();
    EXPECT_EQ(joined->tiles, mTiles.size());
    EXPECT_EQ(joined->bytes, fs::file_size(whole));
    EXPECT_EQ(readBytes(mDir / "joined.tbcg"), readBytes(whole));

    // Any order; and parts all without heights join into version 1.
    auto again = scale::joinCollisionFiles({parts[2], parts[0], parts[1]}, mDir / "again.tbcg");
    ASSERT_TRUE(again) << again.message();
    EXPECT_EQ(readBytes(mDir / "again.tbcg"), readBytes(whole));
    auto flat = scale::joinCollisionFiles({parts[1], parts[2]}, mDir / "flat.tbcg");
    ASSERT_TRUE(flat) << flat.message();
    EXPECT_EQ(readBytes(mDir / "flat.tbcg"), readBytes(write("west-middle.tbcg", columns(0, 2))));
    EXPECT_EQ(readBytes(mDir / "flat.tbcg")[8], kCollisionFileVersionFlat);
}

TEST_F(CollisionFileMergeTest, PartsThatDoNotBelongTogetherAreNamed) {
    const fs::path west = write("west.tbcg", columns(0, 2));
    const fs::path overlapping = write("overlap.tbcg", columns(1, 3));
    auto twice = scale::joinCollisionFiles({west, overlapping}, mDir / "out.tbcg");
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.message().find("both hold tile " + mTiles[1].quadkey()), std::string::npos) << twice.message();

    // Another bake's layers.
    MemoryLayerSource other{{"road"}};
    const std::vector<TileId> east = columns(2, 4);
    for (const TileId& t : east) other.at(t, 0).set(3, 4);
    const std::array<std::string, 1> road{"road"};
    const auto bytes = encodeCollisionFile(CollisionGrid::build(other, east, road).value(), east).value();
    std::ofstream(mDir / "road.tbcg", std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    auto layers = scale::joinCollisionFiles({west, mDir / "road.tbcg"}, mDir / "out.tbcg");
    ASSERT_FALSE(layers);
    EXPECT_NE(layers.message().find("different layers"), std::string::npos) << layers.message();

    // A damaged part: its reader's error, with its name; nothing is written.
    std::vector<std::uint8_t> damaged = readBytes(west);
    damaged[damaged.size() / 2] ^= 0x40;
    std::ofstream(mDir / "damaged.tbcg", std::ios::binary)
        .write(reinterpret_cast<const char*>(damaged.data()), static_cast<std::streamsize>(damaged.size()));
    auto bad = scale::joinCollisionFiles({mDir / "damaged.tbcg", write("east.tbcg", east)}, mDir / "out.tbcg");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.message().find((mDir / "damaged.tbcg").string()), std::string::npos) << bad.message();
    EXPECT_NE(bad.message().find("checksum"), std::string::npos) << bad.message();
    auto missing = scale::joinCollisionFiles({mDir / "nothing.tbcg"}, mDir / "out.tbcg");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("nothing.tbcg: cannot read"), std::string::npos) << missing.message();
    EXPECT_FALSE(fs::exists(mDir / "out.tbcg"));
}

}  // namespace
}  // namespace terrabit::test
