#include <gtest/gtest.h>

#include "export_test_support.h"
#include "terrabit/core/export/output_file.h"

using namespace terrabit::core;
using terrabit::test::FileSizeLimit;
using terrabit::test::hiddenEntriesUnder;
using terrabit::test::readText;
using terrabit::test::TempDir;

TEST(OutputFile, CommittedFileHoldsTheBytesAndNoTemporaryRemains) {
    TempDir dir;
    ASSERT_TRUE(writeFileAtomically(dir / "a.txt", std::string_view("hello\n")).ok());
    EXPECT_EQ(readText(dir / "a.txt"), "hello\n");
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
}

TEST(OutputFile, DestinationKeepsItsOldContentUntilCommit) {
    TempDir dir;
    ASSERT_TRUE(writeFileAtomically(dir / "a.txt", std::string_view("old")).ok());
    Result<OutputFile> f = OutputFile::create(dir / "a.txt");
    ASSERT_TRUE(f.ok()) << f.message();
    ASSERT_TRUE(f->write(std::string_view("new content")).ok());
    EXPECT_EQ(readText(dir / "a.txt"), "old");
    EXPECT_TRUE(std::filesystem::exists(f->temporary()));
    EXPECT_EQ(f->temporary().parent_path(), dir.path());  // same folder: the rename cannot cross devices
    ASSERT_TRUE(f->commit().ok());
    EXPECT_EQ(readText(dir / "a.txt"), "new content");
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
}

TEST(OutputFile, AbandonedFileLeavesNothingBehind) {
    TempDir dir;
    {
        Result<OutputFile> f = OutputFile::create(dir / "a.bin");
        ASSERT_TRUE(f.ok());
        ASSERT_TRUE(f->write(std::string_view("partial")).ok());
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "a.bin"));
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
}

TEST(OutputFile, InjectedFullDiskNamesTheFileAndTheReasonAndRemovesTheTemporary) {
    TempDir dir;
    WriteFaults faults;
    faults.failAfterBytes = 10;
    Result<OutputFile> f = OutputFile::create(dir / "big.glb", &faults);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->write(std::string_view("0123456")).ok());
    const Status s = f->write(std::string_view("789abcdef"));
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find((dir / "big.glb").string()), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
    EXPECT_EQ(faults.written, 10u);
    EXPECT_FALSE(f->commit().ok());
    EXPECT_FALSE(std::filesystem::exists(dir / "big.glb"));
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
}

TEST(OutputFile, KernelFileSizeLimitFailsLikeAFullDiskAndLeavesNoPartialFile) {
    TempDir dir;
    const std::string payload(64 * 1024, 'x');
    Status s;
    {
        FileSizeLimit limit(4096);
        s = writeFileAtomically(dir / "big.bin", std::string_view(payload));
    }
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find((dir / "big.bin").string()), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("too large"), std::string::npos) << s.message();  // EFBIG: "File too large"
    EXPECT_FALSE(std::filesystem::exists(dir / "big.bin"));
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
}

TEST(OutputFile, FolderWhoseParentIsARegularFileIsRefusedEvenForRoot) {
    TempDir dir;
    ASSERT_TRUE(writeFileAtomically(dir / "plain", std::string_view("I am a file")).ok());
    const std::filesystem::path bad = dir / "plain" / "out";
    const Status folder = createFolder(bad);
    ASSERT_FALSE(folder.ok());
    EXPECT_NE(folder.message().find(bad.string()), std::string::npos) << folder.message();
    EXPECT_NE(folder.message().find("Not a directory"), std::string::npos) << folder.message();

    const Status file = writeFileAtomically(bad / "scene.glb", std::string_view("x"));
    ASSERT_FALSE(file.ok());
    EXPECT_NE(file.message().find((bad / "scene.glb").string()), std::string::npos) << file.message();
    EXPECT_NE(file.message().find("Not a directory"), std::string::npos) << file.message();
    EXPECT_EQ(readText(dir / "plain"), "I am a file");
}

TEST(OutputFile, RenameOntoAFolderFailsAndRemovesTheTemporary) {
    TempDir dir;
    std::filesystem::create_directories(dir / "scene.glb" / "inside");
    const Status s = writeFileAtomically(dir / "scene.glb", std::string_view("bytes"));
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("renaming"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("Is a directory"), std::string::npos) << s.message();
    EXPECT_TRUE(std::filesystem::is_directory(dir / "scene.glb" / "inside"));
    EXPECT_TRUE(hiddenEntriesUnder(dir.path()).empty());
}

TEST(OutputFile, NewFilesGetTheUsualPermissions) {
    TempDir dir;
    const mode_t old = ::umask(022);
    ASSERT_TRUE(writeFileAtomically(dir / "a.json", std::string_view("{}")).ok());
    ::umask(old);
    const auto perms = std::filesystem::status(dir / "a.json").permissions();
    EXPECT_EQ(perms, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                         std::filesystem::perms::group_read | std::filesystem::perms::others_read);
}
