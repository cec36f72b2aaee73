#include "terrabit/core/terrain/ground_grading.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <queue>
#include <string_view>

#include "terrabit/core/tile/ground_frame.h"

namespace terrabit::core::terrain {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
/// Diffusion steps along the road graph before the grade bound: each halves a node's difference
/// from its neighbours' mean, so 16 steps smooth the DEM's kinks over about 4 cells either way
/// (its bilinear facets) without flattening real relief.
constexpr int kSmoothingSteps = 16;

bool isOneOf(std::optional<std::string_view> v, std::initializer_list<std::string_view> words) {
    return v && std::find(words.begin(), words.end(), *v) != words.end();
}

/// A tag that is present and not "no".
bool isSet(const Feature& f, std::string_view key) {
    const auto v = f.tag(key);
    return v && *v != "no";
}

std::optional<GradedKind> kindOf(const Feature& f) {
    if (f.kind == FeatureKind::Line) {
        if (f.tag("highway")) {
            if (isSet(f, "tunnel")) return std::nullopt;
            if (isBridgeWay(f)) return GradedKind::Bridge;
            // Ways for feet climb as steeply as the ground (steps, paths): not graded.
            if (isOneOf(f.tag("highway"), {"steps", "footway", "path", "pedestrian", "bridleway", "cycleway",
                                           "corridor", "elevator", "escalator", "via_ferrata", "platform"}) ||
                isOneOf(f.tag("class"), {"path"})) {
                return std::nullopt;
            }
            return GradedKind::Road;
        }
        if (isOneOf(f.tag("waterway"), {"river", "canal", "stream", "brook", "ditch", "drain"})) {
            if (isSet(f, "tunnel")) return std::nullopt;
            return GradedKind::River;
        }
        return std::nullopt;
    }
    if (f.kind != FeatureKind::Area) return std::nullopt;
    if (isOneOf(f.tag("water"), {"river", "stream", "canal", "riverbank", "oxbow", "rapids", "ditch", "drain"})) {
        return std::nullopt;
    }
    if (isOneOf(f.tag("natural"), {"water"}) || isOneOf(f.tag("landuse"), {"reservoir", "basin"}) ||
        isOneOf(f.tag("water"), {"lake", "reservoir", "pond"})) {
        return GradedKind::Lake;
    }
    return std::nullopt;
}

/// The points from a to b at most one cell apart, b included, a not.
template <class Emit>
void stepsTo(Vec2 a, Vec2 b, Emit&& emit) {
    const int n = std::max(1, static_cast<int>(std::ceil(std::hypot(b.x - a.x, b.y - a.y))));
    for (int i = 1; i < n; ++i) {
        const double t = double(i) / n;
        emit(Vec2{a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t}, false);
    }
    emit(b, true);
}

/// Ground metres per cell at a point of the map (the scale at its latitude).
double metresPerCellAt(int zoom, Vec2 mercator) {
    return GroundFrame{mercatorToLonLat(mercator), zoom}.metresPerCell();
}

struct PointKey {
    std::uint64_t x, y;
    friend bool operator==(const PointKey&, const PointKey&) = default;
};
struct PointKeyHash {
    std::size_t operator()(const PointKey& k) const {
        return std::hash<std::uint64_t>()(k.x * 0x9e3779b97f4a7c15ULL ^ k.y);
    }
};

/// A graph over the lines' points: nodes at the vertices (shared by exact position) and between.
struct Graph {
    std::vector<Vec2> cells;       ///< per node, global cells
    std::vector<float> terrain;    ///< per node, its height (NaN: none, e.g. a bridge's interior)
    std::vector<bool> hasTerrain;  ///< the node takes its terrain height (not only a bridge's interior)
    /// Edges (from, to, metres), as added; undirected for roads, directed for rivers.
    struct Edge {
        std::uint32_t from, to;
        float metres;
    };
    std::vector<Edge> edges;
    std::unordered_map<PointKey, std::uint32_t, PointKeyHash> vertexNode;

