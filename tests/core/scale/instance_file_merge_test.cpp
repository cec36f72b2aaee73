// Binary instances (instances.bin) across the parts of a bake: shards and a streamed bake's
// batches joined give the files of the whole binary bake, byte for byte; a part's truncated or
// foreign instances.bin is named; shards written with different --instances are refused.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/monaco_bake.h"
#include "../support/output_files.h"
#include "../support/scratch_dir.h"
#include "instance_file_join_p.h"
#include "terrabit/cli/bake_command.h"
#include "terrabit/cli/merge_command.h"
#include "terrabit/core/export/instance_file.h"
#include "terrabit/core/scale/shard_record.h"

namespace terrabit::test {
namespace {

using namespace core;
namespace fs = std::filesystem;

class InstanceFileMergeTest : public ::testing::Test {
protected:
    /// The harbour bake's manifest with binary instances (or `instances`).
    terrabit::cli::BakeCommand command(const fs::path& out,
                                       InstanceEncoding instances = InstanceEncoding::Binary) const {
        terrabit::cli::BakeCommand c = harbourBake(out);
        c.formats = {ExportFormat::Manifest};
        c.instances = instances;
        return c;
    }

    void bake(const terrabit::cli::BakeCommand& c) {
        std::ostringstream out, err;
        ASSERT_EQ(terrabit::cli::runBake(c, out, err), 0) << err.str();
    }

    /// Bakes shards 0/2 and 1/2 into shard0 and shard1.
    void bakeShards(InstanceEncoding first = InstanceEncoding::Binary,
                    InstanceEncoding second = InstanceEncoding::Binary) {
        for (int k = 0; k < 2; ++k) {
            terrabit::cli::BakeCommand c = command(mDir / ("shard" + std::to_string(k)), k == 0 ? first : second);
            c.shard = scale::ShardSpec{k, 2};
            bake(c);
        }
    }

    /// Merges shard1 and shard0 (in that order) into merged; the exit code, the errors in mErr.
    int merge() {
        terrabit::cli::MergeCommand m;
        m.shards = {mDir / "shard1", mDir / "shard0"};
        m.outDir = mDir / "merged";
        std::ostringstream out, err;
        const int code = terrabit::cli::runMerge(m, out, err);
        mErr = err.str();
        return code;
    }

    void expectSameFiles(const fs::path& expected, const fs::path& actual) {
        test::expectSameFiles(expected, actual,
                              [](const std::string& relative) { return relative == scale::kShardRecordFile; });
    }

