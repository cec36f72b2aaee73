#pragma once
// The repository's resources folder (maps, rules, assets), as the test's build defines it.

#include <string>

namespace terrabit::test {

inline const std::string kResources = TERRABIT_RESOURCES_DIR;

}  // namespace terrabit::test
