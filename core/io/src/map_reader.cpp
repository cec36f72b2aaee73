#include "terrabit/core/io/map_reader.h"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>
#include <ogrsf_frmts.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <string_view>
#include <system_error>

#include "crs_check_p.h"
#include "gdal_dataset_p.h"
#include "terrabit/core/io/pbf_check.h"
#include "terrabit/core/map/geometry_repair.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::core::io {

void initGdal() {
    static std::once_flag once;
    std::call_once(once, [] { GDALAllRegister(); });
}

namespace {

// -- GDAL plumbing ---------------------------------------------------------------------------

/// One CPLError report: its level (a failure while fetching features means part of the file
/// could not be read) and its text.
struct GdalMessage {
    CPLErr level = CE_Warning;
    std::string text;
};

/// GDAL reports problems through CPLError; while reading, they are collected here (the handler
/// stack is per thread) and become warnings that name the file and feature.
struct ErrorCollector {
    std::vector<GdalMessage> messages;
};

void CPL_STDCALL collectErrors(CPLErr cls, CPLErrorNum, const char* message) {
    auto* collector = static_cast<ErrorCollector*>(CPLGetErrorHandlerUserData());
    if (collector && cls >= CE_Warning) collector->messages.push_back({cls, message ? message : "unknown GDAL error"});
}

class ScopedErrorCapture {
public:
    explicit ScopedErrorCapture(ErrorCollector& c) { CPLPushErrorHandlerEx(collectErrors, &c); }
    ~ScopedErrorCapture() { CPLPopErrorHandler(); }
    ScopedErrorCapture(const ScopedErrorCapture&) = delete;
    ScopedErrorCapture& operator=(const ScopedErrorCapture&) = delete;
};

struct FeatureDeleter {
    void operator()(OGRFeature* f) const { OGRFeature::DestroyFeature(f); }
};
using FeaturePtr = std::unique_ptr<OGRFeature, FeatureDeleter>;

DatasetPtr openVector(const std::string& path, const std::vector<std::string>& options,
                      const char* const* allowedDrivers = nullptr) {
    CPLStringList opts;
    for (const std::string& o : options) opts.AddString(o.c_str());
    return DatasetPtr(
        GDALDataset::Open(path.c_str(), GDAL_OF_VECTOR | GDAL_OF_READONLY, allowedDrivers, opts.List(), nullptr));
}

bool hasOption(const std::vector<std::string>& options, std::string_view key) {
    return std::any_of(options.begin(), options.end(), [&](const std::string& o) {
        return o.size() > key.size() && o.compare(0, key.size(), key) == 0 && o[key.size()] == '=';
    });
}

/// True when some layer of the dataset yields a feature.
bool hasAnyFeature(GDALDataset& ds) {
    for (int i = 0; i < ds.GetLayerCount(); ++i) {
        OGRLayer* layer = ds.GetLayer(i);
        layer->ResetReading();
        FeaturePtr f{layer->GetNextFeature()};
        layer->ResetReading();
        if (f) return true;
    }
    return false;
}

/// For the root of a z/x/y vector-tile folder: its deepest zoom folder, or empty.
std::filesystem::path deepestZoomFolder(const std::filesystem::path& dir) {
    std::error_code ec;
    int best = -1;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (!entry.is_directory(ec)) continue;
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.size() > 2 || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
        best = std::max(best, std::stoi(name));
    }
    return best < 0 ? std::filesystem::path() : dir / std::to_string(best);
}

// -- OSM specifics ------------------------------------------------------------------------------

enum class OsmLayer { NotOsm, Points, Lines, MultiLines, MultiPolygons, Other };

OsmLayer osmLayerOf(std::string_view name) {
    if (name == "points") return OsmLayer::Points;
    if (name == "lines") return OsmLayer::Lines;
    if (name == "multilinestrings") return OsmLayer::MultiLines;
    if (name == "multipolygons") return OsmLayer::MultiPolygons;
    return OsmLayer::Other;
}

