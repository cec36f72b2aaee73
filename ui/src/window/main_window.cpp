#include "terrabit/ui/window/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QToolButton>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

#include "terrabit/core/project/project.h"
#include "terrabit/core/tile/ground_frame.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/document/recovery_store.h"
#include "terrabit/ui/panels/export_dialog.h"
#include "terrabit/ui/panels/expression_panel.h"
#include "terrabit/ui/panels/layers_panel.h"
#include "terrabit/ui/panels/probe_panel.h"
#include "terrabit/ui/panels/rules_panel.h"
#include "terrabit/ui/panels/tile_picker.h"
#include "terrabit/ui/views/map_view.h"
#include "terrabit/ui/views/probe_tool.h"
#include "terrabit/ui/views/viewport.h"
#include "terrabit/ui/window/progress_meter.h"

namespace terrabit::ui {

namespace {

constexpr int kMaxRecent = 8;
const char* const kRecentKey = "recentFiles";
/// View ▸ Every model at any distance, kept between sessions.
const char* const kEveryModelKey = "view/everyModel";
/// Edit ▸ Memory for cached tiles…, MiB, kept between sessions.
const char* const kCacheBudgetKey = "memory/cacheBudgetMiB";

/// The cache budget the last session left, bytes (MapDocument::setCacheBudget).
std::size_t savedCacheBudget() {
    const int mib = QSettings().value(kCacheBudgetKey, int(kDefaultCacheBudgetBytes >> 20)).toInt();
    return std::size_t(std::max(0, mib)) << 20;
}

bool isProjectFile(const std::filesystem::path& file) {
    return file.extension() == std::string(core::project::kProjectExtension);
}

}  // namespace

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent) : QMainWindow(parent), mOptions(std::move(options)) {
    setObjectName("TerrabitMainWindow");
    mDocument = new MapDocument(mOptions.resourcesDir, this);
    mDocument->setCacheBudget(savedCacheBudget());
    mProbe = new ProbeTool(mDocument, this);
    mRecovery = std::make_unique<RecoveryStore>(mOptions.recoveryDir);
    mPrompt = [this](const QString& title, const QString& text, QMessageBox::StandardButtons buttons) {
        return QMessageBox::question(this, title, text, buttons);
    };
    mReportError = [this](const QString& title, const QString& message) { QMessageBox::warning(this, title, message); };
    mChooseSaveFile = [this] {
        return QFileDialog::getSaveFileName(this, tr("Save project"), QString(), tr("Terrabit projects (*.terrabit)"));
    };
    const QIcon icon(QString::fromStdString((mOptions.resourcesDir / "icons" / "terrabit.svg").string()));
    setWindowIcon(icon);

    // The map browser and the viewport share the centre: 2-D to choose, 3-D to check.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setObjectName("centreSplitter");
    mMapView = new MapView(mDocument, split);
    mMapView->setProbeTool(mProbe);
    split->addWidget(mMapView);
    if (mOptions.viewport) {
        mViewport = new Viewport(mDocument, mProbe, split);
        split->addWidget(mViewport);
    }
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    setCentralWidget(split);

    createDocks();
    createActions();

    mCoordinates = new QLabel(this);
    mCoordinates->setMinimumWidth(330);
    mSceneLabel = new QLabel(this);
    mPickLabel = new QLabel(this);
    mProgress = new ProgressMeter(this);
    mProgress->setObjectName("progressMeter");
    mProgress->hide();
    mCancel = new QToolButton(this);
    mCancel->setText(tr("Cancel"));
    mCancel->hide();
    statusBar()->addWidget(mCoordinates);
    statusBar()->addWidget(mPickLabel, 1);
    statusBar()->addPermanentWidget(mSceneLabel);
    statusBar()->addPermanentWidget(mProgress);
    statusBar()->addPermanentWidget(mCancel);

    connect(mCancel, &QToolButton::clicked, mDocument, &MapDocument::cancel);
    connect(mMapView, &MapView::hovered, this, [this](double lon, double lat, const QString& quadkey) {
        QString text = tr("%1°, %2°   %3").arg(lon, 0, 'f', 6).arg(lat, 0, 'f', 6).arg(quadkey);
        if (mDocument->hasTerrain()) {
            const core::GroundFrame frame{{}, mDocument->project().zoom};
            const float h = mDocument->groundHeight(frame.lonLatToCell({lon, lat}));
            if (!std::isnan(h)) text += tr("   h %1 m").arg(double(h), 0, 'f', 1);
        }
        mCoordinates->setText(text);
    });
    // A large selection bakes nearest the middle of the map view first.
    connect(mMapView, &MapView::viewChanged, this, [this] { mDocument->setBakeFocus(mMapView->viewState().centre); });
    connect(mTilePicker, &TilePicker::goToTile, this, [this](const core::TileId& t) {
        mMapView->goToTile(t);
        if (mViewport) mViewport->flyTo(t);
    });
    if (mViewport) {
        connect(mViewport, &Viewport::buildingPicked, this, [this](const QString& text) {
            mPickLabel->setText(text.isEmpty() ? QString() : tr("Building %1").arg(text));
        });
    }
    connect(mDocument, &MapDocument::busyChanged, this, [this](bool busy) {
        mProgress->setVisible(busy);
        mCancel->setVisible(busy);
        if (!busy) mProgress->reset();
    });
    connect(mDocument, &MapDocument::progress, mProgress, &ProgressMeter::setProgress);
    connect(mDocument, &MapDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(mDocument, &MapDocument::projectFileChanged, this, [this](const QString& file) {
        if (!file.isEmpty()) addRecent(file);
        updateTitle();
    });
    connect(mDocument, &MapDocument::sceneChanged, this, &MainWindow::updateSceneLabel);
    connect(mDocument, &MapDocument::loadFailed, this,
            [this](const QString& message) { reportError(tr("Cannot open"), message); });
    connect(mDocument, &MapDocument::elevationFailed, this,
            [this](const QString& message) { reportError(tr("Cannot use the elevation"), message); });
    connect(mDocument, &MapDocument::mapLoaded, this, &MainWindow::updateElevationActions);
    connect(mDocument, &MapDocument::demsChanged, this, &MainWindow::updateElevationActions);
    connect(mDocument, &MapDocument::demsChanged, this, [this] {
        const auto& dems = mDocument->project().dems;
        QString message = dems.empty() ? tr("No elevation: the ground is flat")
                                       : tr("Elevation from %n DEM(s)", nullptr, int(dems.size()));
        if (const auto report = mDocument->terrainReport(); report.tilesWithoutHeight > 0) {
            message += tr("; %n tile(s) partly without height (flat there)", nullptr, int(report.tilesWithoutHeight));
        }
        statusBar()->showMessage(message, 15000);
    });
    connect(mDocument, &MapDocument::bakeFailed, this,
            [this](const QString& message) { statusBar()->showMessage(tr("Bake failed: %1").arg(message), 15000); });

    if (mOptions.autosaveSeconds > 0) {
        mAutosave.setInterval(mOptions.autosaveSeconds * 1000);
        connect(&mAutosave, &QTimer::timeout, this, &MainWindow::autosaveNow);
        mAutosave.start();
    }

    resize(1400, 880);
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    rebuildRecentMenu();
    updateTitle();
    updateSceneLabel();
    updateElevationActions();
}

MainWindow::~MainWindow() {
    // Stop the worker before the widgets that listen to it go.
    mDocument->cancel();
    mDocument->waitIdle();
    // The document is a child and outlives this class's part of the object: its last signals
    // must not reach MainWindow's slots (undefined behaviour, found by UBSan).
    mDocument->disconnect(this);
    mProbe->disconnect(this);
}

// -- layout -------------------------------------------------------------------------------------------

void MainWindow::createDocks() {
    auto dock = [this](QWidget* w, const QString& title, const QString& name, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);  // restoreState finds docks by name
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    mTilePicker = new TilePicker(mDocument, this);
    mLayersPanel = new LayersPanel(mDocument, this);
    mExpressionPanel = new ExpressionPanel(mDocument, this);
    mRulesPanel = new RulesPanel(mDocument, this);
    mProbePanel = new ProbePanel(mProbe, this);
    auto* tiles = dock(mTilePicker, tr("Tiles"), "tilesDock", Qt::LeftDockWidgetArea);
    auto* layers = dock(mLayersPanel, tr("Layers"), "layersDock", Qt::LeftDockWidgetArea);
    auto* expr = dock(mExpressionPanel, tr("Layer expression"), "expressionDock", Qt::RightDockWidgetArea);
    auto* rules = dock(mRulesPanel, tr("Rules"), "rulesDock", Qt::RightDockWidgetArea);
    auto* probe = dock(mProbePanel, tr("Collision probe"), "probeDock", Qt::RightDockWidgetArea);
    splitDockWidget(tiles, layers, Qt::Vertical);
    // Split before tabifying: splitting a tabbed dock takes it out of its tab group.
    splitDockWidget(expr, rules, Qt::Vertical);
    tabifyDockWidget(rules, probe);
    rules->raise();
    // Probing shows its answers in the probe dock: bring it to the front of its tab group.
    connect(mProbe, &ProbeTool::activeChanged, probe, [probe](bool on) {
        if (on) {
            probe->show();
            probe->raise();
        }
    });
    resizeDocks({tiles, expr}, {350, 380}, Qt::Horizontal);
    resizeDocks({tiles, layers}, {300, 420}, Qt::Vertical);
    resizeDocks({expr, rules}, {330, 470}, Qt::Vertical);
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* newAction = file->addAction(tr("&New project"), this, [this] {
        if (maybeSave()) {
            mDocument->newProject();
            mRecovery->clear();
        }
    });
    newAction->setShortcut(QKeySequence::New);
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
    file->addAction(tr("Open &map…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, &MainWindow::openMapDialog);
    mRecentMenu = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, [this] { save(); });
    file->addAction(tr("Save &as…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] {
        const QString f = mChooseSaveFile();
        if (!f.isEmpty()) saveAs(f.toStdString());
    });
    file->addSeparator();
    // Elevation needs a map to stand under: the entries are off until one is open.
    mAddElevation = file->addAction(tr("Add &elevation…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this,
                                    &MainWindow::addElevationDialog);
    mAddElevation->setObjectName("addElevationAction");
    mAddElevationTiles = file->addAction(tr("Add elevation &tiles…"), this, &MainWindow::addElevationTilesDialog);
    mAddElevationTiles->setObjectName("addElevationTilesAction");
    mRemoveElevationMenu = file->addMenu(tr("Remo&ve elevation"));
    mRemoveElevationMenu->setObjectName("removeElevationMenu");
    connect(mRemoveElevationMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRemoveElevationMenu);
    file->addSeparator();
    file->addAction(tr("&Export…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, &MainWindow::showExport);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setMenuRole(QAction::QuitRole);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = mDocument->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    QAction* redo = mDocument->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    // Shortcuts work wherever the focus is in the window, docks included.
    undo->setShortcutContext(Qt::WindowShortcut);
    redo->setShortcutContext(Qt::WindowShortcut);
    edit->addAction(undo);
    edit->addAction(redo);
    addAction(undo);
    addAction(redo);
    edit->addSeparator();
    edit->addAction(tr("Re-&bake"), QKeySequence(Qt::Key_F5), mDocument, &MapDocument::rebake);
    edit->addAction(tr("&Cancel the running job"), QKeySequence(Qt::CTRL | Qt::Key_Period), mDocument,
                    &MapDocument::cancel);
    // Ctrl+A anywhere but in a text field (which keeps it for its text): the map view's gesture.
    QAction* selectAll =
        edit->addAction(tr("Select &all tiles"), QKeySequence::SelectAll, mDocument, &MapDocument::selectAllTiles);
    selectAll->setObjectName("selectAllTilesAction");
    selectAll->setToolTip(tr("Select every tile with content at the project's zoom"));
    edit->addAction(tr("Clear the &selection"), this, [this] { mDocument->setSelection({}); });
    edit->addSeparator();
    QAction* budget = edit->addAction(tr("&Memory for cached tiles…"), this, &MainWindow::askCacheBudget);
    budget->setObjectName("cacheBudgetAction");
    budget->setToolTip(tr("How much the app keeps of the tiles' results for quick re-bakes"));

    mViewMenu = menuBar()->addMenu(tr("&View"));
    mViewMenu->addAction(tr("&Fit the map"), QKeySequence(Qt::CTRL | Qt::Key_0), mMapView, &MapView::fitMap);
    mViewMenu->addAction(tr("Show the selected &tiles"), QKeySequence(Qt::CTRL | Qt::Key_1), mMapView,
                         &MapView::fitSelection);
    if (mViewport) {
        mViewMenu->addAction(tr("Frame the &scene"), mViewport, &Viewport::home);
        // Distance levels keep a whole region fluid; a close look far off, or a picture, may
        // want every model. Kept between sessions.
        QAction* everyModel = mViewMenu->addAction(tr("Every model at any &distance"));
        everyModel->setObjectName("everyModelAction");
        everyModel->setCheckable(true);
        everyModel->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
        everyModel->setToolTip(
            tr("Draw every model at any distance instead of boxes and thinned plants far off "
               "(slower on large selections)"));
        everyModel->setChecked(QSettings().value(kEveryModelKey, false).toBool());
        mViewport->setEveryModel(everyModel->isChecked());
        connect(everyModel, &QAction::toggled, this, [this](bool on) {
            mViewport->setEveryModel(on);
            QSettings().setValue(kEveryModelKey, on);
        });
    }
    mViewMenu->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) mViewMenu->addAction(d->toggleViewAction());

    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* probe = tools->addAction(tr("&Probe collision"));
    probe->setCheckable(true);
    probe->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    connect(probe, &QAction::toggled, mProbe, &ProbeTool::setActive);
    connect(mProbe, &ProbeTool::activeChanged, probe, &QAction::setChecked);
    QAction* walk = tools->addAction(tr("&Walk mode"));
    walk->setCheckable(true);
    walk->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
    connect(walk, &QAction::toggled, mProbe, &ProbeTool::setWalking);
    connect(mProbe, &ProbeTool::walkingChanged, walk, &QAction::setChecked);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Terrabit"), this,
                    [this] { QMessageBox::about(this, tr("About Terrabit"), aboutText()); });
}

void MainWindow::askCacheBudget() {
    auto* dialog = new QInputDialog(this);
    dialog->setObjectName("cacheBudgetDialog");
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Memory for cached tiles"));
    QString text =
        tr("What the app keeps of the tiles' results, so that a rule edit re-bakes only what it affects.\n"
           "The tiles nearest the middle of the map browser keep theirs; farther ones are computed\n"
           "again, the same, when a re-bake needs them. Applies from the next bake.");
    if (mDocument->scene()) {
        // What the budget in force did, so the user sees what a change would change.
        const core::placement::BakeReport& r = mDocument->bakeReport();
        const QLocale locale;
        text += tr("\n\nTiles whose results the last bake kept: %1 (%2 MiB). Tiles a re-bake computes again: %3.")
                    .arg(locale.toString(qulonglong(r.cachedTiles)))
                    .arg(locale.toString(double(r.cachedBytes) / double(1 << 20), 'f', 1))
                    .arg(locale.toString(qulonglong(r.droppedTiles)));
    }
    dialog->setLabelText(text);
    dialog->setInputMode(QInputDialog::IntInput);
    dialog->setIntRange(0, 1 << 20);
    dialog->setIntStep(64);
    dialog->setIntValue(int(mDocument->cacheBudget() >> 20));
    if (auto* spin = dialog->findChild<QSpinBox*>()) {
        spin->setSuffix(tr(" MiB"));
        spin->setSpecialValueText(tr("no limit"));
    }
    connect(dialog, &QInputDialog::intValueSelected, this, &MainWindow::setCacheBudgetMiB);
    dialog->open();
}

void MainWindow::setCacheBudgetMiB(int mib) {
    mib = std::max(0, mib);
    mDocument->setCacheBudget(std::size_t(mib) << 20);
    QSettings().setValue(kCacheBudgetKey, mib);
}

QString MainWindow::aboutText() {
    return tr("<h3>Terrabit %1</h3>"
              "<p>Turns real map data into game scenes: bit layers per tile, layer expressions, rule-based "
              "placement of buildings and vegetation, collision probes and export to game engines.</p>"
              "<p>Map data © OpenStreetMap contributors, ODbL 1.0 "
              "(<a href='https://www.openstreetmap.org/copyright'>openstreetmap.org/copyright</a>).</p>"
              "<p>Built with Qt, OpenSceneGraph and GDAL.</p>")
        .arg(QApplication::applicationVersion().isEmpty() ? QString("0.1") : QApplication::applicationVersion());
}

void MainWindow::updateTitle() {
    const auto& file = mDocument->projectFile();
    const QString name = file.empty() ? (mDocument->hasMap() ? tr("Untitled") : tr("No project"))
                                      : QString::fromStdString(file.filename().string());
    setWindowTitle(name + "[*] — Terrabit");
    setWindowModified(mDocument->modified());
}

void MainWindow::updateSceneLabel() {
    const auto scene = mDocument->scene();
    if (!scene || scene->tiles.empty()) {
        mSceneLabel->setText(mDocument->hasMap() ? tr("select tiles to bake") : QString());
        return;
    }
    const auto& s = scene->statistics;
    const double covered =
        s.footprintCells > 0 ? 100.0 * double(s.footprintCellsCovered) / double(s.footprintCells) : 0.0;
    mSceneLabel->setText(tr("%1 tiles · %2 buildings placed, %3 generated, %4 blocked · %5 % of footprints covered · "
                            "%6 plants · %7 ms")
                             .arg(scene->tiles.size())
                             .arg(s.buildingsPlaced)
                             .arg(s.buildingsGenerated)
                             .arg(s.buildingsBlocked)
                             .arg(covered, 0, 'f', 1)
                             .arg(s.vegetationInstances)
                             .arg(mDocument->bakeReport().milliseconds, 0, 'f', 0));
}

void MainWindow::reportError(const QString& title, const QString& message) { mReportError(title, message); }

// -- files --------------------------------------------------------------------------------------------

bool MainWindow::maybeSave() {
    if (!mDocument->modified()) return true;
    const auto answer =
        mPrompt(tr("Unsaved changes"), tr("The project has changes that are not saved. Save them first?"),
                QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Save) return save();
    return true;
}

bool MainWindow::openFile(const std::filesystem::path& file) {
    if (!maybeSave()) return false;
    core::Status s = isProjectFile(file) ? mDocument->openProject(file) : mDocument->openMap(file);
    if (!s) {
        reportError(tr("Cannot open"), QString::fromStdString(s.message()));
        return false;
    }
    mRecovery->clear();
    addRecent(QString::fromStdString(std::filesystem::absolute(file).string()));
    return true;
}

void MainWindow::openDialog() {
    const QString f = QFileDialog::getOpenFileName(this, tr("Open"), QString(),
                                                   tr("Projects and maps (*.terrabit *.pbf *.osm *.gpkg *.shp "
                                                      "*.geojson *.json *.fgb *.mbtiles *.mvt);;All files (*)"));
    if (!f.isEmpty()) openFile(f.toStdString());
}

void MainWindow::openMapDialog() {
    const QString f = QFileDialog::getOpenFileName(
        this, tr("Open map"), QString(),
        tr("Maps (*.pbf *.osm *.gpkg *.shp *.geojson *.json *.fgb *.mbtiles *.mvt);;All files (*)"));
    if (!f.isEmpty()) openFile(f.toStdString());
}

bool MainWindow::save() {
    // The bundled sample is a starting point, not a file to change (and read-only once
    // installed): saving it asks where to put the copy.
    if (mDocument->projectFile().empty() || mDocument->isBundled(mDocument->projectFile())) {
        const QString f = mChooseSaveFile();
        if (f.isEmpty()) return false;
        return saveAs(f.toStdString());
    }
    return saveAs(mDocument->projectFile());
}

bool MainWindow::saveAs(const std::filesystem::path& requested) {
    std::filesystem::path file = requested;
    if (file.extension().empty()) file += std::string(core::project::kProjectExtension);
    if (mViewport)
        mDocument->setViewState(mViewport->cameraState(), mMapView->viewState());
    else
        mDocument->setViewState(mDocument->project().camera, mMapView->viewState());
    if (core::Status s = mDocument->saveProject(file); !s) {
        reportError(tr("Cannot save"), QString::fromStdString(s.message()));
        return false;
    }
    mRecovery->clear();
    statusBar()->showMessage(tr("Saved %1").arg(QString::fromStdString(file.string())), 5000);
    return true;
}

QStringList MainWindow::recentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::addRecent(const QString& file) {
    QSettings settings;
    QStringList list = settings.value(kRecentKey).toStringList();
    list.removeAll(file);
    list.prepend(file);
    while (list.size() > kMaxRecent) list.removeLast();
    settings.setValue(kRecentKey, list);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!mRecentMenu) return;
    mRecentMenu->clear();
    const QStringList list = recentFiles();
    for (int i = 0; i < list.size(); ++i) {
        const QString f = list[i];
        QAction* a = mRecentMenu->addAction(QString("&%1 %2").arg(i + 1).arg(QFileInfo(f).fileName()), this,
                                            [this, f] { openFile(f.toStdString()); });
        a->setToolTip(f);
    }
    mRecentMenu->setEnabled(!list.isEmpty());
}

bool MainWindow::autosaveNow() {
    if (!mDocument->modified() || !mDocument->hasMap()) return false;
    core::project::Project p = mDocument->currentProject();
    p.mapView = mMapView->viewState();
    if (mViewport) p.camera = mViewport->cameraState();
    if (core::Status s = mRecovery->save(p, mDocument->projectFile()); !s) {
        statusBar()->showMessage(tr("Autosave failed: %1").arg(QString::fromStdString(s.message())), 10000);
        return false;
    }
    return true;
}

bool MainWindow::offerRecovery() {
    if (!mRecovery->exists()) return false;
    auto recovered = mRecovery->load();
    if (!recovered) {
        mRecovery->clear();
        return false;
    }
    const auto& [project, origin] = *recovered;
    const QString name = origin.empty() ? tr("an untitled project") : QString::fromStdString(origin.string());
    const auto answer =
        mPrompt(tr("Recover unsaved work"),
                tr("Terrabit did not close properly last time. Restore the unsaved changes to %1?").arg(name),
                QMessageBox::Yes | QMessageBox::No);
    if (answer != QMessageBox::Yes) {
        mRecovery->clear();
        return false;
    }
    if (core::Status s = mDocument->openProjectData(project, origin, true); !s) {
        reportError(tr("Cannot recover"), QString::fromStdString(s.message()));
        return false;
    }
    return true;
}

// -- elevation ----------------------------------------------------------------------------------------

void MainWindow::updateElevationActions() {
    const bool map = mDocument->hasMap();
    mAddElevation->setEnabled(map);
    mAddElevationTiles->setEnabled(map);
    mRemoveElevationMenu->setEnabled(map && !mDocument->project().dems.empty());
    rebuildRemoveElevationMenu();
}

void MainWindow::rebuildRemoveElevationMenu() {
    mRemoveElevationMenu->clear();
    for (const std::filesystem::path& dem : mDocument->project().dems) {
        const QString name = QString::fromStdString(dem.string());
        QAction* a = mRemoveElevationMenu->addAction(QString::fromStdString(dem.filename().string()), this,
                                                     [this, dem] { addOrRemoveElevation(dem, false); });
        a->setToolTip(name);
    }
}

void MainWindow::addOrRemoveElevation(const std::filesystem::path& dem, bool add) {
    const core::Status s = add ? mDocument->addElevation(dem) : mDocument->removeElevation(dem);
    if (!s)
        reportError(add ? tr("Cannot add the elevation") : tr("Cannot remove the elevation"),
                    QString::fromStdString(s.message()));
}

void MainWindow::addElevationDialog() {
    const QString f = QFileDialog::getOpenFileName(
        this, tr("Add elevation"), QString(), tr("Elevation rasters (*.tif *.tiff *.hgt *.vrt *.asc);;All files (*)"));
    if (!f.isEmpty()) addOrRemoveElevation(f.toStdString(), true);
}

void MainWindow::addElevationTilesDialog() {
    // A tile set's heights are colours: its encoding has to be named (io::DemReader).
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Add elevation tiles"));
    auto* form = new QFormLayout(&dialog);
    auto* encoding = new QComboBox(&dialog);
    encoding->addItem(tr("Terrarium (Mapzen, AWS terrain tiles)"), "terrarium:");
    encoding->addItem(tr("Terrain-RGB (Mapbox)"), "terrain-rgb:");
    form->addRow(tr("Encoding"), encoding);
    auto* path = new QLineEdit(&dialog);
    path->setPlaceholderText(tr("a z/x/y folder of PNG or WebP tiles, or an .mbtiles file"));
    path->setMinimumWidth(360);
    auto* row = new QHBoxLayout;
    row->addWidget(path, 1);
    auto* folder = new QPushButton(tr("Folder…"), &dialog);
    auto* mbtiles = new QPushButton(tr("MBTiles…"), &dialog);
    row->addWidget(folder);
    row->addWidget(mbtiles);
    form->addRow(tr("Tiles"), row);
    connect(folder, &QPushButton::clicked, &dialog, [&dialog, path] {
        const QString d = QFileDialog::getExistingDirectory(&dialog, tr("Elevation tile folder"));
        if (!d.isEmpty()) path->setText(d);
    });
    connect(mbtiles, &QPushButton::clicked, &dialog, [&dialog, path] {
        const QString f = QFileDialog::getOpenFileName(&dialog, tr("Elevation tiles"), QString(),
                                                       tr("MBTiles (*.mbtiles);;All files (*)"));
        if (!f.isEmpty()) path->setText(f);
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted || path->text().trimmed().isEmpty()) return;
    addOrRemoveElevation((encoding->currentData().toString() + path->text().trimmed()).toStdString(), true);
}

void MainWindow::showExport() {
    if (!mDocument->scene() || mDocument->scene()->tiles.empty()) {
        reportError(tr("Nothing to export"),
                    tr("Select tiles in the map first: the selection is what is baked and exported."));
        return;
    }
    ExportDialog dialog(mDocument, this);
    dialog.exec();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    mRecovery->clear();  // a clean exit leaves nothing to recover
    event->accept();
}

}  // namespace terrabit::ui
