#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "export_test_support.h"
#include "terrabit/core/export/sha256.h"

using namespace terrabit::core;

TEST(Sha256, MatchesTheFips180Examples) {
    EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, AgreesWithSha256sumAcrossBlockBoundaries) {
    // Lengths around the 55/56/64-byte padding boundaries, where one- and two-block tails differ.
    terrabit::test::TempDir dir;
    std::mt19937_64 rng(1);
    for (std::size_t n : {1u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 127u, 128u, 129u, 1000u}) {
        std::string data(n, '\0');
        for (char& c : data) c = static_cast<char>(rng());
        const std::filesystem::path file = dir / ("data" + std::to_string(n));
        {
            std::ofstream out(file, std::ios::binary);
            out.write(data.data(), static_cast<std::streamsize>(data.size()));
        }
        FILE* pipe = ::popen(("sha256sum '" + file.string() + "'").c_str(), "r");
        ASSERT_NE(pipe, nullptr);
        char buf[65] = {};
        ASSERT_EQ(std::fread(buf, 1, 64, pipe), 64u);
        ::pclose(pipe);
        EXPECT_EQ(sha256Hex(data), std::string(buf, 64)) << n << " bytes";
    }
}
