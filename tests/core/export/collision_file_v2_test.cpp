// The collision grid file's version 2 (terrain heights per tile): the round trip keeps every
// height within the stated quantum (or bit for bit), the blocks are laid out as README.md says
// (read back here the way its few lines of Python do), a grid without heights is still version 1
// byte for byte, a version 1 file written before heights existed still reads, and damaged
// heights are reported with the file and the byte offset.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "collision_bytes.h"
#include "export_test_support.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/export/collision_file_writer.h"

using namespace terrabit::core;
using terrabit::test::MemoryLayerSource;
using namespace terrabit::test::collision_bytes;

namespace {

constexpr double kQuantum = 1.0 / 1024.0;
constexpr std::size_t kSamples = terrain::kHeightSampleCount;
constexpr std::size_t kDeltaBlock = 132128;  // 8 + 2 × 66049, padded to 32
constexpr std::size_t kFloatBlock = 264224;  // 8 + 4 × 66049, padded to 32
constexpr std::size_t kEmptyBlock = 32;      // 8, padded to 32

/// The heights of every tile of the plane: metres at global cell corner (gx, gy).
double plane(double gx, double gy) { return 40.0 + 0.013 * (gx - kTx0 * 256.0) - 0.021 * (gy - kTy0 * 256.0); }

/// A 3 × 2 block of tiles, one missing, with every kind of height block:
///   (0,0) the plane                        → int16 deltas
///   (1,0) the plane with holes             → int16 deltas with no-height marks
///   (2,0) a 50 m cliff between two corners → float32 (the step does not fit an int16)
///   (0,1) bits, no heights                 → none
///   (2,1) heights that are all NaN         → none
struct HeightRegion {
    MemoryLayerSource source{{"building", "water"}};
    std::vector<TileId> tiles;
    CollisionGrid grid;

    HeightRegion() {
        std::mt19937_64 rng(3);
        for (std::uint32_t y = 0; y < 2; ++y) {
            for (std::uint32_t x = 0; x < 3; ++x) {
                if (x == 1 && y == 1) continue;
                const TileId t{kZoom, kTx0 + x, kTy0 + y};
                tiles.push_back(t);
                source.randomize(t, 0, 0.1, rng);
            }
        }
        fillPlane(tiles[0]);
        terrain::HeightTile& holes = fillPlane(tiles[1]);
        holes.heights[terrain::HeightTile::index(0, 0)] = terrain::kNoHeight;  // before the first height
        for (int r = 10; r < 20; ++r)
            for (int c = 0; c < 40; ++c) holes.heights[terrain::HeightTile::index(r, c)] = terrain::kNoHeight;
        terrain::HeightTile& cliff = fillPlane(tiles[2]);
        for (int r = 0; r < terrain::kHeightSamples; ++r)
            for (int c = 101; c < terrain::kHeightSamples; ++c) cliff.heights[terrain::HeightTile::index(r, c)] += 50.f;
        source.heightsAt(tiles[4]);  // all kNoHeight
        const std::array<std::string, 2> names{"building", "water"};
        grid = CollisionGrid::build(source, tiles, names).value();
    }

    terrain::HeightTile& fillPlane(const TileId& t) {
        terrain::HeightTile& h = source.heightsAt(t);
        for (int r = 0; r < terrain::kHeightSamples; ++r)
            for (int c = 0; c < terrain::kHeightSamples; ++c)
                h.heights[terrain::HeightTile::index(r, c)] =
                    static_cast<float>(plane(t.x * 256.0 + c, t.y * 256.0 + r));
        return h;
    }
};

/// Where the height blocks start: after the bit tiles the index announces.
std::size_t heightsOffset(const std::vector<std::uint8_t>& b) {
    std::size_t stored = 0;
    std::size_t at = 48;
    for (std::uint32_t l = 0; l < u32At(b, 32); ++l) at += 2 + (std::size_t{b[at]} | std::size_t{b[at + 1]} << 8);
    for (std::uint32_t i = 0; i < u32At(b, 36); ++i, at += 48) stored += std::popcount(u64At(b, at + 8));
    return static_cast<std::size_t>(u64At(b, 40)) + stored * 8192;
}

/// Encoding 1 read back as README.md's Python does it, with whole-array sums: marks to zero,
/// column 0 summed down from the base, then every row summed east.
std::vector<float> decodeLikeTheReadme(const std::vector<std::uint8_t>& b, std::size_t block) {
    const auto base = static_cast<std::int32_t>(u32At(b, block + 4));
    std::vector<std::int64_t> d(kSamples);
    std::vector<bool> none(kSamples);
    for (std::size_t i = 0; i < kSamples; ++i) {
        const auto v = static_cast<std::int16_t>(b[block + 8 + 2 * i] | b[block + 9 + 2 * i] << 8);
        none[i] = v == -32768;
        d[i] = none[i] ? 0 : v;
    }
    constexpr int n = terrain::kHeightSamples;
    std::int64_t sum = base;
    for (int r = 0; r < n; ++r) d[r * n] = sum += d[r * n];  // d[:,0] = base + cumsum(d[:,0])
    for (int r = 0; r < n; ++r)
        for (int c = 1; c < n; ++c) d[r * n + c] += d[r * n + c - 1];  // q = cumsum(d, axis=1)
    std::vector<float> h(kSamples);
    for (std::size_t i = 0; i < kSamples; ++i)
        h[i] = none[i] ? std::nanf("") : static_cast<float>(static_cast<double>(d[i]) / 1024.0);
    return h;
}

}  // namespace

