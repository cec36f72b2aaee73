#include "terrabit/ui/views/probe_tool.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <QtConcurrent/QtConcurrentRun>

#include "terrabit/core/algebra/compose.h"
#include "terrabit/core/collision/collision_query.h"
#include "terrabit/ui/document/map_document.h"

namespace terrabit::ui {

namespace {

/// The tiles probes cover: the selected ones (the scene) and kProbeMargin tiles around them.
/// Not the whole map: for a city that is hundreds of thousands of tiles, gigabytes of layer
/// copies rebuilt on every layer change, and past a CollisionGrid's 65,536-tile limit.
constexpr int kProbeMargin = 2;

std::vector<core::TileId> probeTiles(const std::vector<core::TileId>& selection) {
    std::vector<core::TileId> out;
    for (const core::TileId& t : selection) {
        const std::int64_t side = std::int64_t(1) << t.zoom;
        for (int dy = -kProbeMargin; dy <= kProbeMargin; ++dy) {
            for (int dx = -kProbeMargin; dx <= kProbeMargin; ++dx) {
                const std::int64_t x = std::int64_t(t.x) + dx, y = std::int64_t(t.y) + dy;
                if (x < 0 || y < 0 || x >= side || y >= side) continue;
                out.push_back(core::TileId{t.zoom, std::uint32_t(x), std::uint32_t(y)});
            }
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// The collision grid of `layers` over the selection and its margin, on the bridges' decks, with
/// the "blocking" layer of the expression. Reads only its arguments: runs on any thread.
std::shared_ptr<const ProbeTool::Grid> buildProbeGrid(const LayerStack& layers,
                                                      const std::vector<core::TileId>& selection,
                                                      const std::string& blocking,
                                                      const MapDocument::BridgeDecker& onBridgeDecks) {
    auto out = std::make_shared<ProbeTool::Grid>();
    const std::vector<core::TileId> tiles = probeTiles(selection);
    if (tiles.empty()) return out;
    std::vector<std::string> names = layers.layerNames();
    if (names.size() > static_cast<std::size_t>(core::kMaxCollisionLayers - 1)) {
        names.resize(static_cast<std::size_t>(core::kMaxCollisionLayers - 1));
    }
    // On the bridges' decks, as the exported collision grid: a character crossing a bridge stays
    // on it instead of dropping into the valley under it.
    const std::unique_ptr<core::LayerSource> decked = onBridgeDecks ? onBridgeDecks(layers, tiles) : nullptr;
    const core::LayerSource& standing = decked ? *decked : static_cast<const core::LayerSource&>(layers);
    auto grid = core::CollisionGrid::build(standing, tiles, names);
    if (!grid) return out;
    out->grid = std::move(*grid);
    auto mask = core::algebra::compose(layers, tiles, blocking);
    if (mask) {
        std::unordered_map<core::TileId, std::size_t> slot;
        for (std::size_t i = 0; i < tiles.size(); ++i) slot[tiles[i]] = i;
        const auto& masks = mask->masks;
        auto id = out->grid.addLayer("blocking", [&](const core::TileId& t) -> const core::BitTile* {
            const auto it = slot.find(t);
            return it == slot.end() ? nullptr : &masks[it->second];
        });
        if (id) out->blockingLayer = *id;
    }
    return out;
}

/// How long the layers and the selection must stay unchanged before the worker builds.
constexpr int kSettleMs = 150;

}  // namespace

ProbeTool::ProbeTool(MapDocument* document, QObject* parent) : QObject(parent), mDocument(document) {
    mPool.setMaxThreadCount(1);
    mSettle.setSingleShot(true);
    mSettle.setInterval(kSettleMs);
    connect(&mSettle, &QTimer::timeout, this, &ProbeTool::startBuild);
    connect(&mBuild, &QFutureWatcherBase::finished, this, [this] {
        // The build of the current generation, unless grid() already waited for it.
        if (mBuildingGeneration != mGeneration || gridReady()) return;
        mReady = mBuild.result();
        mReadyGeneration = mBuildingGeneration;
        emit changed();
    });
    connect(document, &MapDocument::layersChanged, this, &ProbeTool::invalidate);
    connect(document, &MapDocument::selectionChanged, this, &ProbeTool::invalidate);
    connect(document, &MapDocument::mapLoaded, this, [this] {
        mCharacter.reset();
        mLast.reset();
        invalidate();
    });
    invalidate();
}

ProbeTool::~ProbeTool() {
    mSettle.stop();
    mBuild.waitForFinished();  // its copies of the layers go with it
}

void ProbeTool::setActive(bool active) {
    if (active == mActive) return;
    mActive = active;
    if (active) startBuild();
    if (!active) setWalking(false);
    emit activeChanged(active);
    emit changed();
}

void ProbeTool::setWalking(bool walking) {
    if (walking == mWalking) return;
    mWalking = walking;
    if (walking && !mActive) setActive(true);
    emit walkingChanged(walking);
    emit changed();
}

void ProbeTool::setShape(ProbeShape shape) {
    mShape = shape;
    emit changed();
}

void ProbeTool::setSizeMetres(double metres) {
    if (metres > 0.0 && std::isfinite(metres)) mSizeMetres = metres;
    emit changed();
}

core::Status ProbeTool::setBlockingExpression(const QString& expression) {
    if (mDocument->hasMap() && !mDocument->layers().tiles().empty()) {
        // Compiled on one tile first: a typo is refused before the grid is touched.
        const core::TileId first = mDocument->layers().tiles().front();
        auto check = core::algebra::compose(mDocument->layers(), std::span<const core::TileId>(&first, 1),
                                            expression.toStdString());
        if (!check) return check.error();
    }
    mBlocking = expression;
    invalidate();
    return core::Status::success();
}

void ProbeTool::invalidate() {
    // Not built here: a selection of thousands of tiles would copy every layer of them at each
    // change. An active tool builds on the worker once the changes settle.
    ++mGeneration;
    if (mActive) mSettle.start();
    emit changed();
}

void ProbeTool::startBuild() {
    if (gridReady() || (mBuild.isRunning() && mBuildingGeneration == mGeneration)) return;
    mSettle.stop();
    mBuildingGeneration = mGeneration;
    // Copies: the stack shares its bits, and the decker holds the map's session.
    mBuild.setFuture(QtConcurrent::run(
        &mPool, [layers = mDocument->layers(), selection = mDocument->selection(), blocking = mBlocking.toStdString(),
                 decker = mDocument->bridgeDecker()] { return buildProbeGrid(layers, selection, blocking, decker); }));
}

void ProbeTool::ensureCurrent() const {
    if (gridReady()) return;
    if (mBuildingGeneration == mGeneration) {  // running, or done with its signal still queued
        mBuild.waitForFinished();
        mReady = mBuild.result();
    } else {
        mReady = mDocument->hasMap() ? buildProbeGrid(mDocument->layers(), mDocument->selection(),
                                                      mBlocking.toStdString(), mDocument->bridgeDecker())
                                     : std::make_shared<const Grid>();
    }
    mReadyGeneration = mGeneration;
}

const core::CollisionGrid& ProbeTool::grid() const {
    ensureCurrent();
    return mReady->grid;
}

int ProbeTool::blockingLayer() const {
    ensureCurrent();
    return mReady->blockingLayer;
}

double ProbeTool::metresPerCell() const {
    // Sizes as drawn: the last grid built serves (the scale changes little with the selection),
    // so a repaint after a change does not wait for the new one.
    if (!mReady) ensureCurrent();
    const core::CollisionGrid& g = mReady->grid;
    if (g.layerCount() == 0) return 1.0;
    const core::GroundFrame frame{{}, g.zoom()};
    const core::Vec2 centre{double(g.cellX0()) + double(g.cellWidth()) / 2,
                            double(g.cellY0()) + double(g.cellHeight()) / 2};
    return core::metresPerCell(frame.cellToLonLat(centre).lat, g.zoom());
}

core::Footprint ProbeTool::footprint() const { return core::Footprint::disk(mSizeMetres / 2.0 / metresPerCell()); }

std::vector<core::Vec2> ProbeTool::outlineOf(core::Vec2 c, std::optional<core::Vec2> corner) const {
    const double half = mSizeMetres / 2.0 / metresPerCell();
    switch (mShape) {
        case ProbeShape::Point:
            return {c};
        case ProbeShape::Rectangle: {
            const core::Vec2 a = corner ? c : core::Vec2{c.x - half, c.y - half};
            const core::Vec2 b = corner ? *corner : core::Vec2{c.x + half, c.y + half};
            const double x0 = std::min(a.x, b.x), x1 = std::max(a.x, b.x);
            const double y0 = std::min(a.y, b.y), y1 = std::max(a.y, b.y);
            return {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
        }
        case ProbeShape::Triangle:
            // Pointing north (y grows south): apex above the centre.
            return {{c.x, c.y - half}, {c.x + half * 0.866, c.y + half * 0.5}, {c.x - half * 0.866, c.y + half * 0.5}};
        case ProbeShape::Character: {
            std::vector<core::Vec2> ring;
            for (int i = 0; i < 16; ++i) {
                const double a = i * 3.14159265358979323846 / 8.0;
                ring.push_back({c.x + half * std::cos(a), c.y + half * std::sin(a)});
            }
            return ring;
        }
    }
    return {c};
}

float ProbeTool::groundHeight(core::Vec2 cell) const {
    // What the probes stand on: the collision grid's heights (on a bridge, its deck) where it has
    // them, the document's ground elsewhere.
    const core::CollisionGrid& g = grid();
    if (g.hasHeights()) {
        const float h = g.groundHeight(cell);
        if (h == h) return h;
    }
    return mDocument->groundHeight(cell);
}

ProbeOutcome ProbeTool::probe(core::Vec2 centre, std::optional<core::Vec2> corner) {
    ProbeOutcome out;
    out.centre = centre;
    out.groundHeight = groundHeight(centre);
    out.outline = outlineOf(centre, corner);
    if (grid().layerCount() > 0) {
        core::CollisionQuery query(grid());
        core::ProbeResult r;
        const auto& o = out.outline;
        switch (mShape) {
            case ProbeShape::Point:
                r = query.point(centre);
                break;
            case ProbeShape::Rectangle: {
                core::Box2 box;
                for (const core::Vec2& p : o) box.extend(p);
                r = query.rectangle(box);
                break;
            }
            case ProbeShape::Triangle:
                r = query.triangle(o[0], o[1], o[2]);
                break;
            case ProbeShape::Character:
                r = query.disk(centre, mSizeMetres / 2.0 / metresPerCell());
                break;
        }
        out.blocked = blockingLayer() >= 0 && ((r.layers >> blockingLayer()) & 1u);
        for (int i = 0; i < grid().layerCount(); ++i) {
            if (i != blockingLayer() && ((r.layers >> i) & 1u))
                out.layers << QString::fromStdString(grid().layerNames()[i]);
        }
    }
    mLast = out;
    emit probed(out);
    emit changed();
    return out;
}

ProbeOutcome ProbeTool::probeLonLat(double lon, double lat) {
    const core::GroundFrame frame{{}, grid().layerCount() ? grid().zoom() : mDocument->project().zoom};
    return probe(frame.lonLatToCell({lon, lat}));
}

void ProbeTool::placeCharacter(core::Vec2 cell) {
    mCharacter = cell;
    mLastMove = core::MoveResult{};
    mLastMove.position = cell;
    emit characterMoved();
    emit changed();
}

bool ProbeTool::walkKey(int key) {
    if (!mWalking) return false;
    constexpr double kStep = 0.5;  // metres
    switch (key) {
        case Qt::Key_W:
            walk({0, kStep});
            return true;
        case Qt::Key_S:
            walk({0, -kStep});
            return true;
        case Qt::Key_A:
            walk({-kStep, 0});
            return true;
        case Qt::Key_D:
            walk({kStep, 0});
            return true;
        default:
            return false;
    }
}

core::MoveResult ProbeTool::walk(core::Vec2 metres) {
    if (!mCharacter || blockingLayer() < 0) return mLastMove;
    const double mpc = metresPerCell();
    // Ground metres are north-up; cells grow south.
    const core::Vec2 displacement{metres.x / mpc, -metres.y / mpc};
    core::CharacterMover mover(grid());
    mLastMove = mover.move(*mCharacter, displacement, footprint(), std::uint64_t{1} << blockingLayer());
    mCharacter = mLastMove.position;
    emit characterMoved();
    emit changed();
    return mLastMove;
}

}  // namespace terrabit::ui