    std::uint32_t add(Vec2 cell) {
        cells.push_back(cell);
        terrain.push_back(std::numeric_limits<float>::quiet_NaN());
        hasTerrain.push_back(false);
        return static_cast<std::uint32_t>(cells.size() - 1);
    }
    std::uint32_t vertex(Vec2 cell) {
        const PointKey key{std::bit_cast<std::uint64_t>(cell.x), std::bit_cast<std::uint64_t>(cell.y)};
        if (auto it = vertexNode.find(key); it != vertexNode.end()) return it->second;
        const std::uint32_t n = add(cell);
        vertexNode.emplace(key, n);
        return n;
    }
    /// Compressed adjacency: for node v, neighbours [start[v], start[v+1]) of `next`.
    void adjacency(bool directed, std::vector<std::uint32_t>& start,
                   std::vector<std::pair<std::uint32_t, float>>& next) const {
        start.assign(cells.size() + 1, 0);
        for (const Edge& e : edges) {
            ++start[e.from + 1];
            if (!directed) ++start[e.to + 1];
        }
        for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
        next.assign(start.back(), {});
        std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
        for (const Edge& e : edges) {
            next[fill[e.from]++] = {e.to, e.metres};
            if (!directed) next[fill[e.to]++] = {e.from, e.metres};
        }
    }
};

/// The line parts of a graph: the node sequence of each part.
struct GraphLine {
    std::size_t feature = 0;
    std::vector<std::uint32_t> nodes;
    double metresPerCell = 1.0;
};

/// Adds a line part to `graph` (nodes at most one cell apart) and returns its node sequence.
/// `interiorTerrain` false: only the part's two ends take terrain heights (a bridge).
GraphLine addLine(Graph& graph, std::span<const Vec2> cells, double metresPerCell, bool interiorTerrain) {
    GraphLine line;
    line.metresPerCell = metresPerCell;
    std::uint32_t prev = graph.vertex(cells[0]);
    graph.hasTerrain[prev] = true;
    line.nodes.push_back(prev);
    for (std::size_t i = 1; i < cells.size(); ++i) {
        stepsTo(cells[i - 1], cells[i], [&](Vec2 p, bool isVertex) {
            const std::uint32_t n = isVertex ? graph.vertex(p) : graph.add(p);
            if (interiorTerrain || (isVertex && i + 1 == cells.size())) graph.hasTerrain[n] = true;
            const Vec2 d = graph.cells[n] - graph.cells[prev];
            graph.edges.push_back({prev, n, static_cast<float>(std::hypot(d.x, d.y) * metresPerCell)});
            line.nodes.push_back(n);
            prev = n;
        });
    }
    return line;
}

/// The largest function ≤ `value` at every node with a value that rises at most `grade` per
/// metre along the graph (Dijkstra from every valued node at once); +inf where no valued node
/// reaches. The smallest function ≥ value is the negation of this on −value.
std::vector<float> lowerEnvelope(const std::vector<float>& value, const std::vector<std::uint32_t>& start,
                                 const std::vector<std::pair<std::uint32_t, float>>& next, double grade) {
    std::vector<float> out(value.size(), kInf);
    using Item = std::pair<float, std::uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
    for (std::uint32_t v = 0; v < value.size(); ++v) {
        if (std::isfinite(value[v])) {
            out[v] = value[v];
            queue.push({value[v], v});
        }
    }
    while (!queue.empty()) {
        const auto [h, v] = queue.top();
        queue.pop();
        if (h > out[v]) continue;
        for (std::uint32_t k = start[v]; k < start[v + 1]; ++k) {
            const auto [w, metres] = next[k];
            const float candidate = static_cast<float>(h + grade * metres);
            if (candidate < out[w]) {
                out[w] = candidate;
                queue.push({candidate, w});
            }
        }
    }
    return out;
}

/// Even-odd inside test of a point against rings (global cells), half-open in y.
bool insideRings(const std::vector<Vec2>& cells, const std::vector<std::uint32_t>& ringEnds, Vec2 p) {
    bool inside = false;
    std::uint32_t begin = 0;
    for (const std::uint32_t end : ringEnds) {
        for (std::uint32_t i = begin, j = end - 1; i < end; j = i++) {
            const Vec2 a = cells[j], b = cells[i];
            if ((a.y <= p.y) != (b.y <= p.y)) {
                const double x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
                if (p.x < x) inside = !inside;
            }
        }
        begin = end;
    }
    return inside;
}

/// Every tile at `zoom` whose samples (corners [256 t, 256 t + 256]) may lie in `box` (global cells).
template <class Emit>
void tilesOf(const Box2& box, int zoom, Emit&& emit) {
    const double n = std::ldexp(1.0, zoom);
    const auto clampTile = [&](double v) { return static_cast<std::uint32_t>(std::clamp(v, 0.0, n - 1.0)); };
    const std::uint32_t x0 = clampTile(std::floor((box.min.x - 1.0) / kTileCells));
    const std::uint32_t x1 = clampTile(std::floor((box.max.x + 1.0) / kTileCells));
    const std::uint32_t y0 = clampTile(std::floor((box.min.y - 1.0) / kTileCells));
    const std::uint32_t y1 = clampTile(std::floor((box.max.y + 1.0) / kTileCells));
    for (std::uint32_t y = y0; y <= y1; ++y) {
        for (std::uint32_t x = x0; x <= x1; ++x) emit(TileId{zoom, x, y});
    }
}

}  // namespace

