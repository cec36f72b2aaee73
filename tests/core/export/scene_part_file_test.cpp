// scene.part (scene_part_file.h): a shard's share of scene.glb written a part at a time and read
// back encodes, part after part, the GLB of the whole scene; a file cut short, corrupt or of
// another version is refused with its name and where.

#include "terrabit/core/export/scene_part_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../support/scratch_dir.h"
#include "export_test_support.h"
#include "gltf_test_support.h"

namespace terrabit::test {
namespace {

using namespace core;
namespace fs = std::filesystem;

void writeBytes(const fs::path& file, const std::vector<std::uint8_t>& bytes) {
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

/// The 3 × 3 tile synthetic scene with generated buildings.
TestScene wholeScene() {
    SceneSpec spec;
    spec.tilesWide = 3;
    spec.tilesHigh = 3;
    TestScene whole = makeScene(shippedCatalogue(), spec);
    addGeneratedBuildings(whole.scene);
    return whole;
}

/// Writes the scene's runs of `size` quadkeys as parts of `file`.
void writeParts(const TestScene& whole, std::size_t size, const GlbSceneOptions& options, const fs::path& file) {
    Result<ScenePartWriter> writer = ScenePartWriter::open(file, options);
    ASSERT_TRUE(writer) << writer.message();
    for (const std::vector<TileId>& run : quadkeyRuns(whole.scene, size)) {
        const TestScene part = streamPartOf(whole, run);
        ASSERT_TRUE(writer->add(part.scene, part.meshes));
    }
    const Result<std::uint64_t> bytes = writer->finish();
    ASSERT_TRUE(bytes) << bytes.message();
    EXPECT_EQ(*bytes, fs::file_size(file));
}

/// Reads every part of `file` into a GLB stream with the file's options; the error of the first
/// read or add that fails.
Result<std::vector<std::uint8_t>> glbFrom(const fs::path& file, int* parts = nullptr) {
    Result<ScenePartReader> reader = ScenePartReader::open(file);
    if (!reader) return reader.error();
    Result<GlbSceneStream> stream = GlbSceneStream::open(reader->options());
    if (!stream) return stream.error();
    Scene part;
    std::vector<AssetMesh> meshes;
    for (int n = 0;; ++n) {
        Result<bool> more = reader->next(part, meshes);
        if (!more) return more.error();
        if (!*more) {
            if (parts) *parts = n;
            break;
        }
        if (Status s = stream->add(part, meshes); !s) return s.error();
    }
    std::vector<std::uint8_t> out;
    Status s = stream->finish([&](std::span<const std::uint8_t> bytes) {
        out.insert(out.end(), bytes.begin(), bytes.end());
        return Status::success();
    });
    if (!s) return s.error();
    return out;
}

TEST(ScenePartFile, PartsReadBackEncodeTheGlbOfTheWholeScene) {
    const TestScene whole = wholeScene();
    const ScratchDir dir;
    GlbSceneOptions plain;
    plain.plainNodes = true;
    plain.groundColour = {10, 200, 30};
    plain.copyright = "a test's copyright";
    for (const GlbSceneOptions& options : {GlbSceneOptions{}, plain}) {
        const std::vector<std::uint8_t> expected = encodeSceneGlb(whole.scene, whole.meshes, options).value();
        for (const std::size_t size : {std::size_t{1}, std::size_t{4}, std::size_t{9}}) {
            SCOPED_TRACE("parts of " + std::to_string(size) + " tiles, plain nodes " +
                         std::to_string(options.plainNodes));
            const fs::path file = dir.path() / ("parts" + std::to_string(size) + ".part");
            writeParts(whole, size, options, file);
            int parts = 0;
            const Result<std::vector<std::uint8_t>> glb = glbFrom(file, &parts);
            ASSERT_TRUE(glb) << glb.message();
            EXPECT_EQ(parts, static_cast<int>((9 + size - 1) / size));
            EXPECT_TRUE(*glb == expected) << "the GLB encoded from the parts differs from the whole scene's";
            const Result<ScenePartReader> reader = ScenePartReader::open(file);
            ASSERT_TRUE(reader);
            EXPECT_EQ(reader->options().plainNodes, options.plainNodes);
            EXPECT_EQ(reader->options().groundColour, options.groundColour);
            EXPECT_EQ(reader->options().copyright, options.copyright);
        }
        // Each model is written once, with the first part that uses it: nine parts of one tile
        // take less than nine times the meshes.
        std::uint64_t meshBytes = 0;
        for (const AssetMesh& m : whole.meshes) {
            meshBytes += 4 * (m.positions.size() + m.normals.size() + m.colours.size() + m.indices.size());
        }
        EXPECT_LT(fs::file_size(dir.path() / "parts1.part"), fs::file_size(dir.path() / "parts9.part") + meshBytes);
    }
    // Nothing is left beside the files (OutputFile's temporaries).
    for (const fs::directory_entry& e : fs::directory_iterator(dir.path())) {
        EXPECT_EQ(e.path().extension(), ".part") << e.path();
    }
}

TEST(ScenePartFile, ACutShortCorruptOrForeignFileIsRefusedNamingItAndThePart) {
    const TestScene whole = wholeScene();
    const ScratchDir dir;
    const fs::path good = dir.path() / "good.part";
    writeParts(whole, 4, {}, good);
    const std::vector<std::uint8_t> bytes = readBytes(good);
    ASSERT_GT(bytes.size(), 200u);
    const auto refusal = [&](const std::vector<std::uint8_t>& changed) {
        const fs::path file = dir.path() / "changed.part";
        writeBytes(file, changed);
        const Result<std::vector<std::uint8_t>> glb = glbFrom(file);
        EXPECT_FALSE(glb);
        const std::string message = glb ? std::string() : glb.message();
        EXPECT_NE(message.find(file.string()), std::string::npos) << message;
        return message;
    };
    // Cut anywhere: in the header, in a part, before the end mark.
    for (const std::size_t cut :
         {std::size_t{5}, std::size_t{30}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 12, bytes.size() - 1}) {
        SCOPED_TRACE("cut at " + std::to_string(cut));
        const std::string message = refusal(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + long(cut)));
        EXPECT_TRUE(message.find("cut short") != std::string::npos || message.find("truncated") != std::string::npos ||
                    message.find("did not finish") != std::string::npos || message.find("corrupt") != std::string::npos)
            << message;
    }
    EXPECT_NE(refusal(std::vector<std::uint8_t>(bytes.begin(), bytes.end() - 12)).find("did not finish"),
              std::string::npos);
    // Not one, and of another version.
    std::vector<std::uint8_t> foreign = bytes;
    foreign[0] = 'X';
    EXPECT_NE(refusal(foreign).find("not a scene.part"), std::string::npos);
    std::vector<std::uint8_t> newer = bytes;
    newer[8] = 2;
    EXPECT_NE(refusal(newer).find("version 2"), std::string::npos);
    // Every byte of the first part's head flipped in turn (its mark, its size, its first
    // counts): the reader refuses it naming the file, or reads some other scene (which the
    // encoder then checks); it neither crashes nor believes a count beyond the file.
    const std::size_t header = 8 + 4 + 4 + 4 + std::string("Terrabit").size() + 4 + std::string(kOsmAttribution).size();
    int refused = 0;
    for (std::size_t at = header; at < header + 64; ++at) {
        std::vector<std::uint8_t> flipped = bytes;
        flipped[at] ^= 0xff;
        const fs::path file = dir.path() / "flipped.part";
        writeBytes(file, flipped);
        Result<ScenePartReader> reader = ScenePartReader::open(file);
        ASSERT_TRUE(reader) << reader.message();
        Scene part;
        std::vector<AssetMesh> meshes;
        for (;;) {
            const Result<bool> more = reader->next(part, meshes);
            if (!more) {
                EXPECT_NE(more.message().find(file.string()), std::string::npos) << more.message();
                ++refused;
            }
            if (!more || !*more) break;
        }
    }
    EXPECT_GT(refused, 32) << "most flips of sizes and counts are found";
    // A missing file.
    const Result<ScenePartReader> missing = ScenePartReader::open(dir.path() / "none.part");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.message().find("none.part"), std::string::npos) << missing.message();
}

TEST(ScenePartFile, TheFuzzSeedsWrittenFromTheLayoutAloneEncode) {
    // tests/fuzz/make_scene_part_seeds.py writes them from the header's description: a reader
    // that drifts from what it documents fails here.
    const fs::path seeds = fs::path(TERRABIT_EXPORT_TEST_DIR) / ".." / ".." / "fuzz" / "corpus" / "scene_part";
    const std::map<std::string, int> expected{{"flat", 1}, {"terrain", 1}, {"two_parts", 2}};
    for (const auto& [name, parts] : expected) {
        SCOPED_TRACE(name);
        int read = 0;
        const Result<std::vector<std::uint8_t>> glb = glbFrom(seeds / name, &read);
        ASSERT_TRUE(glb) << glb.message();
        EXPECT_EQ(read, parts);
        const tinygltf::Model model = loadGlb(*glb);
        EXPECT_FALSE(model.meshes.empty());
    }
}

}  // namespace
}  // namespace terrabit::test