TEST(CollisionFileV2, RoundTripKeepsHeightsWithinTheQuantumAndFloatTilesBitForBit) {
    const HeightRegion r;
    ASSERT_TRUE(r.grid.hasHeights());
    const std::vector<std::uint8_t> bytes = encodeCollisionFile(r.grid, r.tiles).value();
    EXPECT_EQ(u32At(bytes, 8), 2u);
    const Result<CollisionGrid> back = parseCollisionFile(bytes, "v2.tbcg");
    ASSERT_TRUE(back.ok()) << back.message();
    ASSERT_TRUE(back->hasHeights());
    for (std::size_t k = 0; k < r.tiles.size(); ++k) {
        const TileId& t = r.tiles[k];
        EXPECT_EQ(back->tileBits(0, t), r.grid.tileBits(0, t)) << t.quadkey();
        const std::span<const float> written = r.grid.tileHeights(t);
        const std::span<const float> read = back->tileHeights(t);
        ASSERT_EQ(read.size(), written.size()) << t.quadkey();
        ASSERT_EQ(read.empty(), k == 3 || k == 4) << "tiles without a height have no heights: " << t.quadkey();
        for (std::size_t i = 0; i < read.size(); ++i) {
            ASSERT_EQ(std::isnan(read[i]), std::isnan(written[i])) << t.quadkey() << " sample " << i;
            if (std::isnan(read[i])) continue;
            if (k == 2) {
                ASSERT_EQ(std::bit_cast<std::uint32_t>(read[i]), std::bit_cast<std::uint32_t>(written[i]))
                    << "float32 tiles are bit-exact";
            } else {
                ASSERT_LE(std::fabs(double(read[i]) - double(written[i])), kQuantum / 2 + 1e-9) << i;
            }
        }
    }
    // Once rounded, the heights are exact: writing the read grid gives the same bytes.
    EXPECT_EQ(encodeCollisionFile(*back, r.tiles).value(), bytes);
}

TEST(CollisionFileV2, HeightBlocksFollowTheDocumentedLayout) {
    const HeightRegion r;
    const std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
    const CollisionGrid back = parseCollisionFile(b, "v2.tbcg").value();
    std::size_t at = heightsOffset(b);
    const std::array<std::uint32_t, 5> encodings{1, 1, 2, 0, 0};
    const std::array<std::size_t, 5> sizes{kDeltaBlock, kDeltaBlock, kFloatBlock, kEmptyBlock, kEmptyBlock};
    for (std::size_t k = 0; k < r.tiles.size(); ++k) {
        ASSERT_EQ(at % 32, 0u);
        ASSERT_EQ(u32At(b, at), encodings[k]) << r.tiles[k].quadkey();
        const std::span<const float> expected = back.tileHeights(r.tiles[k]);
        if (encodings[k] == 1) {
            const std::vector<float> h = decodeLikeTheReadme(b, at);
            for (std::size_t i = 0; i < kSamples; ++i) {
                ASSERT_EQ(std::bit_cast<std::uint32_t>(h[i]) | (std::isnan(h[i]) ? 0x7fffffffu : 0u),
                          std::bit_cast<std::uint32_t>(expected[i]) | (std::isnan(expected[i]) ? 0x7fffffffu : 0u))
                    << "sample " << i;
            }
        } else if (encodings[k] == 2) {
            EXPECT_EQ(u32At(b, at + 4), 0u);
            for (std::size_t i = 0; i < kSamples; i += 97) {
                ASSERT_EQ(u32At(b, at + 8 + 4 * i), std::bit_cast<std::uint32_t>(expected[i]));
            }
        }
        at += sizes[k];
    }
    EXPECT_EQ(at + 4, b.size()) << "the height blocks, then only the CRC";
}

