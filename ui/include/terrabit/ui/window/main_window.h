#pragma once
/// MainWindow: Terrabit's desktop window. The map browser and the 3-D viewport side by side;
/// docks for the tile picker, the layers, the layer-expression editor, the rules and the probe
/// (their layout is kept between runs); menus and shortcuts for projects (New, Open, Save, Save
/// As, recent files, adding and removing elevation), Undo/Redo, Export and Quit; a status bar
/// with the pointer's longitude, latitude, quadkey and (on terrain) ground height, the scene's
/// figures and the running job's progress with Cancel.
/// Unsaved work is autosaved to a recovery file and offered back after a crash; closing or
/// replacing a modified project asks first.

#include <QMainWindow>
#include <QMessageBox>
#include <QTimer>

#include <filesystem>
#include <functional>
#include <memory>

class QAction;
class QLabel;
class QMenu;
class QToolButton;

namespace terrabit::ui {

class ExpressionPanel;
class LayersPanel;
class MapDocument;
class MapView;
class ProbePanel;
class ProbeTool;
class ProgressMeter;
class RecoveryStore;
class RulesPanel;
class TilePicker;
class Viewport;

struct MainWindowOptions {
    std::filesystem::path resourcesDir;  ///< rules, assets, the sample project
    std::filesystem::path recoveryDir;   ///< where autosaves go
    bool viewport = true;                ///< false: no GL viewport (widget tests on the offscreen platform)
    int autosaveSeconds = 60;            ///< 0: no timer (autosaveNow() still works)
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(MainWindowOptions options, QWidget* parent = nullptr);
    ~MainWindow() override;

    MapDocument* document() const { return mDocument; }
    MapView* mapView() const { return mMapView; }
    Viewport* viewport() const { return mViewport; }
    TilePicker* tilePicker() const { return mTilePicker; }
    LayersPanel* layersPanel() const { return mLayersPanel; }
    ExpressionPanel* expressionPanel() const { return mExpressionPanel; }
    RulesPanel* rulesPanel() const { return mRulesPanel; }
    ProbePanel* probePanel() const { return mProbePanel; }
    ProbeTool* probeTool() const { return mProbe; }
    QLabel* coordinatesLabel() const { return mCoordinates; }
    QLabel* sceneLabel() const { return mSceneLabel; }

    /// Opens a project (.terrabit) or a map file (anything else), after asking to save unsaved
    /// changes. Errors are reported to the user and leave the open project as it was.
    bool openFile(const std::filesystem::path& file);
    /// Saves to the project's file, or asks for one (always for a project of the bundled
    /// resources, such as the sample).
    bool save();
    bool saveAs(const std::filesystem::path& file);
    /// Asks whether to save unsaved changes; false when the user cancels.
    bool maybeSave();
    /// The most recent files first.
    QStringList recentFiles() const;
    /// Writes the recovery file now (when there are unsaved changes).
    bool autosaveNow();
    /// When a recovery file is waiting, asks whether to restore it and does; true when restored.
    bool offerRecovery();
    /// The About box's text.
    static QString aboutText();
    /// Sets what the document keeps of the tiles' results between bakes, MiB (0: no limit;
    /// MapDocument::setCacheBudget) and keeps it for the next sessions. Edit ▸ Memory for cached
    /// tiles… asks for it.
    void setCacheBudgetMiB(int mib);

    /// How questions are asked (tests answer them): title, text, buttons → the button chosen.
    using Prompt =
        std::function<QMessageBox::StandardButton(const QString&, const QString&, QMessageBox::StandardButtons)>;
    void setPrompt(Prompt prompt) { mPrompt = std::move(prompt); }
    /// How errors are shown (tests collect them): title, message.
    using ErrorReporter = std::function<void(const QString&, const QString&)>;
    void setErrorReporter(ErrorReporter reporter) { mReportError = std::move(reporter); }
    /// How a file name is asked for when saving (tests answer it); empty: cancelled.
    using FileChooser = std::function<QString()>;
    void setSaveFileChooser(FileChooser chooser) { mChooseSaveFile = std::move(chooser); }

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createDocks();
    void updateTitle();
    void updateSceneLabel();
    void addRecent(const QString& file);
    void rebuildRecentMenu();
    void reportError(const QString& title, const QString& message);
    void openDialog();
    void openMapDialog();
    void showExport();
    void addElevationDialog();
    void addElevationTilesDialog();
    void addOrRemoveElevation(const std::filesystem::path& dem, bool add);
    void updateElevationActions();
    void rebuildRemoveElevationMenu();
    void askCacheBudget();

    MainWindowOptions mOptions;
    MapDocument* mDocument;
    ProbeTool* mProbe;
    MapView* mMapView;
    Viewport* mViewport = nullptr;
    TilePicker* mTilePicker;
    LayersPanel* mLayersPanel;
    ExpressionPanel* mExpressionPanel;
    RulesPanel* mRulesPanel;
    ProbePanel* mProbePanel;
    QLabel* mCoordinates;
    QLabel* mSceneLabel;
    QLabel* mPickLabel;
    ProgressMeter* mProgress;
    QToolButton* mCancel;
    QMenu* mRecentMenu = nullptr;
    QMenu* mViewMenu = nullptr;
    QAction* mAddElevation = nullptr;
    QAction* mAddElevationTiles = nullptr;
    QMenu* mRemoveElevationMenu = nullptr;
    std::unique_ptr<RecoveryStore> mRecovery;
    QTimer mAutosave;
    Prompt mPrompt;
    ErrorReporter mReportError;
    FileChooser mChooseSaveFile;
};

}  // namespace terrabit::ui