    const ScratchDir mScratch;
    const fs::path mDir = mScratch.path();
    std::string mErr;
};

TEST_F(InstanceFileMergeTest, BinaryShardsMergedEqualTheWholeBinaryBake) {
    bake(command(mDir / "whole"));
    ASSERT_TRUE(fs::exists(mDir / "whole" / "instances.bin"));
    bakeShards();
    ASSERT_TRUE(fs::exists(mDir / "shard0" / "instances.bin"));
    ASSERT_TRUE(fs::exists(mDir / "shard1" / "instances.bin"));
    ASSERT_EQ(merge(), 0) << mErr;
    expectSameFiles(mDir / "whole", mDir / "merged");
}

TEST_F(InstanceFileMergeTest, AStreamedBinaryBakeWritesTheFilesOfTheWholeBinaryBake) {
    bake(command(mDir / "whole"));
    terrabit::cli::BakeCommand c = command(mDir / "streamed");
    c.batchTiles = 3;
    c.joinMaxOpen = 2;  // joined in rounds, each a part of the next
    terrabit::cli::BakeFootprint footprint;
    c.footprint = &footprint;
    bake(c);
    EXPECT_GT(footprint.batches, 2u);
    expectSameFiles(mDir / "whole", mDir / "streamed");
}

TEST_F(InstanceFileMergeTest, AutoWritesJsonForAShardWhoseWholeCountItCannotKnow) {
    bakeShards(InstanceEncoding::Auto, InstanceEncoding::Auto);
    EXPECT_FALSE(fs::exists(mDir / "shard0" / "instances.bin"));
    ASSERT_EQ(merge(), 0) << mErr;
    EXPECT_FALSE(fs::exists(mDir / "merged" / "instances.bin"));
    bake(command(mDir / "whole", InstanceEncoding::Json));
    expectSameFiles(mDir / "whole", mDir / "merged");
}

// Under auto a streamed bake's batches write binary, and the join picks by the total as the bake
// of everything at once does: the same files on either side of the threshold, through rounds.
TEST_F(InstanceFileMergeTest, AStreamedAutoBakePicksByTheTotalAsTheWholeBakeDoes) {
    terrabit::cli::BakeCommand whole = command(mDir / "whole", InstanceEncoding::Auto);
    bake(whole);
    ASSERT_FALSE(fs::exists(mDir / "whole" / "instances.bin"));  // the harbour is far below the default
    const auto count = nlohmann::json::parse(readFile(mDir / "whole" / "manifest.json"))["instanceCount"];
    const std::uint64_t instances = count.get<std::uint64_t>();
    ASSERT_GT(instances, 1000u);

    for (const std::uint64_t above : {instances, instances - 1}) {  // JSON at the count, binary below it
        SCOPED_TRACE("binary above " + std::to_string(above));
        const std::string name = std::to_string(above);
        whole.outDir = mDir / ("whole" + name);
        whole.binaryInstancesAbove = above;
        bake(whole);
        EXPECT_EQ(fs::exists(whole.outDir / "instances.bin"), above < instances);

        terrabit::cli::BakeCommand streamed = whole;
        streamed.outDir = mDir / ("streamed" + name);
        streamed.batchTiles = 3;
        streamed.joinMaxOpen = 2;
        terrabit::cli::BakeFootprint footprint;
        streamed.footprint = &footprint;
        bake(streamed);
        EXPECT_GT(footprint.batches, 2u);
        expectSameFiles(whole.outDir, streamed.outDir);
    }
}

TEST_F(InstanceFileMergeTest, ATruncatedInstanceFileIsNamed) {
    bakeShards();
    const fs::path file = mDir / "shard1" / "instances.bin";
    fs::resize_file(file, fs::file_size(file) - 10);
    EXPECT_EQ(merge(), 1);
    EXPECT_NE(mErr.find(file.string()), std::string::npos) << mErr;
    EXPECT_NE(mErr.find("truncated"), std::string::npos) << mErr;
    EXPECT_FALSE(fs::exists(mDir / "merged" / "manifest.json"));
    EXPECT_FALSE(fs::exists(mDir / "merged" / "instances.bin"));
}

TEST_F(InstanceFileMergeTest, ACorruptOrForeignInstanceFileIsNamed) {
    bakeShards();
    const fs::path first = mDir / "shard0" / "instances.bin", second = mDir / "shard1" / "instances.bin";
    fs::copy_file(first, mDir / "kept.bin");
    {
        std::fstream corrupt(first, std::ios::in | std::ios::out | std::ios::binary);
        corrupt.write("XXXX", 4);  // the magic
    }
    EXPECT_EQ(merge(), 1);
    EXPECT_NE(mErr.find(first.string() + ": not a Terrabit instance file"), std::string::npos) << mErr;

    // shard0's records under shard1's manifest: the header's counts do not match its index.
    fs::copy_file(mDir / "kept.bin", first, fs::copy_options::overwrite_existing);
    fs::copy_file(mDir / "kept.bin", second, fs::copy_options::overwrite_existing);
    EXPECT_EQ(merge(), 1);
    EXPECT_NE(mErr.find(second.string() + ": its header counts"), std::string::npos) << mErr;
    EXPECT_NE(mErr.find("not this manifest's instance file"), std::string::npos) << mErr;
}

TEST_F(InstanceFileMergeTest, CountsWhoseBytesWouldWrapAroundAreRefused) {
    // 2^62 + 1 records of 68 bytes "are" 68 bytes modulo 2^64: a header and an index saying so,
    // over a file of one record, passed every size check and joined into a file whose header
    // counted 2^62 + 1 instances.
    const std::uint64_t wraps = (std::uint64_t{1} << 62) + 1;
    ASSERT_EQ(kInstanceHeaderBytes + wraps * kInstanceRecordBytes, kInstanceHeaderBytes + kInstanceRecordBytes);
    const TileId tile = *TileId::fromZxy(4, 3, 1);
    const auto write = [&](const fs::path& file, const InstanceFileHeader& header) {
        std::string bytes = header.encode();
        appendInstanceRecord(bytes, {}, kInstanceNoSource);
        std::ofstream(file, std::ios::binary) << bytes;
    };
    const auto line = [&](std::uint64_t count, std::uint64_t offset) {
        return InstanceBlockEntry{"palm", tile, 0, 0, offset, count}.encode();
    };
    const fs::path file = mDir / "instances.bin";
    write(file, {wraps, 1});
    auto joined = scale::joinInstanceFiles({{file, {line(wraps, kInstanceHeaderBytes)}, {}}}, mDir / "joined.bin");
    ASSERT_FALSE(joined);
    EXPECT_NE(joined.message().find(file.string() + ": "), std::string::npos) << joined.message();
    EXPECT_NE(joined.message().find("more than a file can hold"), std::string::npos) << joined.message();

    // Two blocks each within the bound, together beyond it.
    write(file, {1, 2});
    joined = scale::joinInstanceFiles(
        {{file,
          {line(kInstanceMaxRecords, kInstanceHeaderBytes),
           line(kInstanceMaxRecords, kInstanceHeaderBytes + kInstanceMaxRecords * kInstanceRecordBytes)},
          {}}},
        mDir / "joined.bin");
    ASSERT_FALSE(joined);
    EXPECT_NE(joined.message().find(file.string() + ": the manifest's index counts more records than a file can hold"),
              std::string::npos)
        << joined.message();
    EXPECT_FALSE(fs::exists(mDir / "joined.bin"));
}

TEST_F(InstanceFileMergeTest, ShardsWithDifferentInstanceEncodingsAreRefused) {
    bakeShards(InstanceEncoding::Binary, InstanceEncoding::Json);
    EXPECT_EQ(merge(), 1);
    EXPECT_NE(mErr.find("different --instances"), std::string::npos) << mErr;
    EXPECT_NE(mErr.find((mDir / "shard0").string()), std::string::npos) << mErr;
}

}  // namespace
}  // namespace terrabit::test
