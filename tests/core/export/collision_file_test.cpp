#include <gtest/gtest.h>
#include <zlib.h>

#include <array>
#include <cstring>
#include <random>

#include "collision_bytes.h"
#include "export_test_support.h"
#include "terrabit/core/collision/collision_file.h"
#include "terrabit/core/collision/collision_query.h"
#include "terrabit/core/export/collision_file_writer.h"
#include "terrabit/core/export/output_file.h"

using namespace terrabit::core;
using terrabit::test::MemoryLayerSource;
using namespace terrabit::test::collision_bytes;
using terrabit::test::TempDir;

namespace {

struct Region {
    MemoryLayerSource source{{"building", "water", "tree"}};
    std::vector<TileId> tiles;
    CollisionGrid grid;

    Region() {
        std::mt19937_64 rng(11);
        for (std::uint32_t y = 0; y < 2; ++y) {
            for (std::uint32_t x = 0; x < 3; ++x) {
                if (x == 1 && y == 1) continue;  // a hole in the region
                const TileId t{kZoom, kTx0 + x, kTy0 + y};
                tiles.push_back(t);
                source.randomize(t, 0, 0.2, rng);
                if (x != 2) source.randomize(t, 1, 0.1, rng);  // the east column has no water
                source.randomize(t, 2, 0.3, rng);
            }
        }
        const std::array<std::string, 3> names{"building", "water", "tree"};
        grid = CollisionGrid::build(source, tiles, names).value();
    }
};

}  // namespace

TEST(CollisionFile, ChecksumIsZlibsCrc32) {
    const std::string check = "123456789";
    EXPECT_EQ(collisionFileChecksum({reinterpret_cast<const std::uint8_t*>(check.data()), check.size()}),
              0xCBF43926u);  // the CRC-32/ISO-HDLC check value
    std::mt19937_64 rng(5);
    for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 63u, 1000u, 8193u}) {
        std::vector<std::uint8_t> data(n);
        for (auto& b : data) b = static_cast<std::uint8_t>(rng());
        const auto expected = static_cast<std::uint32_t>(crc32(0L, data.data(), static_cast<uInt>(data.size())));
        EXPECT_EQ(collisionFileChecksum(data), expected) << n << " bytes";
        // Continuing a checksum over two halves gives the checksum of the whole.
        const std::size_t half = n / 2;
        EXPECT_EQ(
            collisionFileChecksum(std::span(data).subspan(half), collisionFileChecksum(std::span(data).first(half))),
            expected);
    }
}

TEST(CollisionFile, ReadBackGridAnswersEveryCellLikeTheOriginal) {
    const Region r;
    const auto bytes = encodeCollisionFile(r.grid, r.tiles);
    ASSERT_TRUE(bytes.ok()) << bytes.message();
    const Result<CollisionGrid> back = parseCollisionFile(*bytes, "memory");
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->zoom(), r.grid.zoom());
    EXPECT_EQ(back->origin(), r.grid.origin());
    EXPECT_EQ(back->tilesWide(), 3);
    EXPECT_EQ(back->tilesHigh(), 2);
    EXPECT_EQ(back->layerNames(), r.grid.layerNames());
    // Every cell of the region and a margin around it, every layer mask.
    for (std::int64_t gy = r.grid.cellY0() - 3; gy < r.grid.cellY0() + r.grid.cellHeight() + 3; ++gy) {
        for (std::int64_t gx = r.grid.cellX0() - 3; gx < r.grid.cellX0() + r.grid.cellWidth() + 3; ++gx) {
            ASSERT_EQ(back->layersAt(gx, gy), r.grid.layersAt(gx, gy)) << gx << "," << gy;
        }
    }
    const std::array<std::string, 2> blocking{"building", "water"};
    const std::uint64_t mask = r.grid.layerMask(blocking).value();
    for (const TileId& t : r.tiles) EXPECT_EQ(back->walkable(t, mask), r.grid.walkable(t, mask)) << t.quadkey();
}

