// terrabit: the desktop app. `terrabit` opens the bundled sample project; `terrabit FILE` opens a
// project (.terrabit) or a map file. Everything else lives in terrabit::ui (main_window.h).

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QStandardPaths>
#include <QSurfaceFormat>

#include <filesystem>

#include "terrabit/core/io/resource_paths.h"
#include "terrabit/ui/main_window.h"

int main(int argc, char** argv) {
    // OpenSceneGraph draws with the compatibility profile: without DeprecatedFunctions, Qt turns a
    // 3.3 request into a core context and nothing is drawn. It must be set before QApplication.
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CompatibilityProfile);
    format.setOption(QSurfaceFormat::DeprecatedFunctions);
    format.setDepthBufferSize(24);
    format.setSamples(4);
    QSurfaceFormat::setDefaultFormat(format);

    QApplication app(argc, argv);
    QApplication::setOrganizationName("Terrabit");
    QApplication::setApplicationName("Terrabit");
    QApplication::setApplicationVersion("0.1.0");

    QCommandLineParser parser;
    parser.setApplicationDescription("Terrabit: turn real map data into game scenes.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("file", "A project (.terrabit) or a map file to open; none: the sample project.");
    parser.process(app);

    const auto executable = terrabit::core::io::currentExecutable(argv[0]);
    const auto resources = terrabit::core::io::findResourcesDir(executable);
    if (!resources) {
        QMessageBox::critical(nullptr, "Terrabit",
                              "The resources folder (rules, assets, sample project) was not found beside the program.");
        return 1;
    }
    terrabit::ui::MainWindowOptions options;
    options.resourcesDir = *resources;
    options.recoveryDir =
        std::filesystem::path(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation).toStdString()) /
        "recovery";
    terrabit::ui::MainWindow window(options);
    window.show();

    if (!window.offerRecovery()) {
        const QStringList args = parser.positionalArguments();
        const std::filesystem::path file = args.isEmpty() ? *resources / "projects" / "sample.terrabit"
                                                          : std::filesystem::path(args.front().toStdString());
        window.openFile(file);
    }
    return app.exec();
}