/// Unpacks GDAL's other_tags text, `"key"=>"value","k2"=>"v2"` with backslash escapes.
void parseOtherTags(std::string_view text, std::vector<Tag>& tags) {
    std::size_t i = 0;
    auto quoted = [&](std::string& out) {
        out.clear();
        while (i < text.size() && text[i] != '"') ++i;
        if (i >= text.size()) return false;
        ++i;
        while (i < text.size() && text[i] != '"') {
            if (text[i] == '\\' && i + 1 < text.size()) ++i;
            out += text[i++];
        }
        if (i >= text.size()) return false;
        ++i;
        return true;
    };
    std::string key, value;
    while (i < text.size()) {
        if (!quoted(key)) break;
        const std::size_t arrow = text.find("=>", i);
        if (arrow == std::string_view::npos) break;
        i = arrow + 2;
        if (!quoted(value)) break;
        tags.push_back({key, value});
    }
}

// -- per-layer reading state --------------------------------------------------------------------

struct LayerReader {
    OGRLayer* layer = nullptr;
    std::size_t info = 0;  ///< index into MapData::layers
    OsmLayer osm = OsmLayer::NotOsm;
    std::unique_ptr<OGRCoordinateTransformation> transform;  ///< null: already EPSG:3857
    int osmId = -1, osmWayId = -1, otherTags = -1;
    std::vector<int> tagFields;
    std::vector<std::string> tagNames;
};

/// Raw vertices of one geometry, sorted by dimension, before projection.
struct RawGeometry {
    std::vector<double> x[3], y[3];      ///< per dimension: 0 points, 1 lines, 2 areas
    std::vector<std::uint32_t> ends[3];  ///< part ends per dimension
    std::vector<OGRRawPoint> buffer;
    bool unsupported = false;

    void clear() {
        for (int d = 0; d < 3; ++d) {
            x[d].clear();
            y[d].clear();
            ends[d].clear();
        }
        unsupported = false;
    }
    void addCurve(const OGRSimpleCurve* c, int dim) {
        const int n = c->getNumPoints();
        buffer.resize(static_cast<std::size_t>(n));
        c->getPoints(buffer.data());
        for (const OGRRawPoint& p : buffer) {
            x[dim].push_back(p.x);
            y[dim].push_back(p.y);
        }
        ends[dim].push_back(static_cast<std::uint32_t>(x[dim].size()));
    }
    void add(const OGRGeometry* g) {
        if (!g || g->IsEmpty()) return;
        switch (wkbFlatten(g->getGeometryType())) {
            case wkbPoint: {
                const auto* p = g->toPoint();
                x[0].push_back(p->getX());
                y[0].push_back(p->getY());
                ends[0].push_back(static_cast<std::uint32_t>(x[0].size()));
                break;
            }
            case wkbLineString:
            case wkbLinearRing:
                addCurve(g->toSimpleCurve(), 1);
                break;
            case wkbPolygon: {
                const auto* poly = g->toPolygon();
                for (const OGRLinearRing* ring : *poly) addCurve(ring, 2);
                break;
            }
            case wkbMultiPoint:
            case wkbMultiLineString:
            case wkbMultiPolygon:
            case wkbGeometryCollection: {
                for (const OGRGeometry* part : *g->toGeometryCollection()) add(part);
                break;
            }
            case wkbCircularString:
            case wkbCompoundCurve:
            case wkbCurvePolygon:
            case wkbMultiCurve:
            case wkbMultiSurface: {
                std::unique_ptr<OGRGeometry> linear(g->getLinearGeometry());
                add(linear.get());
                break;
            }
            default:
                unsupported = true;
                break;
        }
    }
};

class Reader {
public:
    Reader(std::string source, const ReadOptions& options) : mOptions(options) { mMap.source = std::move(source); }

    Result<MapData> run(const std::filesystem::path& path);

private:
    void warn(const std::string& what) { mMap.warnings.push_back(mMap.source + ": " + what); }
    void warnFeature(const std::string& id, const std::string& what) {
        mMap.warnings.push_back(mMap.source + ": feature " + id + ": " + what);
    }
    /// GDAL's and PROJ's messages so far, tied to `where` ("feature w12", "layer lines", "no
    /// feature"), then forgotten.
    void flushGdal(std::vector<GdalMessage>& messages, const std::string& where) {
        for (const GdalMessage& m : messages) mMap.warnings.push_back(mMap.source + ": " + where + ": GDAL: " + m.text);
        messages.clear();
    }
    bool prepareLayer(OGRLayer* layer, LayerReader& reader);
    void readFeature(LayerReader& reader, OGRFeature& f, std::vector<GdalMessage>& gdalMessages);
    bool progress(double fraction) { return reportProgress(mOptions.progress, fraction, "reading"); }