bool isBridgeWay(const Feature& f) {
    return f.kind == FeatureKind::Line && f.tag("highway") && !isSet(f, "tunnel") && isSet(f, "bridge");
}

std::vector<GradedFeature> gradedFeatures(const ClassifiedMap& map) {
    std::vector<GradedFeature> out;
    std::unordered_map<const Feature*, std::size_t> seen;
    for (const LayerEntry& e : map.entries) {
        if (!e.feature) continue;
        const std::string& layer = e.layer < map.layers.size() ? map.layers[e.layer].name : std::string();
        if (auto it = seen.find(e.feature); it != seen.end()) {
            if (it->second < out.size()) out[it->second].layers.push_back(layer);
            continue;
        }
        seen.emplace(e.feature, kindOf(*e.feature) && !e.feature->points.empty() ? out.size() : SIZE_MAX);
        const auto kind = kindOf(*e.feature);
        if (!kind || e.feature->points.empty()) continue;
        GradedFeature g;
        g.kind = *kind;
        g.id = e.feature->id;
        g.points = e.feature->points;
        g.partEnds = e.feature->partEnds;
        g.widthMetres = e.sizeMetres;
        g.layers.push_back(layer);
        out.push_back(std::move(g));
    }
    return out;
}

/// GroundGrading::build in named phases: lakes, the road graph, its smoothing and grade bound,
/// the road segments and bridge decks, the rivers, and the tiles each piece reaches. A phase
/// that samples the raw heights records the sampler's first error (failed, failure) and build()
/// stops after it.
struct GroundGrading::Builder {
    std::span<const GradedFeature> features;
    int zoom = 0;
    GradingOptions options;
    const HeightSampler& raw;
    GroundGrading g;
    GroundFrame cellsFrame{{}, 0};
    Error failure{"", ErrorKind::Internal};
    bool failed = false;

    Builder(std::span<const GradedFeature> f, int z, GradingOptions o, const HeightSampler& r)
        : features(f), zoom(z), options(o), raw(r), cellsFrame{{}, z} {
        g.mZoom = z;
    }

    /// The raw height at a global cell; NaN once the sampler failed.
    float sample(Vec2 cell) {
        if (failed) return std::numeric_limits<float>::quiet_NaN();
        auto h = raw(cell);
        if (!h) {
            failure = h.error();
            failed = true;
            return std::numeric_limits<float>::quiet_NaN();
        }
        return *h;
    }

