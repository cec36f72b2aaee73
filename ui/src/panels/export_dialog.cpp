#include "terrabit/ui/panels/export_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "terrabit/ui/document/map_document.h"

namespace terrabit::ui {

ExportDialog::ExportDialog(MapDocument* document, QWidget* parent) : QDialog(parent), mDocument(document) {
    setWindowTitle(tr("Export scene"));
    auto* layout = new QVBoxLayout(this);
    auto* formats = new QGroupBox(tr("Formats"), this);
    auto* fl = new QVBoxLayout(formats);
    const std::pair<core::ExportFormat, QString> all[] = {
        {core::ExportFormat::Glb, tr("GLB — the whole scene as binary glTF (scene.glb)")},
        {core::ExportFormat::Tiles3d, tr("3D Tiles 1.1 — a tileset with a GLB per tile (3dtiles/)")},
        {core::ExportFormat::Manifest, tr("Manifest — instances, buildings, statistics (manifest.json)")},
        {core::ExportFormat::Layers, tr("Layers — GeoTIFF per layer and a PNG preview per tile (layers/)")},
        {core::ExportFormat::Collision, tr("Collision grid — the runtime collision file (collision.tbcg)")},
        {core::ExportFormat::Osgb,
         tr("OpenSceneGraph — the scene graph as the viewport draws it (scene.osgb and its tile groups in scene/)")},
    };
    const auto& settings = document->project().exportSettings;
    for (const auto& [format, label] : all) {
        auto* box = new QCheckBox(label, formats);
        const std::string name(core::exportFormatName(format));
        const bool on = settings.formats.empty() ? format == core::ExportFormat::Glb
                                                 : std::find(settings.formats.begin(), settings.formats.end(), name) !=
                                                       settings.formats.end();
        box->setChecked(on);
        fl->addWidget(box);
        mFormats[format] = box;
    }
    layout->addWidget(formats);
    auto* form = new QFormLayout;
    mFolder = new QLineEdit(this);
    QString folder = QString::fromStdString(settings.folder.string());
    if (folder.isEmpty()) {
        // Beside the project, unless it is the bundled sample or its folder is read-only: then
        // in the home folder.
        const auto& file = document->projectFile();
        const QFileInfo dir(QString::fromStdString(file.parent_path().string()));
        folder = file.empty() || document->isBundled(file) || !dir.isWritable()
                     ? QDir::home().filePath("terrabit-export")
                     : QString::fromStdString((file.parent_path() / (file.stem().string() + "-export")).string());
    }
    mFolder->setText(folder);
    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* row = new QHBoxLayout;
    row->addWidget(mFolder, 1);
    row->addWidget(browse);
    form->addRow(tr("Output folder"), row);
    mPlainNodes =
        new QCheckBox(tr("GLB with one node per instance (for engines without EXT_mesh_gpu_instancing)"), this);
    mPlainNodes->setChecked(settings.plainNodes);
    form->addRow(QString(), mPlainNodes);
    layout->addLayout(form);
    mProgress = new QProgressBar(this);
    mProgress->setRange(0, 1000);
    mProgress->setValue(0);
    layout->addWidget(mProgress);
    mStatus = new QLabel(this);
    mStatus->setWordWrap(true);
    mStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(mStatus);
    auto* buttons = new QDialogButtonBox(this);
    mExport = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    mCancel = buttons->addButton(QDialogButtonBox::Cancel);
    buttons->addButton(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    mCancel->setEnabled(false);

    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Output folder"), mFolder->text());
        if (!dir.isEmpty()) mFolder->setText(dir);
    });
    connect(buttons, &QDialogButtonBox::clicked, this, [this, buttons](QAbstractButton* b) {
        if (b == mExport) {
            startExport();
        } else if (b == mCancel) {
            mDocument->cancel();
        } else if (buttons->buttonRole(b) == QDialogButtonBox::RejectRole) {
            if (!mRunning) reject();
        }
    });
    connect(document, &MapDocument::progress, this, [this](double f, const QString& stage) {
        if (!mRunning) return;
        mProgress->setValue(int(f * 1000));
        mStatus->setText(stage);
    });
    connect(document, &MapDocument::exportFinished, this, [this](bool ok, const QString& message) {
        if (!mRunning) return;
        mRunning = false;
        mExport->setEnabled(true);
        mCancel->setEnabled(false);
        mProgress->setValue(ok ? 1000 : 0);
        mStatus->setText(message);
        mStatus->setStyleSheet(ok ? "color: #2e7d32" : "color: #c62828");
        emit finished(ok, message);
    });
}

QString ExportDialog::status() const { return mStatus->text(); }

bool ExportDialog::startExport() {
    core::ExportOptions options;
    std::vector<std::string> names;
    for (const auto& [format, box] : mFormats) {
        if (box->isChecked()) {
            options.formats.push_back(format);
            names.emplace_back(core::exportFormatName(format));
        }
    }
    auto fail = [this](const QString& why) {
        mStatus->setText(why);
        mStatus->setStyleSheet("color: #c62828");
        return false;
    };
    if (options.formats.empty()) return fail(tr("Choose at least one format."));
    if (mFolder->text().trimmed().isEmpty()) return fail(tr("Choose an output folder."));
    options.outDir = mFolder->text().trimmed().toStdString();
    options.plainNodes = mPlainNodes->isChecked();
    if (core::Status s = mDocument->startExport(options); !s) return fail(QString::fromStdString(s.message()));
    mDocument->setExportSettings({options.outDir, names, options.plainNodes});
    mRunning = true;
    mExport->setEnabled(false);
    mCancel->setEnabled(true);
    mProgress->setValue(0);
    mStatus->setStyleSheet({});
    mStatus->setText(tr("Exporting…"));
    return true;
}

}  // namespace terrabit::ui