    const ReadOptions& mOptions;
    MapData mMap;
    bool mOsm = false;
    OGRSpatialReference mWebMercator;
    // Scratch reused from feature to feature.
    RawGeometry mRaw;
    GeometryRepairScratch mRepair;
    std::vector<int> mTransformOk;
};

bool Reader::prepareLayer(OGRLayer* layer, LayerReader& r) {
    r.layer = layer;
    r.info = mMap.layers.size();
    SourceLayerInfo info;
    info.name = layer->GetName();
    info.geometryType = OGRGeometryTypeToName(layer->GetGeomType());
    mMap.layers.push_back(info);
    r.osm = mOsm ? osmLayerOf(info.name) : OsmLayer::NotOsm;

    OGRFeatureDefn* defn = layer->GetLayerDefn();
    for (int i = 0; i < defn->GetFieldCount(); ++i) {
        const std::string name = defn->GetFieldDefn(i)->GetNameRef();
        if (mOsm) {
            if (name == "osm_id") {
                r.osmId = i;
                continue;
            }
            if (name == "osm_way_id") {
                r.osmWayId = i;
                continue;
            }
            if (name == "other_tags") {
                r.otherTags = i;
                continue;
            }
            if (name == "z_order") continue;  // computed by GDAL, not a tag
        }
        r.tagFields.push_back(i);
        r.tagNames.push_back(name);
    }

    const OGRSpatialReference* srs = layer->GetSpatialRef();
    OGRSpatialReference source;
    if (srs) {
        if (const auto why = detail::inconsistentAuthority(*srs)) {
            warn("layer " + info.name + ": its coordinate system contradicts itself: " + *why + "; layer skipped");
            return false;
        }
        source = *srs;
    } else {
        // No coordinate system: longitude/latitude if the data fits, else assume Web Mercator.
        OGREnvelope env;
        const bool lonLat = layer->GetExtent(&env, TRUE) == OGRERR_NONE && env.MinX >= -180.0 && env.MaxX <= 180.0 &&
                            env.MinY >= -90.0 && env.MaxY <= 90.0;
        source.importFromEPSG(lonLat ? 4326 : 3857);
        warn("layer " + info.name + " has no coordinate system; taken as " +
             (lonLat ? std::string("longitude/latitude (EPSG:4326)") : std::string("Web Mercator (EPSG:3857)")));
    }
    source.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    if (!source.IsSame(&mWebMercator)) {
        r.transform.reset(OGRCreateCoordinateTransformation(&source, &mWebMercator));
        if (!r.transform) {
            warn("layer " + info.name + ": its coordinate system cannot be converted to EPSG:3857; layer skipped");
            return false;
        }
    }

    // The extent the file declares (an OSM extract's bounding box): the sea is closed against it.
    OGREnvelope env;
    if (layer->GetExtent(&env, FALSE) == OGRERR_NONE && env.MinX <= env.MaxX && env.MinY <= env.MaxY) {
        double xs[2] = {env.MinX, env.MaxX};
        double ys[2] = {env.MinY, env.MaxY};
        int ok[2] = {TRUE, TRUE};
        if (!r.transform || r.transform->Transform(2, xs, ys, nullptr, ok)) {
            for (int i = 0; i < 2; ++i) {
                if (ok[i] && std::isfinite(xs[i]) && std::isfinite(ys[i])) mMap.extent.extend({xs[i], ys[i]});
            }
        }
    }
    return true;
}