    /// Calls each(cells, metresPerCell) for every part of a feature, in global cells.
    template <class Each>
    void partsOf(const GradedFeature& f, Each&& each) const {
        std::uint32_t begin = 0;
        for (const std::uint32_t end : f.partEnds) {
            if (end > f.points.size() || end < begin) break;
            std::vector<Vec2> cells;
            cells.reserve(end - begin);
            for (std::uint32_t i = begin; i < end; ++i) cells.push_back(cellsFrame.mercatorToCell(f.points[i]));
            if (!cells.empty()) each(cells, metresPerCellAt(zoom, f.points[begin]));
            begin = end;
        }
    }

    /// Lakes first: their levels are the rivers' heights inside them.
    void lakes() {
        for (const GradedFeature& f : features) {
            if (f.kind != GradedKind::Lake) continue;
            Lake lake;
            float level = kInf;
            partsOf(f, [&](const std::vector<Vec2>& ring, double) {
                if (ring.size() < 3) return;
                for (std::size_t i = 0; i < ring.size(); ++i) {
                    stepsTo(ring[i], ring[(i + 1) % ring.size()], [&](Vec2 p, bool) {
                        const float h = sample(p);
                        if (h == h) level = std::min(level, h);
                    });
                }
                lake.cells.insert(lake.cells.end(), ring.begin(), ring.end());
                lake.ringEnds.push_back(static_cast<std::uint32_t>(lake.cells.size()));
            });
            if (!std::isfinite(level) || lake.ringEnds.empty()) continue;
            lake.level = level;
            for (const Vec2& p : lake.cells) lake.bounds.extend(p);
            g.mLakes.push_back(std::move(lake));
        }
    }

    /// Roads and bridges as one undirected graph; their lines and widths; the nodes' terrain.
    struct RoadGraph {
        Graph graph;
        std::vector<GraphLine> roadLines, bridgeLines;
        std::vector<double> roadWidths, bridgeWidths;
    };
    void roadGraph(RoadGraph& r) {
        for (std::size_t i = 0; i < features.size(); ++i) {
            const GradedFeature& f = features[i];
            if (f.kind != GradedKind::Road && f.kind != GradedKind::Bridge) continue;
            const bool bridge = f.kind == GradedKind::Bridge;
            partsOf(f, [&](const std::vector<Vec2>& cells, double mpc) {
                if (cells.size() < 2) return;
                GraphLine line = addLine(r.graph, cells, mpc, !bridge);
                line.feature = i;
                (bridge ? r.bridgeLines : r.roadLines).push_back(std::move(line));
                (bridge ? r.bridgeWidths : r.roadWidths).push_back(f.widthMetres);
            });
        }
        for (std::size_t v = 0; v < r.graph.cells.size(); ++v) {
            if (r.graph.hasTerrain[v]) r.graph.terrain[v] = sample(r.graph.cells[v]);
        }
    }

    /// Diffusion: a node moves half way to the mean of its neighbours with a height, weighted by
    /// the inverse of the distance to each (so a road on a plane stays on it: a linear profile is
    /// a fixed point). A dead end, or a node next to a bridge, keeps its terrain height.
    static std::vector<float> smoothed(const Graph& roads, const std::vector<std::uint32_t>& start,
                                       const std::vector<std::pair<std::uint32_t, float>>& next) {
        std::vector<float> smooth = roads.terrain, step(smooth.size());
        for (int s = 0; s < kSmoothingSteps; ++s) {
            for (std::uint32_t v = 0; v < smooth.size(); ++v) {
                step[v] = smooth[v];
                if (smooth[v] != smooth[v] || start[v + 1] - start[v] < 2) continue;
                double sum = 0.0, weights = 0.0;
                bool complete = true;
                for (std::uint32_t k = start[v]; k < start[v + 1]; ++k) {
                    const float h = smooth[next[k].first];
                    const double w = 1.0 / std::max(double(next[k].second), 1e-3);
                    complete = complete && h == h;
                    sum += w * h;
                    weights += w;
                }
                if (complete) step[v] = static_cast<float>(0.5 * smooth[v] + 0.5 * sum / weights);
            }
            smooth.swap(step);
        }
        return smooth;
    }

