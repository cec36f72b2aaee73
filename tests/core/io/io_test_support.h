#pragma once
// Helpers for the GDAL-backed tests: scratch folders, files written through OGR, SQL counts as
// the reference, and running the terrabit-cli executable.

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "terrabit/core/rules/rule_set.h"

class GDALDataset;

namespace terrabit::core::test {

/// A fresh, empty folder for one test under the system's temporary folder.
std::filesystem::path scratchDir(const std::string& name);

/// The bundled Monaco sample, and a file of tests/data.
std::filesystem::path monacoPbf();
std::filesystem::path testData(const std::string& relative);
/// The repository's default rules: the file, and the rule set it holds.
std::filesystem::path defaultRules();
RuleSet defaultRuleSet();

/// A GDAL dataset closed when it goes out of scope.
struct DatasetCloser {
    void operator()(GDALDataset* d) const;
};
using DatasetPtr = std::unique_ptr<GDALDataset, DatasetCloser>;

/// COUNT(*) of an SQL query through OGR (SQLite dialect, which knows hstore_get_value); -1 when
/// the query fails.
long long sqlCount(const std::filesystem::path& file, const std::string& sql,
                   const std::vector<std::string>& openOptions = {});

/// Every column of the first row of an SQL query through OGR (SQLite dialect), as integers;
/// empty when the query fails. One query per OSM layer keeps the file parses few.
std::vector<long long> sqlRow(const std::filesystem::path& file, const std::string& sql);

/// One feature to write: WKT geometry and string fields.
struct OgrFeature {
    std::string wkt;
    std::vector<std::pair<std::string, std::string>> fields;
};
/// One layer to write.
struct OgrLayer {
    std::string name;
    int epsg = 4326;
    std::vector<OgrFeature> features;
};
/// Writes layers with an OGR driver ("GeoJSON", "GPKG", "ESRI Shapefile", "FlatGeobuf"…).
/// Returns false (with the GDAL message in `error`) when the driver refuses.
bool writeOgr(const std::filesystem::path& path, const std::string& driver, const std::vector<OgrLayer>& layers,
              std::string& error);

/// Writes a text file.
void writeText(const std::filesystem::path& path, const std::string& text);
/// The first `bytes` bytes of `from`, written to `to`.
void copyPrefix(const std::filesystem::path& from, const std::filesystem::path& to, std::size_t bytes);

/// The outcome of running a command line.
struct RunResult {
    int exitCode = -1;
    std::string out;
    std::string err;
};
/// Runs the built terrabit-cli with arguments (shell-quoted here) in a working folder, with
/// `stdinText` on its standard input.
RunResult runCli(const std::vector<std::string>& args, const std::filesystem::path& workingDir,
                 const std::string& stdinText = "");

}  // namespace terrabit::core::test