TEST(CollisionFile, ProbesOnTheReadBackGridEqualTheOriginalProbes) {
    const Region r;
    const CollisionGrid back = parseCollisionFile(encodeCollisionFile(r.grid, r.tiles).value(), "memory").value();
    CollisionQuery original(r.grid);
    CollisionQuery loaded(back);
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> ux(double(r.grid.cellX0()) - 10,
                                              double(r.grid.cellX0() + r.grid.cellWidth()) + 10);
    std::uniform_real_distribution<double> uy(double(r.grid.cellY0()) - 10,
                                              double(r.grid.cellY0() + r.grid.cellHeight()) + 10);
    std::uniform_real_distribution<double> size(0.5, 12.0);
    std::vector<CellHit> hitsA, hitsB;
    for (int i = 0; i < 2000; ++i) {
        const Vec2 p{ux(rng), uy(rng)};
        EXPECT_EQ(loaded.point(p).layers, original.point(p).layers);
        for (int l = 0; l < 3; ++l) EXPECT_EQ(loaded.pointHits(p, l), original.pointHits(p, l));
        const Box2 box{p, p + Vec2{size(rng), size(rng)}};
        for (int l = 0; l < 3; ++l) EXPECT_EQ(loaded.rectangleHits(box, l), original.rectangleHits(box, l));
        hitsA.clear();
        hitsB.clear();
        const double radius = size(rng);
        EXPECT_EQ(loaded.disk(p, radius, kAllLayers, &hitsA).layers,
                  original.disk(p, radius, kAllLayers, &hitsB).layers);
        EXPECT_EQ(hitsA, hitsB);
        const Vec2 q{ux(rng), uy(rng)};
        EXPECT_EQ(loaded.segment(p, q).layers, original.segment(p, q).layers);
    }
}

TEST(CollisionFile, LayoutFollowsTheDocumentedFormat) {
    const Region r;
    const std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
    ASSERT_EQ(std::memcmp(b.data(), "TBCOLGRD", 8), 0);
    EXPECT_EQ(u32At(b, 8), 1u);
    EXPECT_EQ(u32At(b, 12), 17u);
    EXPECT_EQ(u32At(b, 16), kTx0);
    EXPECT_EQ(u32At(b, 20), kTy0);
    EXPECT_EQ(u32At(b, 24), 3u);
    EXPECT_EQ(u32At(b, 28), 2u);
    EXPECT_EQ(u32At(b, 32), 3u);
    EXPECT_EQ(u32At(b, 36), 5u);
    const std::uint64_t data = u64At(b, 40);
    EXPECT_EQ(data % 32, 0u);
    // Layer names, then the index, read as the README describes them.
    std::size_t at = 48;
    for (const std::string name : {"building", "water", "tree"}) {
        ASSERT_EQ(std::size_t{b[at]} | std::size_t{b[at + 1]} << 8, name.size());
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(&b[at + 2]), name.size()), name);
        at += 2 + name.size();
    }
    std::size_t tile = data;
    for (std::size_t i = 0; i < r.tiles.size(); ++i, at += 48) {
        const TileId t{17, u32At(b, at), u32At(b, at + 4)};
        EXPECT_EQ(t, r.tiles[i]);  // Region lists them in (y, x) order already
        EXPECT_STREQ(reinterpret_cast<const char*>(&b[at + 16]), t.quadkey().c_str());
        const std::uint64_t mask = u64At(b, at + 8);
        for (int l = 0; l < 3; ++l) {
            const BitTile* expected = r.source.tile(t, l);
            ASSERT_EQ(((mask >> l) & 1u) != 0, expected != nullptr && expected->any()) << t.quadkey() << " layer " << l;
            if (!((mask >> l) & 1u)) continue;
            // Cell x of row y: bit x & 63 of little-endian word x >> 6.
            for (int y = 0; y < 256; y += 17) {
                for (int x = 0; x < 256; x += 5) {
                    const std::uint64_t word = u64At(b, tile + static_cast<std::size_t>(y) * 32 + (x >> 6) * 8);
                    ASSERT_EQ(((word >> (x & 63)) & 1u) != 0, expected->test(x, y));
                }
            }
            tile += 8192;
        }
    }
    EXPECT_LE(at, data);
    EXPECT_EQ(tile + 4, b.size());  // the tiles, then only the CRC
    EXPECT_EQ(u32At(b, b.size() - 4), static_cast<std::uint32_t>(crc32(0L, b.data(), static_cast<uInt>(b.size() - 4))));
}