    /// The smoothed heights bounded by the grade: the midpoint of the two Lipschitz envelopes,
    /// within kMaxCutMetres of the terrain.
    std::vector<float> gradeBounded(const Graph& roads, const std::vector<float>& smooth,
                                    const std::vector<std::uint32_t>& start,
                                    const std::vector<std::pair<std::uint32_t, float>>& next) const {
        std::vector<float> upper = lowerEnvelope(smooth, start, next, options.maxRoadGrade);
        std::vector<float> negated(smooth.size());
        std::transform(smooth.begin(), smooth.end(), negated.begin(), [](float h) { return -h; });
        // The smallest grade-bounded function above the heights is −(the largest below −heights).
        std::vector<float> negLower = lowerEnvelope(negated, start, next, options.maxRoadGrade);
        std::vector<float> graded(smooth.size(), std::numeric_limits<float>::quiet_NaN());
        for (std::size_t v = 0; v < graded.size(); ++v) {
            if (!std::isfinite(upper[v]) || !std::isfinite(negLower[v])) continue;
            graded[v] = 0.5F * (upper[v] - negLower[v]);
            // Bounded by the terrain: where it is steeper than the bound for longer than a cut or
            // fill of kMaxCutMetres can make up, the road follows it at that distance.
            const float terrain = roads.terrain[v];
            if (terrain == terrain) {
                graded[v] = std::clamp(graded[v], terrain - static_cast<float>(kMaxCutMetres),
                                       terrain + static_cast<float>(kMaxCutMetres));
            }
        }
        return graded;
    }

    void addSegments(const Graph& graph, const GraphLine& line, const std::vector<float>& h, double widthMetres,
                     bool road) {
        for (std::size_t k = 1; k < line.nodes.size(); ++k) {
            const std::uint32_t a = line.nodes[k - 1], b = line.nodes[k];
            if (!std::isfinite(h[a]) || !std::isfinite(h[b])) continue;
            g.mSegments.push_back({graph.cells[a], graph.cells[b], h[a], h[b], static_cast<float>(0.5 * widthMetres),
                                   static_cast<float>(line.metresPerCell), road});
        }
    }

    /// A bridge's deck runs linearly (by length) between its ends' graded heights: its grade is
    /// their difference over its length, within the bound since the graph's path is that long.
    void bridgeDecks(const RoadGraph& r, const std::vector<float>& graded) {
        for (std::size_t i = 0; i < r.bridgeLines.size(); ++i) {
            const GraphLine& line = r.bridgeLines[i];
            const float h0 = graded[line.nodes.front()], h1 = graded[line.nodes.back()];
            if (!std::isfinite(h0) || !std::isfinite(h1)) continue;
            BridgeProfile deck;
            deck.id = features[line.feature].id;
            deck.layers = features[line.feature].layers;
            deck.widthMetres = r.bridgeWidths[i];
            deck.metresPerCell = line.metresPerCell;
            std::vector<double> along(1, 0.0);
            for (std::size_t k = 1; k < line.nodes.size(); ++k) {
                const Vec2 d = r.graph.cells[line.nodes[k]] - r.graph.cells[line.nodes[k - 1]];
                along.push_back(along.back() + std::hypot(d.x, d.y));
            }
            const double length = along.back();
            for (std::size_t k = 0; k < line.nodes.size(); ++k) {
                const double t = length > 0.0 ? along[k] / length : 0.0;
                deck.cells.push_back(r.graph.cells[line.nodes[k]]);
                deck.heights.push_back(static_cast<float>(h0 + (h1 - h0) * t));
            }
            g.mBridges.push_back(std::move(deck));
        }
    }

    /// The road network graded (segments) and the bridges' decks.
    void roads() {
        RoadGraph r;
        roadGraph(r);
        if (failed) return;
        std::vector<std::uint32_t> start;
        std::vector<std::pair<std::uint32_t, float>> next;
        r.graph.adjacency(false, start, next);
        const std::vector<float> graded = gradeBounded(r.graph, smoothed(r.graph, start, next), start, next);
        g.mStats.roadNodes = r.graph.cells.size();
        for (std::size_t i = 0; i < r.roadLines.size(); ++i) {
            addSegments(r.graph, r.roadLines[i], graded, r.roadWidths[i], true);
        }
        bridgeDecks(r, graded);
    }

