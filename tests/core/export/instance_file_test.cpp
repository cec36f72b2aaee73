// instances.bin (instance_file.h): a binary bake read back as the README says gives the JSON
// bake's instances, transform for transform; --instances auto picks by the count; a bad header
// is refused with what is wrong.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/monaco_bake.h"
#include "export_test_support.h"
#include "terrabit/cli/bake_command.h"
#include "terrabit/core/export/instance_file.h"
#include "terrabit/core/export/scene_export.h"

namespace terrabit::test {
namespace {

using namespace core;
using nlohmann::json;
namespace fs = std::filesystem;

/// One instance as the JSON manifest states it.
struct InstanceRow {
    std::string asset;
    int blockX = 0, blockY = 0;
    std::string source;  ///< "" for none
    std::string tile;
    std::array<float, 16> transform{};
    bool operator==(const InstanceRow&) const = default;
};

/// A bake of a corner of the bundled Monaco sample (3 × 2 tiles at zoom 17).
int bake(const fs::path& out, InstanceEncoding instances, std::string& err) {
    terrabit::cli::BakeCommand c = terrabit::test::monacoBake(out, Box2{{7.415, 43.730}, {7.425, 43.737}}, 5);
    c.instances = instances;
    std::ostringstream o, e;
    const int code = terrabit::cli::runBake(c, o, e);
    err = e.str();
    return code;
}

std::vector<InstanceRow> jsonInstances(const json& manifest) {
    std::vector<InstanceRow> rows;
    for (const json& i : manifest.at("instances")) {
        InstanceRow r{i.at("asset").get<std::string>(), i.at("block").at(0).get<int>(), i.at("block").at(1).get<int>(),
                      i.at("source").is_null() ? std::string() : i.at("source").get<std::string>(),
                      i.at("tile").get<std::string>()};
        // The JSON numbers are the shortest decimals of the floats: they read back exactly.
        for (std::size_t k = 0; k < 16; ++k) r.transform[k] = i.at("transform").at(k).get<float>();
        rows.push_back(std::move(r));
    }
    return rows;
}

/// Reads instances.bin as the README's reader does: the header, then each block of the
/// manifest's "instanceBlocks" at its offset, each record 16 little-endian float32 and a uint32
/// source into "instanceSources".
std::vector<InstanceRow> binaryInstances(const json& manifest, const fs::path& file) {
    const std::vector<std::uint8_t> bytes = readBytes(file);
    EXPECT_GE(bytes.size(), 32u);
    EXPECT_EQ(std::memcmp(bytes.data(), "TBIN", 4), 0);
    const auto u32 = [&](std::size_t at) {
        return std::uint32_t{bytes[at]} | std::uint32_t{bytes[at + 1]} << 8 | std::uint32_t{bytes[at + 2]} << 16 |
               std::uint32_t{bytes[at + 3]} << 24;
    };
    EXPECT_EQ(u32(4), 1u);   // version
    EXPECT_EQ(u32(8), 32u);  // header bytes
    EXPECT_EQ(u32(12), 68u);
    EXPECT_EQ(u32(16) | std::uint64_t{u32(20)} << 32, manifest.at("instanceCount").get<std::uint64_t>());
    EXPECT_EQ(u32(24), manifest.at("instanceBlocks").size());
    EXPECT_EQ(u32(28), 0x01020304u);
    EXPECT_EQ(bytes.size(), manifest.at("instanceFile").at("bytes").get<std::size_t>());
    const json& sources = manifest.at("instanceSources");
    std::vector<InstanceRow> rows;
    for (const json& b : manifest.at("instanceBlocks")) {
        const auto offset = b.at("offset").get<std::size_t>();
        const auto count = b.at("count").get<std::size_t>();
        EXPECT_EQ(offset % 4, 0u);
        for (std::size_t n = 0; n < count && offset + 68 * (n + 1) <= bytes.size(); ++n) {
            const std::size_t at = offset + 68 * n;
            InstanceRow r{b.at("asset").get<std::string>(), b.at("block").at(0).get<int>(),
                          b.at("block").at(1).get<int>(), "", b.at("tile").get<std::string>()};
            for (std::size_t k = 0; k < 16; ++k) r.transform[k] = std::bit_cast<float>(u32(at + 4 * k));
            const std::uint32_t source = u32(at + 64);
            if (source != 0xffffffffu) r.source = sources.at(source).get<std::string>();
            rows.push_back(std::move(r));
        }
    }
    return rows;
}

TEST(InstanceFile, ABinaryBakeReadsBackAsTheJsonBakeOfTheSameMap) {
    TempDir dir;
    std::string err;
    ASSERT_EQ(bake(dir / "json", InstanceEncoding::Json, err), 0) << err;
    ASSERT_EQ(bake(dir / "binary", InstanceEncoding::Binary, err), 0) << err;
    EXPECT_FALSE(fs::exists(dir / "json" / "instances.bin"));
    ASSERT_TRUE(fs::exists(dir / "binary" / "instances.bin"));
    json fromJson = json::parse(readText(dir / "json" / "manifest.json"));
    json fromBinary = json::parse(readText(dir / "binary" / "manifest.json"));
    EXPECT_FALSE(fromBinary.contains("instances"));
    EXPECT_EQ(fromBinary.at("instanceFile").at("name"), "instances.bin");

    const std::vector<InstanceRow> expected = jsonInstances(fromJson);
    const std::vector<InstanceRow> actual = binaryInstances(fromBinary, dir / "binary" / "instances.bin");
    ASSERT_GT(expected.size(), 1000u);  // plants and buildings, with and without a source
    EXPECT_TRUE(std::any_of(expected.begin(), expected.end(), [](const InstanceRow& r) { return r.source.empty(); }));
    EXPECT_TRUE(std::any_of(expected.begin(), expected.end(), [](const InstanceRow& r) { return !r.source.empty(); }));
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(actual[i], expected[i]) << "instance " << i;
    // The sources are sorted, each once.
    const auto sources = fromBinary.at("instanceSources").get<std::vector<std::string>>();
    EXPECT_TRUE(std::adjacent_find(sources.begin(), sources.end(), std::greater_equal<>()) == sources.end());

    // Everything else of the manifest is the JSON bake's.
    fromJson.erase("instances");
    for (const char* key : {"instanceBlocks", "instanceFile", "instanceSources"}) fromBinary.erase(key);
    EXPECT_EQ(fromBinary, fromJson);
}

TEST(InstanceFile, AutoWritesJsonUpToTheThresholdAndBinaryAbove) {
    const AssetCatalogue catalogue = shippedCatalogue();
    const TestScene test = makeScene(catalogue);
    const std::uint64_t count = test.scene.instanceCount();
    ASSERT_GT(count, 10u);
    TempDir dir;
    ExportOptions options;
    options.formats = {ExportFormat::Manifest};
    options.outDir = dir.path();
    const auto exportWith = [&](std::uint64_t above) {
        options.binaryInstancesAbove = above;
        auto report = exportScene(test.scene, options, catalogue, nullptr);
        EXPECT_TRUE(report) << report.message();
        return report ? report->files.size() : 0;
    };
    EXPECT_EQ(exportWith(count - 1), 2u);  // manifest.json and instances.bin
    EXPECT_TRUE(fs::exists(dir / "instances.bin"));
    EXPECT_TRUE(json::parse(readText(dir / "manifest.json")).contains("instanceBlocks"));
    EXPECT_EQ(fs::file_size(dir / "instances.bin"), 32 + 68 * count);
    // At the threshold: JSON, and the earlier bake's instances.bin, which no manifest indexes, goes.
    EXPECT_EQ(exportWith(count), 1u);
    EXPECT_FALSE(fs::exists(dir / "instances.bin"));
    EXPECT_EQ(json::parse(readText(dir / "manifest.json")).at("instances").size(), count);
    // The default threshold keeps small scenes (the golden bakes) JSON.
    EXPECT_EQ(exportWith(kBinaryInstancesAbove), 1u);
    EXPECT_GT(kBinaryInstancesAbove, 15'500u);     // the Monaco sample at zoom 17
    EXPECT_LT(kBinaryInstancesAbove, 2'200'000u);  // the Monaco region
}

TEST(InstanceFile, TheEncodingIsNamedOnTheCommandLine) {
    EXPECT_EQ(parseInstanceEncoding("auto").value(), InstanceEncoding::Auto);
    EXPECT_EQ(parseInstanceEncoding("json").value(), InstanceEncoding::Json);
    EXPECT_EQ(parseInstanceEncoding("binary").value(), InstanceEncoding::Binary);
    const auto bad = parseInstanceEncoding("bin");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.message().find("auto, json, binary"), std::string::npos) << bad.message();
    EXPECT_FALSE(writesBinaryInstances(InstanceEncoding::Auto, 100, 100));
    EXPECT_TRUE(writesBinaryInstances(InstanceEncoding::Auto, 101, 100));
    EXPECT_TRUE(writesBinaryInstances(InstanceEncoding::Binary, 0, 100));
    EXPECT_FALSE(writesBinaryInstances(InstanceEncoding::Json, 1000, 100));
}

TEST(InstanceFile, ABadHeaderSaysWhatIsWrong) {
    const std::string good = InstanceFileHeader{7, 2}.encode();
    ASSERT_EQ(good.size(), 32u);
    const auto decoded = InstanceFileHeader::decode(good);
    ASSERT_TRUE(decoded) << decoded.message();
    EXPECT_EQ(decoded->instances, 7u);
    EXPECT_EQ(decoded->blocks, 2u);
    EXPECT_EQ(decoded->fileBytes(), 32u + 7u * 68u);

    const auto expectError = [](const std::string& bytes, const std::string& what) {
        const auto h = InstanceFileHeader::decode(bytes);
        ASSERT_FALSE(h);
        EXPECT_NE(h.message().find(what), std::string::npos) << h.message();
    };
    expectError(good.substr(0, 20), "shorter than the 32-byte header");
    std::string magic = good;
    magic[0] = 'X';
    expectError(magic, "not a Terrabit instance file");
    std::string version = good;
    version[4] = 2;
    expectError(version, "version 2");
    std::string order = good;
    std::swap(order[28], order[31]);  // a big-endian writer's mark
    expectError(order, "byte-order mark");
    // More records than a file's bytes can count (their size would wrap around).
    expectError(InstanceFileHeader{kInstanceMaxRecords + 1, 1}.encode(), "more than a file can hold");
    EXPECT_TRUE(InstanceFileHeader::decode(InstanceFileHeader{kInstanceMaxRecords, 1}.encode()));
}

TEST(InstanceFile, ABlockEntryCountsNoMoreRecordsThanAFileCanHold) {
    const TileId tile = *TileId::fromZxy(4, 3, 1);
    const auto entry = [&](std::uint64_t count) {
        return InstanceBlockEntry::parse(InstanceBlockEntry{"palm", tile, 0, 0, kInstanceHeaderBytes, count}.encode());
    };
    ASSERT_TRUE(entry(kInstanceMaxRecords));
    const auto refused = entry(kInstanceMaxRecords + 1);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.message().find("a block's count is not within"), std::string::npos) << refused.message();
}

TEST(InstanceFile, ARecordIsSixteenFloatsAndASource) {
    std::array<float, 16> m{};
    for (std::size_t k = 0; k < 16; ++k) m[k] = 0.5f * static_cast<float>(k) - 3.0f;
    std::string bytes;
    appendInstanceRecord(bytes, m, 42);
    ASSERT_EQ(bytes.size(), 68u);
    EXPECT_EQ(instanceRecordTransform(bytes.data()), m);
    EXPECT_EQ(instanceRecordSource(bytes.data()), 42u);
    // Little-endian on every host: -3.0f is 0xC0400000.
    EXPECT_EQ(static_cast<unsigned char>(bytes[3]), 0xC0u);
    EXPECT_EQ(static_cast<unsigned char>(bytes[2]), 0x40u);
    setInstanceRecordSource(bytes.data(), kInstanceNoSource);
    EXPECT_EQ(instanceRecordSource(bytes.data()), 0xffffffffu);
}

}  // namespace
}  // namespace terrabit::test
