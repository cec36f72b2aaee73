#include "io_test_support.h"

#include <gtest/gtest.h>

#include <cpl_string.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>
#include <ogrsf_frmts.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "terrabit/core/io/map_reader.h"

namespace terrabit::core::test {

namespace {

std::string readAll(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

std::filesystem::path scratchDir(const std::string& name) {
    // One root per process, removed with everything in it when the process ends (CTest runs
    // these tests one process each, and every one used to leave its root behind).
    struct Root {
        std::filesystem::path path =
            std::filesystem::temp_directory_path() / ("terrabit-io-tests-" + std::to_string(::getpid()));
        ~Root() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
    };
    static const Root root;
    const std::filesystem::path dir = root.path / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

std::filesystem::path monacoPbf() {
    return std::filesystem::path(TERRABIT_RESOURCES_DIR) / "maps" / "monaco-2022-07-19.osm.pbf";
}
std::filesystem::path testData(const std::string& relative) {
    return std::filesystem::path(TERRABIT_TEST_DATA_DIR) / relative;
}
void DatasetCloser::operator()(GDALDataset* d) const { GDALClose(GDALDataset::ToHandle(d)); }

RuleSet defaultRuleSet() {
    auto r = RuleSet::load(defaultRules());
    EXPECT_TRUE(r.ok()) << r.message();
    return r.ok() ? std::move(*r) : RuleSet();
}

std::filesystem::path defaultRules() {
    return std::filesystem::path(TERRABIT_RESOURCES_DIR) / "rules" / "default.yaml";
}

long long sqlCount(const std::filesystem::path& file, const std::string& sql,
                   const std::vector<std::string>& openOptions) {
    io::initGdal();
    CPLStringList opts;
    for (const auto& o : openOptions) opts.AddString(o.c_str());
    DatasetPtr ds(
        GDALDataset::Open(file.string().c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, opts.List(), nullptr));
    if (!ds) return -1;
    OGRLayer* result = ds->ExecuteSQL(sql.c_str(), nullptr, "SQLite");
    if (!result) return -1;
    long long n = -1;
    if (OGRFeature* f = result->GetNextFeature()) {
        n = f->GetFieldAsInteger64(0);
        OGRFeature::DestroyFeature(f);
    }
    ds->ReleaseResultSet(result);
    return n;
}

std::vector<long long> sqlRow(const std::filesystem::path& file, const std::string& sql) {
    io::initGdal();
    DatasetPtr ds(
        GDALDataset::Open(file.string().c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr));
    if (!ds) return {};
    OGRLayer* result = ds->ExecuteSQL(sql.c_str(), nullptr, "SQLite");
    if (!result) return {};
    std::vector<long long> row;
    if (OGRFeature* f = result->GetNextFeature()) {
        for (int i = 0; i < f->GetFieldCount(); ++i) row.push_back(f->GetFieldAsInteger64(i));
        OGRFeature::DestroyFeature(f);
    }
    ds->ReleaseResultSet(result);
    return row;
}

bool writeOgr(const std::filesystem::path& path, const std::string& driverName, const std::vector<OgrLayer>& layers,
              std::string& error) {
    io::initGdal();
    GDALDriver* driver = GetGDALDriverManager()->GetDriverByName(driverName.c_str());
    if (!driver) {
        error = "no driver " + driverName;
        return false;
    }
    DatasetPtr ds(driver->Create(path.string().c_str(), 0, 0, 0, GDT_Unknown, nullptr));
    if (!ds) {
        error = CPLGetLastErrorMsg();
        return false;
    }
    for (const OgrLayer& l : layers) {
        OGRSpatialReference srs;
        srs.importFromEPSG(l.epsg);
        srs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
        OGRGeometry* first = nullptr;
        if (OGRGeometryFactory::createFromWkt(l.features.front().wkt.c_str(), nullptr, &first) != OGRERR_NONE) {
            error = "bad WKT " + l.features.front().wkt;
            return false;
        }
        const OGRwkbGeometryType type = driverName == "ESRI Shapefile" || driverName == "FlatGeobuf"
                                            ? OGR_GT_GetCollection(first->getGeometryType())
                                            : wkbUnknown;
        OGRGeometryFactory::destroyGeometry(first);
        OGRLayer* layer = ds->CreateLayer(l.name.c_str(), &srs, type, nullptr);
        if (!layer) {
            error = CPLGetLastErrorMsg();
            return false;
        }
        std::vector<std::string> fieldNames;
        for (const OgrFeature& f : l.features) {
            for (const auto& [k, v] : f.fields) {
                if (std::find(fieldNames.begin(), fieldNames.end(), k) != fieldNames.end()) continue;
                fieldNames.push_back(k);
                OGRFieldDefn defn(k.c_str(), OFTString);
                if (layer->CreateField(&defn) != OGRERR_NONE) {
                    error = CPLGetLastErrorMsg();
                    return false;
                }
            }
        }
        for (const OgrFeature& f : l.features) {
            OGRFeature* feature = OGRFeature::CreateFeature(layer->GetLayerDefn());
            for (const auto& [k, v] : f.fields) feature->SetField(k.c_str(), v.c_str());
            OGRGeometry* g = nullptr;
            OGRGeometryFactory::createFromWkt(f.wkt.c_str(), nullptr, &g);
            if (g && wkbFlatten(type) != wkbUnknown && OGR_GT_IsSubClassOf(type, wkbGeometryCollection) &&
                !OGR_GT_IsSubClassOf(g->getGeometryType(), wkbGeometryCollection)) {
                g = OGRGeometryFactory::forceTo(g, type);
            }
            feature->SetGeometryDirectly(g);
            const OGRErr e = layer->CreateFeature(feature);
            OGRFeature::DestroyFeature(feature);
            if (e != OGRERR_NONE) {
                error = CPLGetLastErrorMsg();
                return false;
            }
        }
    }
    return true;
}

void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

void copyPrefix(const std::filesystem::path& from, const std::filesystem::path& to, std::size_t bytes) {
    const std::string all = readAll(from);
    writeText(to, all.substr(0, std::min(bytes, all.size())));
}

RunResult runCli(const std::vector<std::string>& args, const std::filesystem::path& workingDir,
                 const std::string& stdinText) {
    static int counter = 0;
    const std::filesystem::path logs = scratchDir("cli-logs-" + std::to_string(counter++));
    writeText(logs / "in", stdinText);
    std::string cmd = "cd " + quote(workingDir.string()) + " && " + quote(TERRABIT_CLI);
    for (const std::string& a : args) cmd += " " + quote(a);
    cmd += " <" + quote((logs / "in").string()) + " >" + quote((logs / "out").string()) + " 2>" +
           quote((logs / "err").string());
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readAll(logs / "out");
    r.err = readAll(logs / "err");
    return r;
}

}  // namespace terrabit::core::test