    /// Rivers: a directed graph in drawing order; a node's height is the lowest terrain height
    /// upstream of it. Nodes in increasing height (ties by index) each claim, downstream, every
    /// node no lower one reached first.
    void rivers() {
        Graph rivers;
        std::vector<GraphLine> riverLines;
        std::vector<double> riverWidths;
        for (const GradedFeature& f : features) {
            if (f.kind != GradedKind::River) continue;
            partsOf(f, [&](const std::vector<Vec2>& cells, double mpc) {
                if (cells.size() < 2) return;
                riverLines.push_back(addLine(rivers, cells, mpc, true));
                riverWidths.push_back(f.widthMetres);
            });
        }
        for (std::size_t v = 0; v < rivers.cells.size(); ++v) {
            float h = std::numeric_limits<float>::quiet_NaN();
            for (const Lake& lake : g.mLakes) {
                if (lake.bounds.contains(rivers.cells[v]) && insideRings(lake.cells, lake.ringEnds, rivers.cells[v])) {
                    h = lake.level;
                    break;
                }
            }
            rivers.terrain[v] = h == h ? h : sample(rivers.cells[v]);
        }
        if (failed) return;
        const std::vector<float> downhill = downstreamMinimum(rivers);
        for (std::size_t i = 0; i < riverLines.size(); ++i) {
            addSegments(rivers, riverLines[i], downhill, riverWidths[i], false);
        }
        g.mStats.riverNodes = rivers.cells.size();
    }

    static std::vector<float> downstreamMinimum(const Graph& rivers) {
        std::vector<std::uint32_t> start;
        std::vector<std::pair<std::uint32_t, float>> next;
        rivers.adjacency(true, start, next);
        std::vector<std::uint32_t> order;
        for (std::uint32_t v = 0; v < rivers.cells.size(); ++v) {
            if (rivers.terrain[v] == rivers.terrain[v]) order.push_back(v);
        }
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return rivers.terrain[a] < rivers.terrain[b]; });
        std::vector<float> downhill(rivers.cells.size(), std::numeric_limits<float>::quiet_NaN());
        std::vector<std::uint32_t> stack;
        for (const std::uint32_t source : order) {
            if (downhill[source] == downhill[source]) continue;
            const float h = rivers.terrain[source];
            downhill[source] = h;
            stack.assign(1, source);
            while (!stack.empty()) {
                const std::uint32_t v = stack.back();
                stack.pop_back();
                for (std::uint32_t k = start[v]; k < start[v + 1]; ++k) {
                    const std::uint32_t w = next[k].first;
                    if (downhill[w] == downhill[w]) continue;
                    downhill[w] = h;
                    stack.push_back(w);
                }
            }
        }
        return downhill;
    }

    /// Which tiles each segment and lake may reach; the statistics.
    void index() {
        for (std::uint32_t i = 0; i < g.mSegments.size(); ++i) {
            const Segment& s = g.mSegments[i];
            const double reach = (s.halfWidthMetres + kMaxShoulderMetres) / s.metresPerCell;
            Box2 box;
            box.extend(s.a);
            box.extend(s.b);
            box.min = box.min - Vec2{reach, reach};
            box.max = box.max + Vec2{reach, reach};
            tilesOf(box, zoom, [&](TileId t) { g.mSegmentsOf[t].push_back(i); });
        }
        for (std::uint32_t i = 0; i < g.mLakes.size(); ++i) {
            tilesOf(g.mLakes[i].bounds, zoom, [&](TileId t) { g.mLakesOf[t].push_back(i); });
        }
        g.mStats.segments = g.mSegments.size();
        g.mStats.lakes = g.mLakes.size();
        g.mStats.bridges = g.mBridges.size();
    }
};

