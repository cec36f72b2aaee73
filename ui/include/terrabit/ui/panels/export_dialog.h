#pragma once
/// ExportDialog: every exporter of core::exportScene — GLB, 3D Tiles, the manifest, the layer
/// rasters, the collision grid — with the output folder and the plain-nodes option; the export
/// runs in the background with a progress bar and a Cancel button.

#include <QDialog>

#include <map>

#include "terrabit/core/export/scene_export.h"

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace terrabit::ui {

class MapDocument;

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportDialog(MapDocument* document, QWidget* parent = nullptr);

    QCheckBox* formatBox(core::ExportFormat format) const { return mFormats.at(format); }
    QLineEdit* folderEdit() const { return mFolder; }
    QCheckBox* plainNodesBox() const { return mPlainNodes; }
    QPushButton* exportButton() const { return mExport; }
    /// Stops the running export (enabled only while one runs).
    QPushButton* cancelButton() const { return mCancel; }
    QProgressBar* progressBar() const { return mProgress; }
    QString status() const;

    /// Starts the export with the dialog's settings; false (with the reason shown) when it cannot.
    bool startExport();

signals:
    void finished(bool ok, const QString& message);

private:
    MapDocument* mDocument;
    std::map<core::ExportFormat, QCheckBox*> mFormats;
    QLineEdit* mFolder;
    QCheckBox* mPlainNodes;
    QProgressBar* mProgress;
    QLabel* mStatus;
    QPushButton* mExport;
    QPushButton* mCancel;
    bool mRunning = false;
};

}  // namespace terrabit::ui
