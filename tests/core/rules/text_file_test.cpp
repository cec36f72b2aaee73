// Reading the text documents users name (rules, catalogues, projects, expressions): each wrong
// path gets a message that says what is wrong with it, and nothing fills memory.

#include "terrabit/core/text_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../support/scratch_dir.h"

namespace terrabit::test {
namespace {

namespace fs = std::filesystem;

bool says(const core::Result<std::string>& r, const std::string& part) {
    return !r && r.error().message.find(part) != std::string::npos;
}

TEST(TextFile, ReadsTheWholeDocument) {
    const ScratchDir dir;
    const std::string text = "passes:\n  - name: trees\n" + std::string(200000, 'x') + "\n";
    { std::ofstream(dir.path() / "rules.yaml", std::ios::binary) << text; }
    const auto read = core::readTextFile(dir.path() / "rules.yaml", "rules file");
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(*read, text);
    { std::ofstream(dir.path() / "empty.yaml"); }
    EXPECT_EQ(core::readTextFile(dir.path() / "empty.yaml", "rules file").value(), "");
}

TEST(TextFile, AFolderAMissingFileABinaryFileAndAnEndlessOneAreNamed) {
    const ScratchDir dir;
    const auto folder = core::readTextFile(dir.path(), "rules file");
    EXPECT_TRUE(says(folder, dir.path().string() + ": is a folder; the rules file must be a file"))
        << folder.error().message;
    const auto missing = core::readTextFile(dir.path() / "nope.yaml", "catalogue");
    EXPECT_TRUE(says(missing, "nope.yaml: cannot open the catalogue: No such file or directory"))
        << missing.error().message;
    { std::ofstream(dir.path() / "map.pbf", std::ios::binary) << std::string("\x0a\x09OSMHeader\x00\x01", 13); }
    EXPECT_TRUE(says(core::readTextFile(dir.path() / "map.pbf", "project"), "is not a text file"));
    // A device that never ends stops at the limit instead of filling memory.
    if (fs::exists("/dev/zero")) {
        const auto endless = core::readTextFile("/dev/zero", "rules file");
        EXPECT_TRUE(says(endless, "/dev/zero: the rules file is larger than 64 MiB")) << endless.error().message;
    }
}

}  // namespace
}  // namespace terrabit::test