Result<GroundGrading> GroundGrading::build(std::span<const GradedFeature> features, int zoom, GradingOptions options,
                                           const HeightSampler& raw) {
    if (!(options.maxRoadGrade >= 0.0) || !std::isfinite(options.maxRoadGrade)) {
        return badArguments("the steepest road grade " + std::to_string(options.maxRoadGrade) +
                            " is not a finite number >= 0");
    }
    Builder b(features, zoom, options, raw);
    b.lakes();
    if (b.failed) return b.failure;
    b.roads();
    if (b.failed) return b.failure;
    b.rivers();
    if (b.failed) return b.failure;
    b.index();
    return std::move(b.g);
}

void GroundGrading::apply(HeightTile& heights, GradingScratch& scratch) const {
    if (heights.heights.size() != kHeightSampleCount) return;
    const TileId tile = heights.tile;
    if (tile.zoom != mZoom) return;
    const double ox = double(tile.x) * kTileCells, oy = double(tile.y) * kTileCells;
    float* h = heights.heights.data();

    if (const auto it = mSegmentsOf.find(tile); it != mSegmentsOf.end()) {
        scratch.key.assign(kHeightSampleCount, kInf);
        scratch.target.assign(kHeightSampleCount, 0.0F);
        // Hot: every sample within reach of every segment near the tile. All positions are
        // global cells (exact integers for samples), so a shared edge sample gets the same bits
        // in both tiles.
        for (const std::uint32_t index : it->second) {
            const Segment& s = mSegments[index];
            const double reach = (s.halfWidthMetres + kMaxShoulderMetres) / s.metresPerCell;
            const int c0 = std::max(0, static_cast<int>(std::floor(std::min(s.a.x, s.b.x) - reach - ox)));
            const int c1 = std::min(kTileCells, static_cast<int>(std::ceil(std::max(s.a.x, s.b.x) + reach - ox)));
            const int r0 = std::max(0, static_cast<int>(std::floor(std::min(s.a.y, s.b.y) - reach - oy)));
            const int r1 = std::min(kTileCells, static_cast<int>(std::ceil(std::max(s.a.y, s.b.y) + reach - oy)));
            const Vec2 ab = s.b - s.a;
            const double len2 = ab.x * ab.x + ab.y * ab.y;
            const double reach2 = reach * reach;
            for (int r = r0; r <= r1; ++r) {
                for (int c = c0; c <= c1; ++c) {
                    const Vec2 ap = Vec2{ox + c, oy + r} - s.a;
                    const double t = len2 > 0.0 ? std::clamp((ap.x * ab.x + ap.y * ab.y) / len2, 0.0, 1.0) : 0.0;
                    const double dx = ap.x - ab.x * t, dy = ap.y - ab.y * t;
                    const double d2 = dx * dx + dy * dy;
                    if (d2 >= reach2) continue;  // most of the box: no square root
                    const float key = static_cast<float>(std::sqrt(d2) * s.metresPerCell - s.halfWidthMetres);
                    const std::size_t i = HeightTile::index(r, c);
                    if (key < scratch.key[i]) {
                        scratch.key[i] = key;
                        scratch.target[i] = static_cast<float>(s.ha + (double(s.hb) - s.ha) * t);
                    }
                }
            }
        }
        for (std::size_t i = 0; i < kHeightSampleCount; ++i) {
            const float key = scratch.key[i];
            if (!(key < kInf) || h[i] != h[i]) continue;
            const float target = scratch.target[i];
            if (key <= 0.0F) {
                h[i] = target;
                continue;
            }
            // The embankment: kEmbankmentRun metres across per metre of height.
            const float run = std::min(static_cast<float>(kEmbankmentRun) * std::abs(target - h[i]),
                                       static_cast<float>(kMaxShoulderMetres));
            if (key < run) h[i] = target + (h[i] - target) * (key / run);
        }
    }

    if (const auto it = mLakesOf.find(tile); it != mLakesOf.end()) {
        for (const std::uint32_t index : it->second) {
            const Lake& lake = mLakes[index];
            const int r0 = std::max(0, static_cast<int>(std::floor(lake.bounds.min.y - oy)));
            const int r1 = std::min(kTileCells, static_cast<int>(std::ceil(lake.bounds.max.y - oy)));
            for (int r = r0; r <= r1; ++r) {
                // Even-odd along the row: the crossings of every ring edge, half-open in y.
                const double y = oy + r;
                scratch.crossings.clear();
                std::uint32_t begin = 0;
                for (const std::uint32_t end : lake.ringEnds) {
                    for (std::uint32_t i = begin, j = end - 1; i < end; j = i++) {
                        const Vec2 a = lake.cells[j], b = lake.cells[i];
                        if ((a.y <= y) != (b.y <= y))
                            scratch.crossings.push_back(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x));
                    }
                    begin = end;
                }
                std::sort(scratch.crossings.begin(), scratch.crossings.end());
                for (std::size_t k = 0; k + 1 < scratch.crossings.size(); k += 2) {
                    const int c0 = std::max(0, static_cast<int>(std::ceil(scratch.crossings[k] - ox)));
                    const int c1 = std::min(kTileCells, static_cast<int>(std::ceil(scratch.crossings[k + 1] - ox)) - 1);
                    for (int c = c0; c <= c1; ++c) {
                        // The sample x = ox + c lies in [x0, x1): ceil bounds, checked exactly.
                        const double x = ox + c;
                        if (x < scratch.crossings[k] || x >= scratch.crossings[k + 1]) continue;
                        float& sampleHeight = h[HeightTile::index(r, c)];
                        if (sampleHeight == sampleHeight) sampleHeight = lake.level;
                    }
                }
            }
        }
    }
}