TEST(CollisionFile, EmptyLayersOfATileCostNoBytes) {
    const Region r;
    const std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
    int stored = 0;
    for (const TileId& t : r.tiles) {
        for (int l = 0; l < 3; ++l) stored += r.source.tile(t, l) != nullptr ? 1 : 0;
    }
    EXPECT_EQ(stored, 5 * 3 - 2);  // two tiles of the east column have no water
    EXPECT_EQ(b.size(), u64At(b, 40) + static_cast<std::size_t>(stored) * 8192 + 4);
}

TEST(CollisionFile, WrittenToDiskAndReadBackThroughTheFileReader) {
    const Region r;
    TempDir dir;
    ASSERT_TRUE(writeFileAtomically(dir / "grid.tbcg", encodeCollisionFile(r.grid, r.tiles).value()).ok());
    const Result<CollisionGrid> back = readCollisionFile(dir / "grid.tbcg");
    ASSERT_TRUE(back.ok()) << back.message();
    EXPECT_EQ(back->tileBits(2, r.tiles[3]), r.grid.tileBits(2, r.tiles[3]));
    const Result<CollisionGrid> missing = readCollisionFile(dir / "nope.tbcg");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find("nope.tbcg"), std::string::npos) << missing.message();
}

TEST(CollisionFile, ADamagedByteIsAChecksumMismatch) {
    const Region r;
    std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
    b[b.size() / 2] ^= 0x10;
    const Result<CollisionGrid> g = parseCollisionFile(b, "damaged.tbcg");
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.message().find("damaged.tbcg"), std::string::npos) << g.message();
    EXPECT_NE(g.message().find("checksum mismatch"), std::string::npos) << g.message();
}

TEST(CollisionFile, TruncatedFilesAreReportedNotRead) {
    const Region r;
    const std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
    for (std::size_t n : {std::size_t{0}, std::size_t{20}, std::size_t{60}, b.size() / 2, b.size() - 1}) {
        const Result<CollisionGrid> g = parseCollisionFile(std::span(b).first(n), "cut.tbcg");
        ASSERT_FALSE(g.ok()) << n;
        EXPECT_NE(g.message().find("cut.tbcg"), std::string::npos) << g.message();
    }
}

TEST(CollisionFile, WrongMagicAndFutureVersionsAreRefusedByName) {
    const Region r;
    std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
    std::vector<std::uint8_t> png = b;
    std::memcpy(png.data(), "\x89PNG\r\n\x1a\n", 8);
    EXPECT_NE(parseCollisionFile(png, "x").message().find("not a Terrabit collision grid"), std::string::npos);
    putU32At(b, 8, 3);
    reseal(b);
    const std::string m = parseCollisionFile(b, "x").message();
    EXPECT_NE(m.find("version 3"), std::string::npos) << m;
}

TEST(CollisionFile, AQuadkeyThatDoesNotMatchItsTileIsReportedWithItsOffset) {
    const Region r;
    std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
    const std::size_t index = 48 + (2 + 8) + (2 + 5) + (2 + 4);
    b[index + 16 + 3] = b[index + 16 + 3] == '0' ? '1' : '0';  // first entry's quadkey, 4th digit
    reseal(b);
    const std::string m = parseCollisionFile(b, "q.tbcg").message();
    EXPECT_NE(m.find("byte " + std::to_string(index + 16)), std::string::npos) << m;
    EXPECT_NE(m.find("does not name tile"), std::string::npos) << m;
}