void Reader::readFeature(LayerReader& r, OGRFeature& of, std::vector<GdalMessage>& gdalMessages) {
    SourceLayerInfo& info = mMap.layers[r.info];
    Feature f;
    f.sourceLayer = info.name;

    // The id first, so every message about this feature can name it.
    switch (r.osm) {
        case OsmLayer::NotOsm:
            f.id = info.name + ":" +
                   std::to_string(of.GetFID() == OGRNullFID
                                      ? static_cast<GIntBig>(info.featuresRead + info.featuresSkipped)
                                      : of.GetFID());
            break;
        case OsmLayer::Points:
            f.id = std::string("n") + of.GetFieldAsString(r.osmId);
            break;
        case OsmLayer::Lines:
            f.id = std::string("w") + of.GetFieldAsString(r.osmId);
            break;
        case OsmLayer::MultiLines:
            f.id = std::string("r") + of.GetFieldAsString(r.osmId);
            break;
        case OsmLayer::MultiPolygons:
            if (r.osmId >= 0 && of.IsFieldSetAndNotNull(r.osmId)) {
                f.id = std::string("r") + of.GetFieldAsString(r.osmId);
            } else {
                f.id = std::string("w") + (r.osmWayId >= 0 ? of.GetFieldAsString(r.osmWayId) : "?");
            }
            break;
        case OsmLayer::Other:
            f.id = std::string("r") + of.GetFieldAsString(r.osmId);
            break;
    }
    // Raised while GDAL fetched this feature.
    flushGdal(gdalMessages, "feature " + f.id);

    for (std::size_t i = 0; i < r.tagFields.size(); ++i) {
        const int field = r.tagFields[i];
        if (!of.IsFieldSetAndNotNull(field)) continue;
        f.tags.push_back({r.tagNames[i], of.GetFieldAsString(field)});
    }
    if (r.otherTags >= 0 && of.IsFieldSetAndNotNull(r.otherTags))
        parseOtherTags(of.GetFieldAsString(r.otherTags), f.tags);

    // Geometry: gather by dimension, keep the highest one present.
    mRaw.clear();
    mRaw.add(of.GetGeometryRef());
    int dim = 2;
    while (dim >= 0 && mRaw.x[dim].empty()) --dim;
    if (dim < 0) {
        ++info.featuresSkipped;
        warnFeature(f.id, mRaw.unsupported ? "unsupported geometry type; skipped" : "no geometry (empty); skipped");
        return;
    }
    if ((dim >= 1 && !mRaw.x[0].empty()) || (dim == 2 && !mRaw.x[1].empty())) {
        warnFeature(f.id, "a collection of mixed geometry types; kept its " +
                              std::string(dim == 2 ? "polygons" : "lines") + " only");
    }
    std::vector<double>& xs = mRaw.x[dim];
    std::vector<double>& ys = mRaw.y[dim];
    if (r.transform) {
        std::vector<int>& ok = mTransformOk;
        ok.assign(xs.size(), TRUE);
        r.transform->Transform(xs.size(), xs.data(), ys.data(), nullptr, ok.data());
        for (std::size_t i = 0; i < xs.size(); ++i) {
            if (!ok[i]) xs[i] = ys[i] = std::numeric_limits<double>::quiet_NaN();
        }
        // PROJ's complaints ("Point outside of projection domain") are about this feature, not
        // the next one GDAL fetches.
        flushGdal(gdalMessages, "feature " + f.id);
    }
    f.kind = dim == 2 ? FeatureKind::Area : dim == 1 ? FeatureKind::Line : FeatureKind::Point;
    f.points.resize(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) f.points[i] = {xs[i], ys[i]};
    f.partEnds = mRaw.ends[dim];

    // GDAL's default osmconf.ini leaves closed riverbank and area=yes ways among the lines.
    if (r.osm == OsmLayer::Lines && f.kind == FeatureKind::Line && f.partEnds.size() == 1 && f.points.size() >= 4 &&
        f.points.front() == f.points.back()) {
        const auto waterway = f.tag("waterway");
        const auto area = f.tag("area");
        if ((waterway && *waterway == "riverbank") || (area && *area == "yes")) f.kind = FeatureKind::Area;
    }

    const GeometryRepair repair = repairGeometry(f, mRepair);
    if (!repair.clean()) warnFeature(f.id, repair.describe());
    if (!repair.usable) {
        ++info.featuresSkipped;
        return;
    }
    if (f.tags.empty()) warnFeature(f.id, "no tags or attributes; no rule can classify it");
    mMap.featureBounds.extend(f.bounds.min);
    mMap.featureBounds.extend(f.bounds.max);
    ++info.featuresRead;
    mMap.features.push_back(std::move(f));
}

