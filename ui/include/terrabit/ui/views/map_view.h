#pragma once
/// MapView: the map browser. Paints the map's layers in their colours from the layer rasters,
/// the overlay layer translucent on top, the tile grid at the project's zoom with quadkeys, the
/// selected tiles, and the probe tool's shapes and character. Pan with a right or middle drag,
/// the arrow keys or by dragging with Space held; zoom with the wheel or +/-. Click selects a
/// tile, Shift-click adds or removes one, a left drag selects every tile of a rectangle (with
/// Shift: adds them). With the probe tool on, clicks and drags probe instead, and W/A/S/D walk
/// the character.
///
/// Coordinates: "cells" are global cell coordinates at the project's zoom (x east, y south, one
/// unit per cell, as core::GroundFrame counts them).

#include <QHash>
#include <QImage>
#include <QPointF>
#include <QWidget>

#include <optional>

#include "terrabit/core/geometry.h"
#include "terrabit/core/project/project.h"
#include "terrabit/core/tile/tile_id.h"

namespace terrabit::ui {

class MapDocument;
class ProbeTool;

class MapView : public QWidget {
    Q_OBJECT
public:
    explicit MapView(MapDocument* document, QWidget* parent = nullptr);

    /// Lets the view drive a probe tool (clicks probe while it is active).
    void setProbeTool(ProbeTool* tool);

    /// Widget pixels to global cells and back.
    core::Vec2 widgetToCell(QPointF p) const;
    QPointF cellToWidget(core::Vec2 cell) const;
    /// The tile under a widget position at the project's zoom.
    std::optional<core::TileId> tileAt(QPointF p) const;
    /// Screen pixels per cell.
    double pixelsPerCell() const { return mPixelsPerCell; }

    /// Shows a box given in EPSG:3857 metres, with a margin.
    void fitMercator(const core::Box2& box);
    /// Shows a tile (of any zoom) and outlines it.
    void goToTile(const core::TileId& tile);
    /// Shows the whole map.
    void fitMap();
    /// Shows the selected tiles with a tile of context around them (the whole map when nothing
    /// is selected).
    void fitSelection();
    /// Bytes of the tile images kept for painting (they are kept smaller when zoomed out).
    qsizetype imageBytes() const;
    /// The view as a project stores it, and back.
    core::project::MapView viewState() const;
    void setViewState(const core::project::MapView& view);

signals:
    /// The pointer is over this point; quadkey of the tile under it at the project's zoom.
    void hovered(double lon, double lat, const QString& quadkey);
    void viewChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    const QImage& tileImage(const core::TileId& tile);
    /// True when the tile's pictures (and its overlay's) are made.
    bool hasImages(const core::TileId& tile) const;
    const QImage* overlayImage(const core::TileId& tile);
    /// Chooses the size images are kept at for tiles drawn `tilePixels` wide (dropping the
    /// cache when it changes or grows too large).
    void useImageSide(double tilePixels);
    /// An image of a tile scaled down to the kept size.
    QImage atImageSide(QImage image) const;
    void invalidateImages();
    void zoomBy(double factor, QPointF anchor);
    void panPixels(QPointF delta);
    QRectF tileRect(const core::TileId& tile) const;
    double cellsPerMercatorMetre() const;

    MapDocument* mDocument;
    ProbeTool* mProbe = nullptr;
    core::Vec2 mCentre{0, 0};      ///< cell at the widget's centre
    double mPixelsPerCell = 0.25;  ///< screen pixels per cell
    /// What to frame once the widget has a size (a map loads before the window is shown).
    enum class Fit { None, Map, Selection };
    Fit mFitPending = Fit::Map;
    void fitPending();
    QHash<quint64, QImage> mImages;
    QHash<quint64, QImage> mOverlayImages;
    int mImageSide = 256;  ///< pixels on a side of the kept images
    QString mOverlayName;

    enum class Drag { None, Pan, Select, Probe };
    Drag mDrag = Drag::None;
    QPointF mPressPos;
    QPointF mLastPos;
    bool mMoved = false;
    bool mSpaceHeld = false;
    Qt::KeyboardModifiers mPressModifiers;
    std::optional<core::TileId> mHover;
    std::optional<core::TileId> mTarget;  ///< the tile the quadkey entry went to
};

}  // namespace terrabit::ui