TEST(CollisionFileV2, AGridWithoutHeightsIsStillVersionOneByteForByte) {
    HeightRegion r;
    MemoryLayerSource flat{{"building", "water"}};
    for (const TileId& t : r.tiles) flat.at(t, 0) = *r.source.tile(t, 0);
    const std::array<std::string, 2> names{"building", "water"};
    const CollisionGrid noHeights = CollisionGrid::build(flat, r.tiles, names).value();
    EXPECT_FALSE(noHeights.hasHeights());
    const std::vector<std::uint8_t> v1 = encodeCollisionFile(noHeights, r.tiles).value();
    EXPECT_EQ(u32At(v1, 8), 1u);
    EXPECT_EQ(heightsOffset(v1) + 4, v1.size()) << "no height blocks";
    // Heights that are all NaN are no heights: the same bytes.
    for (const TileId& t : r.tiles) flat.heightsAt(t);
    const CollisionGrid nanHeights = CollisionGrid::build(flat, r.tiles, names).value();
    EXPECT_FALSE(nanHeights.hasHeights());
    EXPECT_EQ(encodeCollisionFile(nanHeights, r.tiles).value(), v1);
    const CollisionGrid back = parseCollisionFile(v1, "v1.tbcg").value();
    EXPECT_FALSE(back.hasHeights());
    EXPECT_TRUE(std::isnan(back.groundHeight({kTx0 * 256.0 + 10.5, kTy0 * 256.0 + 10.5})));
}

