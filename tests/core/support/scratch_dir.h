#pragma once
/// A scratch folder for the running test, named after its suite, its name and the process (so
/// that tests run in parallel by CTest never share one): emptied when made, removed after.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace terrabit::test {

class ScratchDir {
public:
    ScratchDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        mPath = std::filesystem::temp_directory_path() / ("terrabit-" + std::string(info->test_suite_name()) + "." +
                                                          info->name() + "-" + std::to_string(::getpid()));
        std::filesystem::remove_all(mPath);
        std::filesystem::create_directories(mPath);
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(mPath, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::filesystem::path& path() const { return mPath; }
    std::filesystem::path operator/(std::string_view name) const { return mPath / name; }

private:
    std::filesystem::path mPath;
};

}  // namespace terrabit::test
