// Errors carry their kind from where they happen to terrabit-cli's exit code (exit_codes.h):
// nothing on the way decides from a message's text.
#include <gtest/gtest.h>

#include <sstream>

#include "io_test_support.h"
#include "terrabit/cli/exit_codes.h"
#include "terrabit/cli/merge_command.h"
#include "terrabit/core/io/map_layers.h"
#include "terrabit/core/placement/placement_rules.h"
#include "terrabit/core/scale/shard_merge.h"

using namespace terrabit::core;
namespace cli = terrabit::cli;
namespace io = terrabit::core::io;

namespace {

io::MapInput harbourInput() {
    io::MapInput in;
    in.file = test::monacoPbf();
    in.rules = test::defaultRules();
    return in;
}

io::TileSelection oneTile() {
    io::TileSelection s;
    s.zoom = 17;
    s.quadkeys = {"12022303030221"};
    s.maxTiles = 64;
    return s;
}

}  // namespace

TEST(ErrorKinds, EachKindHasOneExitCode) {
    EXPECT_EQ(cli::exitCode(ErrorKind::BadArguments), cli::kExitBadArguments);
    for (ErrorKind kind : {ErrorKind::BadInput, ErrorKind::Io, ErrorKind::Cancelled, ErrorKind::Internal}) {
        EXPECT_EQ(cli::exitCode(kind), cli::kExitNothingUsable);
    }
}

TEST(ErrorKinds, FailPrintsEveryLineOfTheMessageAsAnError) {
    std::ostringstream err;
    EXPECT_EQ(cli::fail(err, badArguments("shard 0/3 is missing\nshard 2/3 is missing")), cli::kExitBadArguments);
    EXPECT_EQ(err.str(), "error: shard 0/3 is missing\nerror: shard 2/3 is missing\n");
}

TEST(ErrorKinds, BrokenRulesAreABadArgumentAndAnUnreadableMapBadInput) {
    const auto dir = test::scratchDir("error_kinds_rules");
    io::MapInput input = harbourInput();
    input.rules = dir / "rules.yaml";
    test::writeText(input.rules, "layers: [oops\n");
    auto broken = io::buildMapLayers(input, oneTile(), 1, {});
    ASSERT_FALSE(broken.ok());
    EXPECT_EQ(broken.error().kind, ErrorKind::BadArguments) << broken.message();
    EXPECT_NE(broken.message().find("rules.yaml"), std::string::npos) << broken.message();

    input = harbourInput();
    input.file = dir / "not-a-map.osm.pbf";
    test::writeText(input.file, "this is not a map");
    auto unreadable = io::buildMapLayers(input, oneTile(), 1, {});
    ASSERT_FALSE(unreadable.ok());
    EXPECT_EQ(unreadable.error().kind, ErrorKind::BadInput) << unreadable.message();
}

TEST(ErrorKinds, ABadSelectionIsABadArgument) {
    io::TileSelection deeper = oneTile();
    deeper.zoom = 12;
    auto tiles = io::selectedTiles(deeper);
    ASSERT_FALSE(tiles.ok());
    EXPECT_EQ(tiles.error().kind, ErrorKind::BadArguments);
    io::TileSelection typo = oneTile();
    typo.quadkeys = {"12022303030229"};
    tiles = io::selectedTiles(typo);
    ASSERT_FALSE(tiles.ok());
    EXPECT_EQ(tiles.error().kind, ErrorKind::BadArguments);
}

TEST(ErrorKinds, ACancelledReadIsCancelled) {
    auto cancelled = io::buildMapLayers(harbourInput(), oneTile(), 1, [](double, std::string_view) { return false; });
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().kind, ErrorKind::Cancelled) << cancelled.message();
}

TEST(ErrorKinds, MergeSaysWhatIsWrongByKind) {
    scale::MergeReport report;
    scale::MergeJob job;
    job.outDir = test::scratchDir("error_kinds_merge") / "merged";
    Status none = scale::mergeShards(job, report);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().kind, ErrorKind::BadArguments);

    job.shards = {test::scratchDir("error_kinds_merge") / "no-such-shard"};
    Status missing = scale::mergeShards(job, report);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().kind, ErrorKind::BadInput) << missing.message();
    std::ostringstream cliOut, cliErr;
    EXPECT_EQ(cli::runMerge(job, cliOut, cliErr), cli::kExitNothingUsable);
    EXPECT_EQ(cliErr.str(), "error: " + missing.message() + "\n");
}

// Regression: `terrabit-cli render` took any rules error whose text held "passes" (a broken
// `passes[0]` too) for a document without passes, and rendered the ground only with exit 0.
// Whether a document has passes is now asked of the document.
TEST(ErrorKinds, ADocumentWithABrokenPassStillDeclaresPasses) {
    EXPECT_FALSE(placement::PlacementRules::declaresPasses("layers:\n  - name: building\n"));
    EXPECT_TRUE(placement::PlacementRules::declaresPasses("passes:\n  - name: 3\n    type: nonsense\n"));
    EXPECT_TRUE(placement::PlacementRules::declaresPasses("[not, a, map]"));
    EXPECT_TRUE(placement::PlacementRules::declaresPasses("{ unclosed"));
}