Result<MapData> Reader::run(const std::filesystem::path& path) {
    const std::string name = path.string();
    std::error_code ec;
    const bool virtualPath = name.rfind("/vsi", 0) == 0;
    if (!virtualPath && !std::filesystem::exists(path, ec)) return Error{name + ": no such file or directory"};
    // Said plainly: GDAL would call either "not a map format".
    if (!virtualPath && std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0 &&
        !ec) {
        return Error{name + ": the file is empty"};
    }
    if (!virtualPath && std::filesystem::is_directory(path, ec) && std::filesystem::is_empty(path, ec) && !ec) {
        return Error{name + ": the folder is empty"};
    }

    initGdal();
    mWebMercator.importFromEPSG(3857);
    mWebMercator.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);

    ErrorCollector errors;
    ScopedErrorCapture capture(errors);

    // A PBF's block framing is checked first: GDAL may stop at a truncated file silently. Such
    // a map is incomplete: an error unless partial reads are allowed.
    std::string framingProblem;
    PbfFraming complete;
    std::uint64_t fileBytes = 0;
    if (!virtualPath && std::filesystem::is_regular_file(path, ec) && looksLikePbf(path)) {
        if (auto framing = checkPbfFraming(path, &complete); !framing) {
            framingProblem = framing.message();
            fileBytes = std::filesystem::file_size(path, ec);
            // The first block is the OSMHeader: without a data block after it there is no map.
            if (complete.blocks < 2) return Error{framingProblem + "; no map data comes before it"};
            if (!mOptions.allowPartial) {
                return Error{framingProblem + "; the map is incomplete (--allow-partial reads the " +
                             withCommas(complete.blocks) + " complete blocks before it, the first " +
                             withCommas(complete.bytes) + " of " + withCommas(fileBytes) + " bytes)"};
            }
        }
    }

    std::vector<std::string> openOptions = mOptions.openOptions;
    DatasetPtr ds = openVector(name, openOptions);
    if (!ds && !virtualPath && std::filesystem::is_directory(path, ec)) {
        if (const auto zoomDir = deepestZoomFolder(path); !zoomDir.empty())
            ds = openVector(zoomDir.string(), openOptions);
    }
    if (!ds) {
        std::string why =
            framingProblem.empty() ? name + ": not a map format GDAL can read as vector data" : framingProblem;
        if (!errors.messages.empty()) why += " (GDAL: " + errors.messages.back().text + ")";
        return Error{why};
    }
    mMap.format = ds->GetDriver() ? ds->GetDriver()->GetDescription() : "unknown";
    mOsm = mMap.format == "OSM";

    if (mMap.format == "MBTiles" && !hasOption(openOptions, "ZOOM_LEVEL") && !hasAnyFeature(*ds)) {
        // The MBTiles driver reads the metadata's maxzoom, which may hold no tiles at all: go
        // down the zooms until one has features.
        const char* claimedText = ds->GetMetadataItem("ZOOM_LEVEL");
        const char* minText = ds->GetMetadataItem("minzoom");
        const int claimed = claimedText ? std::atoi(claimedText) : 0;
        const int lowest = minText ? std::max(0, std::atoi(minText)) : 0;
        for (int z = claimed - 1; z >= lowest; --z) {
            std::vector<std::string> at = openOptions;
            at.push_back("ZOOM_LEVEL=" + std::to_string(z));
            DatasetPtr candidate = openVector(name, at);
            if (!candidate || !hasAnyFeature(*candidate)) continue;
            warn("the metadata says zoom " + std::to_string(claimed) + " but the deepest tiles are at zoom " +
                 std::to_string(z) + "; reading zoom " + std::to_string(z));
            ds = std::move(candidate);
            break;
        }
    }
    errors.messages.clear();

    std::vector<LayerReader> readers(static_cast<std::size_t>(ds->GetLayerCount()));
    std::vector<bool> usable(readers.size(), false);
    flushGdal(errors.messages, "no feature");  // from opening the file
    for (int i = 0; i < ds->GetLayerCount(); ++i) {
        usable[static_cast<std::size_t>(i)] = prepareLayer(ds->GetLayer(i), readers[static_cast<std::size_t>(i)]);
        flushGdal(errors.messages, std::string("layer ") + ds->GetLayer(i)->GetName());
    }
    if (!progress(0.0)) return cancelled("cancelled while reading " + name);

    // An error (not a warning) raised while GDAL fetched features means part of the file could
    // not be read (a corrupt block ends the read early): the map is incomplete. Errors raised
    // while projecting a feature (PROJ) are that feature's own and are not counted here.
    std::string unreadable;
    const auto noteUnreadable = [&] {
        for (const GdalMessage& m : errors.messages) {
            if (m.level >= CE_Failure) unreadable = m.text;
        }
    };
    std::size_t count = 0;
    if (mOsm) {
        // One interleaved pass over every layer: reading layer by layer would parse the file
        // once per layer.
        std::vector<OGRLayer*> layers(readers.size());
        for (std::size_t i = 0; i < readers.size(); ++i) layers[i] = readers[i].layer;
        for (;;) {
            OGRLayer* layer = nullptr;
            double pct = 0.0;
            FeaturePtr f{ds->GetNextFeature(&layer, &pct, nullptr, nullptr)};
            noteUnreadable();
            // The OSM driver parses a block at a time: what it says is about the block (it names
            // a byte offset), not about the feature it hands back.
            flushGdal(errors.messages, "no feature");
            if (!f) break;
            const auto at = std::find(layers.begin(), layers.end(), layer);
            const std::size_t li = static_cast<std::size_t>(at - layers.begin());
            if (at == layers.end() || !usable[li] || readers[li].osm == OsmLayer::Other) {
                if (at != layers.end()) ++mMap.layers[readers[li].info].featuresSkipped;
                continue;
            }
            readFeature(readers[li], *f, errors.messages);
            if (++count % 4096 == 0 && !progress(pct)) return cancelled("cancelled while reading " + name);
        }
    } else {
        for (std::size_t li = 0; li < readers.size(); ++li) {
            if (!usable[li]) continue;
            OGRLayer* layer = readers[li].layer;
            layer->ResetReading();
            while (FeaturePtr f{layer->GetNextFeature()}) {
                noteUnreadable();
                readFeature(readers[li], *f, errors.messages);
                if (++count % 4096 == 0 && !progress(static_cast<double>(li) / static_cast<double>(readers.size()))) {
                    return cancelled("cancelled while reading " + name);
                }
            }
            // Said after the layer's last feature.
            noteUnreadable();
            flushGdal(errors.messages, "layer " + mMap.layers[readers[li].info].name);
        }
    }
    if (!unreadable.empty() && !mOptions.allowPartial) {
        return Error{name + ": GDAL could not read all of it (" + unreadable +
                     "); the map is incomplete (--allow-partial keeps the " + withCommas(mMap.features.size()) +
                     " features it could read)"};
    }
    (void)progress(1.0);
    // An OSM extract's box is its boundary even where ways reach beyond it; elsewhere the
    // declared extent (a tile's square, a layer's stored bounds) and the data itself count.
    if (mMap.extent.empty() || !mOsm) {
        mMap.extent.extend(mMap.featureBounds.min);
        mMap.extent.extend(mMap.featureBounds.max);
    }

    // How much a partial read kept, first among the warnings (the CLI shows only the first few).
    if (!framingProblem.empty() || !unreadable.empty()) {
        std::string partial = !framingProblem.empty()
                                  ? framingProblem + "; read only what comes before it: the first " +
                                        withCommas(complete.bytes) + " of " + withCommas(fileBytes) + " bytes (" +
                                        withCommas(complete.blocks) + " complete blocks), "
                                  : name + ": GDAL could not read all of it (" + unreadable + "); kept ";
        partial += withCommas(mMap.features.size()) + " features";
        mMap.warnings.insert(mMap.warnings.begin(), partial);
    }

    if (mMap.features.empty()) {
        std::string why = name + ": nothing usable was read";
        if (!framingProblem.empty()) {
            why += ": " + framingProblem;
        } else if (!mMap.warnings.empty()) {
            why += " (" + std::to_string(mMap.warnings.size()) + " problems; the first: " + mMap.warnings.front() + ")";
        } else {
            why += ": the file holds no features";
        }
        return Error{why};
    }
    return std::move(mMap);
}

}  // namespace

Result<MapData> readMap(const std::filesystem::path& path, const ReadOptions& options) {
    // GDAL and PROJ report through return values here, but a C++ exception (std::bad_alloc on a
    // huge file) must not leave core.
    try {
        Reader reader(path.string(), options);
        return reader.run(path);
    } catch (const std::exception& e) {
        return Error{path.string() + ": reading failed: " + e.what()};
    }
}

}  // namespace terrabit::core::io
