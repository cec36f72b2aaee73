#pragma once
// How the commands word their reports: elapsed milliseconds and fixed-point numbers. Internal to
// the commands.

#include <chrono>
#include <iomanip>
#include <sstream>
#include <string>

namespace terrabit::cli {

inline double msSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

inline std::string fixed(double v, int digits) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

}  // namespace terrabit::cli
