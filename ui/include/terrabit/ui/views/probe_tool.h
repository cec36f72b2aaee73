#pragma once
/// ProbeTool: collision probes against the document's layers, as QA uses them — a point, a
/// rectangle, a triangle or a character's footprint, tested against a blocking expression, with
/// the layers under the probe listed; and a walk mode that moves a character the way the game
/// would (core::CharacterMover: blocked at contact, sliding along walls).
///
/// The grid covers the selected tiles and two tiles around them (the scene and its edges; beyond
/// that every probe is clear) and holds every layer of MapDocument::layers() plus "blocking",
/// the evaluated blocking expression. Positions are
/// global cells at the project's zoom (see MapView).
///
/// While the tool is active the grid is built on a worker thread once the layers or the
/// selection settle (copying the layers of thousands of tiles took the UI thread 80 ms on
/// monaco-region), so a probe finds it ready; a probe that comes first waits for it.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <QTimer>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "terrabit/core/collision/character_mover.h"
#include "terrabit/core/collision/collision_grid.h"
#include "terrabit/core/geometry.h"
#include "terrabit/core/result.h"

namespace terrabit::ui {

class MapDocument;

/// The shape a click probes.
enum class ProbeShape { Point, Rectangle, Triangle, Character };

/// What one probe found.
struct ProbeOutcome {
    bool blocked = false;             ///< the blocking expression is set under the probe
    QStringList layers;               ///< every layer set under the probe (base and derived), in layer order
    std::vector<core::Vec2> outline;  ///< the probed shape, global cells (a point: one vertex)
    core::Vec2 centre;                ///< where it was probed, global cells
    /// The ground height at the centre, metres above the DEMs' datum, as the probes stand on it
    /// (ProbeTool::groundHeight: on a bridge, its deck); NaN without terrain or where no DEM reaches.
    float groundHeight = std::numeric_limits<float>::quiet_NaN();
};

class ProbeTool : public QObject {
    Q_OBJECT
public:
    explicit ProbeTool(MapDocument* document, QObject* parent = nullptr);
    ~ProbeTool() override;

    /// While active, the map view's clicks probe instead of selecting tiles.
    bool active() const { return mActive; }
    void setActive(bool active);
    /// While walking, W/A/S/D (in the map or the viewport) move the character.
    bool walking() const { return mWalking; }
    void setWalking(bool walking);

    ProbeShape shape() const { return mShape; }
    void setShape(ProbeShape shape);
    /// Size of the rectangle and triangle probes and the character's width, ground metres.
    double sizeMetres() const { return mSizeMetres; }
    void setSizeMetres(double metres);
    /// Cells blocking probes and the character ("building | water | slope(>35deg)" by default:
    /// the default walkability, where the slope part is empty without terrain). An expression
    /// that does not compile is refused with its diagnostic and the old one stays.
    const QString& blockingExpression() const { return mBlocking; }
    core::Status setBlockingExpression(const QString& expression);

    /// Probes the current shape centred at a point (cells); Rectangle uses `corner` as the
    /// opposite corner when given (a drag).
    ProbeOutcome probe(core::Vec2 centre, std::optional<core::Vec2> corner = std::nullopt);
    /// Probes a point given in degrees.
    ProbeOutcome probeLonLat(double lon, double lat);
    const std::optional<ProbeOutcome>& lastProbe() const { return mLast; }

    /// Puts the character at a point (cells), without collision.
    void placeCharacter(core::Vec2 cell);
    /// Tries to move the character by a displacement in ground metres (x east, y north).
    core::MoveResult walk(core::Vec2 metres);
    /// In walk mode, moves the character for a W/A/S/D key (Qt::Key) by half a metre, what a
    /// character covers in a frame or two. False (nothing done) for other keys or when not
    /// walking, so the widget handles the key itself.
    bool walkKey(int key);
    std::optional<core::Vec2> character() const { return mCharacter; }
    const core::MoveResult& lastMove() const { return mLastMove; }
    /// The character's footprint in cells.
    core::Footprint footprint() const;
    /// The ground height at a point (global cells), metres, as the collision grid holds it (a
    /// bridge's deck, not the valley under it; MapDocument::groundHeight beyond the grid); NaN
    /// without terrain there.
    float groundHeight(core::Vec2 cell) const;
    /// Metres per cell at the map's centre (for converting sizes).
    double metresPerCell() const;
    /// The grid probes run on: the selection's layers and a margin around it, built when first
    /// needed after the document's layers or selection change (waiting for the worker's build).
    const core::CollisionGrid& grid() const;
    /// Whether the grid of the current layers and selection is built (grid() will not wait).
    bool gridReady() const { return mReadyGeneration == mGeneration; }

    /// A grid and its blocking layer (-1 when the expression does not evaluate).
    struct Grid {
        core::CollisionGrid grid;
        int blockingLayer = -1;
    };

signals:
    void activeChanged(bool active);
    void walkingChanged(bool walking);
    void probed(const terrabit::ui::ProbeOutcome& outcome);
    void characterMoved();
    /// The grid or the settings changed (the map view repaints).
    void changed();

private:
    /// The layers or the selection changed: the grid is built again, on the worker once they
    /// settle when the tool is active, else when next needed.
    void invalidate();
    /// Starts the worker's build of the current grid, unless it is built or being built.
    void startBuild();
    /// Makes mReady the current grid: waits for the worker's build of it, or builds it here.
    void ensureCurrent() const;
    /// The grid's layer of mBlocking, -1 when it does not evaluate.
    int blockingLayer() const;
    std::vector<core::Vec2> outlineOf(core::Vec2 centre, std::optional<core::Vec2> corner) const;

    MapDocument* mDocument;
    bool mActive = false;
    bool mWalking = false;
    ProbeShape mShape = ProbeShape::Point;
    double mSizeMetres = 4.0;
    QString mBlocking = "building | water | slope(>35deg)";
    // The grid: a cache of the document's layers, so const functions may build it. Generations
    // count the changes; mReady is the grid of mReadyGeneration (shown sizes use it even when
    // older), the worker builds the one of mBuildingGeneration.
    std::uint64_t mGeneration = 1;
    mutable std::uint64_t mReadyGeneration = 0;
    mutable std::shared_ptr<const Grid> mReady;
    std::uint64_t mBuildingGeneration = 0;
    QThreadPool mPool;
    mutable QFutureWatcher<std::shared_ptr<const Grid>> mBuild;
    QTimer mSettle;  ///< the build starts once the changes stop for a moment
    std::optional<ProbeOutcome> mLast;
    std::optional<core::Vec2> mCharacter;
    core::MoveResult mLastMove;
};

}  // namespace terrabit::ui