TEST(CollisionFile, TilesOutOfOrderOrOutsideTheRegionAreRefused) {
    const Region r;
    const std::size_t index = 48 + (2 + 8) + (2 + 5) + (2 + 4);
    {
        std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
        putU32At(b, index, kTx0 + 7);  // x outside the 3-wide region
        reseal(b);
        EXPECT_NE(parseCollisionFile(b, "x").message().find("outside the region"), std::string::npos);
    }
    {
        std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
        std::vector<std::uint8_t> first(b.begin() + index, b.begin() + index + 48);
        std::copy(b.begin() + index + 48, b.begin() + index + 96, b.begin() + index);  // swap entries 0 and 1
        std::copy(first.begin(), first.end(), b.begin() + index + 48);
        reseal(b);
        EXPECT_NE(parseCollisionFile(b, "x").message().find("out of (y, x) order"), std::string::npos);
    }
}

TEST(CollisionFile, WriterRefusesTilesOutsideTheGridAndEmptyGrids) {
    const Region r;
    const std::vector<TileId> outside{TileId{kZoom, kTx0 + 10, kTy0}};
    EXPECT_NE(encodeCollisionFile(r.grid, outside).message().find("outside the grid"), std::string::npos);
    EXPECT_NE(encodeCollisionFile(CollisionGrid{}).message().find("no layers"), std::string::npos);
}

TEST(CollisionFile, WithoutATileListTheIndexHoldsTheTilesThatHaveBits) {
    const Region r;
    const CollisionGrid back = parseCollisionFile(encodeCollisionFile(r.grid).value(), "x").value();
    EXPECT_EQ(back.origin(), r.grid.origin());
    EXPECT_EQ(back.tilesWide(), r.grid.tilesWide());
    for (const TileId& t : r.tiles) {
        for (int l = 0; l < 3; ++l) EXPECT_EQ(back.tileBits(l, t), r.grid.tileBits(l, t));
    }
}

TEST(CollisionFile, AHugeDeclaredRegionIsRefusedBeforeAnythingIsAllocated) {
    const Region r;
    std::vector<std::uint8_t> b = encodeCollisionFile(r.grid, r.tiles).value();
    putU32At(b, 16, 0);
    putU32At(b, 20, 0);
    putU32At(b, 24, 1u << 17);  // 2^17 x 2^17 tiles at zoom 17: the whole world
    putU32At(b, 28, 1u << 17);
    reseal(b);
    const std::string m = parseCollisionFile(b, "huge.tbcg").message();
    EXPECT_NE(m.find("larger than the 65536 tiles"), std::string::npos) << m;
}

TEST(CollisionFile, RandomDamageBehindAValidChecksumIsReportedOrReadNeverACrash) {
    // The checksum catches accidents; these bytes pass it, so every structural check is on its
    // own (the test runs under AddressSanitizer in `make test`).
    const Region r;
    const std::vector<std::uint8_t> good = encodeCollisionFile(r.grid, r.tiles).value();
    const std::size_t dataOffset = static_cast<std::size_t>(u64At(good, 40));
    std::mt19937_64 rng(21);
    int refused = 0;
    for (int round = 0; round < 400; ++round) {
        std::vector<std::uint8_t> b = good;
        for (int k = 0; k < 1 + round % 4; ++k) b[8 + rng() % (dataOffset - 8)] = static_cast<std::uint8_t>(rng());
        reseal(b);
        const Result<CollisionGrid> g = parseCollisionFile(b, "fuzz");
        if (!g.ok()) {
            ++refused;
            EXPECT_NE(g.message().find("fuzz"), std::string::npos) << g.message();
        } else {
            EXPECT_LE(g->layerCount(), kMaxCollisionLayers);
            EXPECT_LE(std::uint64_t(g->tilesWide()) * std::uint64_t(g->tilesHigh()), kMaxCollisionFileTiles);
        }
    }
    EXPECT_GT(refused, 300);  // nearly every damaged header or index is caught
}