TEST(CollisionFileV2, AVersionOneFileWrittenBeforeHeightsStillReads) {
    // A seed of the fuzz corpus, written by the version 1 writer before heights existed.
    const std::filesystem::path file =
        std::filesystem::path(TERRABIT_EXPORT_TEST_DIR) / "../../fuzz/corpus/collision_file/one_tile";
    std::ifstream in(file, std::ios::binary);
    const std::vector<std::uint8_t> old{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ASSERT_GT(old.size(), 8192u);
    ASSERT_EQ(u32At(old, 8), 1u);
    const Result<CollisionGrid> grid = readCollisionFile(file);
    ASSERT_TRUE(grid.ok()) << grid.message();
    EXPECT_FALSE(grid->hasHeights());
    EXPECT_TRUE(std::isnan(grid->groundHeight({grid->cellX0() + 5.5, grid->cellY0() + 5.5})));
    EXPECT_TRUE(grid->tileHeights(grid->origin()).empty());
    // And today's writer writes it again byte for byte.
    EXPECT_EQ(encodeCollisionFile(*grid).value(), old);
}

TEST(CollisionFileV2, DamagedHeightsAreReportedWithTheFileAndTheByteOffset) {
    const HeightRegion r;
    const std::vector<std::uint8_t> good = encodeCollisionFile(r.grid, r.tiles).value();
    const std::size_t first = heightsOffset(good);
    const std::size_t floatBlock = first + 2 * kDeltaBlock;
    const auto messageOf = [](const std::vector<std::uint8_t>& b) {
        return parseCollisionFile(b, "bad.tbcg").message();
    };
    const auto expectNamed = [](const std::string& m, const std::string& what, std::size_t at) {
        EXPECT_NE(m.find("'bad.tbcg'"), std::string::npos) << m;
        EXPECT_NE(m.find(what), std::string::npos) << m;
        EXPECT_NE(m.find("byte " + std::to_string(at)), std::string::npos) << m;
    };
    {  // truncated: the last blocks cut off, the checksum made right again
        std::vector<std::uint8_t> b(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(floatBlock + 1000));
        b.resize(b.size() + 4);
        reseal(b);
        expectNamed(messageOf(b), "truncated", floatBlock);
    }
    {  // an unknown encoding
        std::vector<std::uint8_t> b = good;
        putU32At(b, first + kDeltaBlock, 7);
        reseal(b);
        expectNamed(messageOf(b), "height encoding 7", first + kDeltaBlock);
    }
    {  // a base where the encoding has none
        std::vector<std::uint8_t> b = good;
        putU32At(b, floatBlock + 4, 5);
        reseal(b);
        expectNamed(messageOf(b), "must be 0", floatBlock + 4);
    }
    {  // an infinite float32 sample
        std::vector<std::uint8_t> b = good;
        putU32At(b, floatBlock + 8 + 4 * 300, std::bit_cast<std::uint32_t>(std::numeric_limits<float>::infinity()));
        reseal(b);
        expectNamed(messageOf(b), "infinite", floatBlock + 8 + 4 * 300);
    }
    {  // padding that is not zero
        std::vector<std::uint8_t> b = good;
        b[first + kDeltaBlock - 1] = 1;
        reseal(b);
        expectNamed(messageOf(b), "padding", first + kDeltaBlock - 1);
    }
    {  // bytes after the last block
        std::vector<std::uint8_t> b(good.begin(), good.end() - 4);
        b.resize(b.size() + 32 + 4, 0);
        reseal(b);
        expectNamed(messageOf(b), "follow the last height block", good.size() - 4);
    }
    {  // a version 2 file relabelled version 1: bytes beyond the bit tiles
        std::vector<std::uint8_t> b = good;
        b.at(8) = 1;  // the version's low byte (GCC 12 warns falsely on putU32At here)
        reseal(b);
        expectNamed(messageOf(b), "bytes follow", u64At(b, 40));
    }
    // Random damage to the height blocks' headers and first samples: reported or read, never a
    // crash, and whatever is read has only finite heights or none.
    std::mt19937_64 rng(8);
    for (int round = 0; round < 200; ++round) {
        std::vector<std::uint8_t> b = good;
        const std::size_t block = first + std::array<std::size_t, 3>{0, kDeltaBlock, 2 * kDeltaBlock}[rng() % 3];
        for (int k = 0; k < 1 + round % 3; ++k) b[block + rng() % 64] = static_cast<std::uint8_t>(rng());
        reseal(b);
        const Result<CollisionGrid> g = parseCollisionFile(b, "bad.tbcg");
        if (!g.ok()) {
            EXPECT_NE(g.message().find("'bad.tbcg'"), std::string::npos) << g.message();
            continue;
        }
        for (const TileId& t : r.tiles) {
            for (float h : g->tileHeights(t)) ASSERT_FALSE(std::isinf(h));
        }
    }
}

TEST(CollisionFileV2, GroundHeightIsBilinearBetweenTheCornersAndNaNWithoutHeights) {
    const HeightRegion r;
    const CollisionGrid back = parseCollisionFile(encodeCollisionFile(r.grid, r.tiles).value(), "v2").value();
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> u(0.0, 256.0);
    for (const CollisionGrid* g : {&r.grid, &back}) {
        // The plane tile: bilinear interpolation of a plane is the plane.
        for (int i = 0; i < 2000; ++i) {
            const Vec2 p{kTx0 * 256.0 + u(rng), kTy0 * 256.0 + u(rng)};
            ASSERT_NEAR(g->groundHeight(p), plane(p.x, p.y), 1e-3) << p.x << "," << p.y;
        }
        // Across the border of two plane tiles (the holes are further south).
        const Vec2 border{(kTx0 + 1) * 256.0, kTy0 * 256.0 + 100.25};
        EXPECT_NEAR(g->groundHeight(border), plane(border.x, border.y), 1e-3);
        EXPECT_NEAR(g->groundHeight(border - Vec2{1e-6, 0.0}), plane(border.x, border.y), 1e-3);
        // The cliff tile: between the corners of the cell holding the jump, a straight line.
        const double cliffX = (kTx0 + 2) * 256.0 + 100.0;
        const Vec2 mid{cliffX + 0.5, kTy0 * 256.0 + 7.0};
        EXPECT_NEAR(g->groundHeight(mid), plane(mid.x, mid.y) + 25.0, 1e-3);
        // No heights: a hole, a tile without heights, the missing tile, outside, NaN.
        EXPECT_TRUE(std::isnan(g->groundHeight({(kTx0 + 1) * 256.0 + 5.5, kTy0 * 256.0 + 15.5})));
        EXPECT_TRUE(std::isnan(g->groundHeight({(kTx0 + 1) * 256.0 + 39.5, kTy0 * 256.0 + 9.5})))
            << "a cell with one corner in the hole";
        EXPECT_FALSE(std::isnan(g->groundHeight({(kTx0 + 1) * 256.0 + 40.5, kTy0 * 256.0 + 9.5})));
        EXPECT_TRUE(std::isnan(g->groundHeight({kTx0 * 256.0 + 5.5, (kTy0 + 1) * 256.0 + 5.5})));
        EXPECT_TRUE(std::isnan(g->groundHeight({(kTx0 + 1) * 256.0 + 5.5, (kTy0 + 1) * 256.0 + 5.5})));
        EXPECT_TRUE(std::isnan(g->groundHeight({(kTx0 + 2) * 256.0 + 5.5, (kTy0 + 1) * 256.0 + 5.5})));
        EXPECT_TRUE(std::isnan(g->groundHeight({kTx0 * 256.0 - 0.5, kTy0 * 256.0 + 5.5})));
        EXPECT_TRUE(std::isnan(g->groundHeight({(kTx0 + 3) * 256.0, kTy0 * 256.0 + 5.5})));
        EXPECT_TRUE(std::isnan(g->groundHeight({std::nan(""), kTy0 * 256.0 + 5.5})));
        // cellHeights: north-west, north-east, south-west, south-east.
        const std::array<float, 4> c = g->cellHeights(kTx0 * 256 + 3, kTy0 * 256 + 4);
        EXPECT_NEAR(c[0], plane(kTx0 * 256.0 + 3, kTy0 * 256.0 + 4), 1e-3);
        EXPECT_NEAR(c[1], plane(kTx0 * 256.0 + 4, kTy0 * 256.0 + 4), 1e-3);
        EXPECT_NEAR(c[2], plane(kTx0 * 256.0 + 3, kTy0 * 256.0 + 5), 1e-3);
        EXPECT_NEAR(c[3], plane(kTx0 * 256.0 + 4, kTy0 * 256.0 + 5), 1e-3);
    }
}

TEST(CollisionFileV2, SetTileHeightsChecksWhatItIsGiven) {
    HeightRegion r;
    CollisionGrid g = r.grid;
    const std::vector<float> few(10, 1.f);
    EXPECT_NE(g.setTileHeights(r.tiles[0], few).message().find("10 height samples"), std::string::npos);
    std::vector<float> inf(kSamples, 1.f);
    inf[7] = std::numeric_limits<float>::infinity();
    EXPECT_NE(g.setTileHeights(r.tiles[0], inf).message().find("infinite"), std::string::npos);
    EXPECT_NE(g.setTileHeights(TileId{kZoom, kTx0 + 9, kTy0}, std::vector<float>(kSamples, 1.f))
                  .message()
                  .find("outside the grid's region"),
              std::string::npos);
    // Clearing every tile's heights leaves a grid without heights.
    const std::vector<float> none(kSamples, terrain::kNoHeight);
    for (const TileId& t : r.tiles) ASSERT_TRUE(g.setTileHeights(t, none).ok());
    EXPECT_FALSE(g.hasHeights());
    EXPECT_EQ(u32At(encodeCollisionFile(g, r.tiles).value(), 8), 1u);
}

TEST(CollisionFileV2, AFileWrittenFromTheReadmeAloneReads) {
    // tests/fuzz/make_collision_v2_seed.py writes it in a few lines of Python, from the README.
    const std::filesystem::path file =
        std::filesystem::path(TERRABIT_EXPORT_TEST_DIR) / "../../fuzz/corpus/collision_file/heights_v2";
    const Result<CollisionGrid> grid = readCollisionFile(file);
    ASSERT_TRUE(grid.ok()) << grid.message();
    ASSERT_TRUE(grid->hasHeights());
    const std::array<TileId, 3> tiles{TileId{kZoom, kTx0, kTy0}, TileId{kZoom, kTx0 + 1, kTy0},
                                      TileId{kZoom, kTx0 + 2, kTy0}};
    EXPECT_TRUE(grid->layersAt(kTx0 * 256 + 30, kTy0 * 256 + 40));
    EXPECT_FALSE(grid->layersAt(kTx0 * 256 + 29, kTy0 * 256 + 40));
    const std::span<const float> deltas = grid->tileHeights(tiles[0]);
    ASSERT_EQ(deltas.size(), kSamples);
    for (int r = 0; r < terrain::kHeightSamples; ++r) {
        for (int c = 0; c < terrain::kHeightSamples; ++c) {
            const float h = deltas[terrain::HeightTile::index(r, c)];
            if (r >= 100 && r < 110 && c >= 5 && c < 20) {
                ASSERT_TRUE(std::isnan(h)) << r << "," << c;
            } else {
                ASSERT_NEAR(h, 120.0 + 0.02 * c - 0.05 * r, kQuantum / 2 + 1e-6) << r << "," << c;
            }
        }
    }
    const std::span<const float> floats = grid->tileHeights(tiles[1]);
    ASSERT_EQ(floats.size(), kSamples);
    EXPECT_TRUE(std::isnan(floats[terrain::HeightTile::index(3, 4)]));
    EXPECT_EQ(floats[terrain::HeightTile::index(0, 200)], 165.0f);
    EXPECT_EQ(floats[terrain::HeightTile::index(0, 0)], 125.0f);
    EXPECT_TRUE(grid->tileHeights(tiles[2]).empty());
    EXPECT_NEAR(grid->groundHeight({(kTx0 + 1) * 256.0 + 128.5, kTy0 * 256.0 + 0.0}), 145.0, 1e-4)
        << "half way up the cliff's cell";
}