bool GroundGrading::applyDecks(HeightTile& heights) const {
    if (heights.heights.size() != kHeightSampleCount || heights.tile.zoom != mZoom || mBridges.empty()) return false;
    const TileId tile = heights.tile;
    const double ox = double(tile.x) * kTileCells, oy = double(tile.y) * kTileCells;
    // Per sample the nearest deck's distance (cells) and height; few bridges reach a tile, so
    // the scratch is only made when one does.
    std::vector<double> nearest;
    std::vector<float> deck;
    for (const BridgeProfile& b : mBridges) {
        const double half = 0.5 * b.widthMetres / b.metresPerCell;
        for (std::size_t k = 1; k < b.cells.size(); ++k) {
            const Vec2 a = b.cells[k - 1], ab = b.cells[k] - a;
            const int c0 = std::max(0, static_cast<int>(std::floor(std::min(a.x, a.x + ab.x) - half - ox)));
            const int c1 = std::min(kTileCells, static_cast<int>(std::ceil(std::max(a.x, a.x + ab.x) + half - ox)));
            const int r0 = std::max(0, static_cast<int>(std::floor(std::min(a.y, a.y + ab.y) - half - oy)));
            const int r1 = std::min(kTileCells, static_cast<int>(std::ceil(std::max(a.y, a.y + ab.y) + half - oy)));
            if (c0 > c1 || r0 > r1) continue;
            if (nearest.empty()) {
                nearest.assign(kHeightSampleCount, kInf);
                deck.assign(kHeightSampleCount, 0.0F);
            }
            const double len2 = ab.x * ab.x + ab.y * ab.y;
            for (int r = r0; r <= r1; ++r) {
                for (int c = c0; c <= c1; ++c) {
                    const Vec2 ap = Vec2{ox + c, oy + r} - a;
                    const double t = len2 > 0.0 ? std::clamp((ap.x * ab.x + ap.y * ab.y) / len2, 0.0, 1.0) : 0.0;
                    const double d = std::hypot(ap.x - ab.x * t, ap.y - ab.y * t);
                    const std::size_t i = HeightTile::index(r, c);
                    if (d > half || d >= nearest[i]) continue;
                    nearest[i] = d;
                    deck[i] = static_cast<float>(b.heights[k - 1] + (double(b.heights[k]) - b.heights[k - 1]) * t);
                }
            }
        }
    }
    bool changed = false;
    for (std::size_t i = 0; i < nearest.size(); ++i) {
        if (!(nearest[i] < kInf) || heights.heights[i] == deck[i]) continue;
        heights.heights[i] = deck[i];
        changed = true;
    }
    return changed;
}

}  // namespace terrabit::core::terrain
