// terrabit: the desktop app. `terrabit` opens the bundled sample project; `terrabit FILE` opens a
// project (.terrabit) or a map file; `--screenshot PNG` saves the window once it is baked. Everything else lives in
// terrabit::ui (main_window.h).

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QOpenGLContext>
#include <QStandardPaths>
#include <QSurfaceFormat>
#include <QTimer>

#include <cstdio>
#include <filesystem>

#include "terrabit/core/io/resource_paths.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/views/viewport.h"
#include "terrabit/ui/window/main_window.h"

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
    const QCommandLineOption screenshot(
        "screenshot", "Open the file, wait until it is baked, save a picture of the window to <png> and quit.", "png");
    parser.addOption(screenshot);
    parser.process(app);

    // The viewport draws with OpenGL. On a platform without it (QT_QPA_PLATFORM=offscreen, a
    // display without GLX) Qt crashes in its first repaint: say so and stop instead.
    if (QOpenGLContext probe; !probe.create()) {
        const QString message = "OpenGL is not available on this display (Qt platform '" +
                                QGuiApplication::platformName() +
                                "'): the 3D viewport needs it. Run Terrabit on a desktop session, or headless under "
                                "xvfb-run; terrabit-cli bakes and exports without a display.";
        std::fprintf(stderr, "terrabit: %s\n", qPrintable(message));
        if (!parser.isSet(screenshot) && QGuiApplication::platformName() != "offscreen" &&
            QGuiApplication::platformName() != "minimal") {
            QMessageBox::critical(nullptr, "Terrabit", message);
        }
        return 1;
    }

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

    const bool screenshotRun = parser.isSet(screenshot);
    bool failed = false;
    if (screenshotRun) {
        // Headless: no dialog may wait for an answer. Errors go to stderr and the exit code.
        window.setErrorReporter([&](const QString& title, const QString& message) {
            std::fprintf(stderr, "terrabit: %s: %s\n", qPrintable(title), qPrintable(message));
            failed = true;
        });
    }
    // A screenshot run never asks about recovery files either.
    if (screenshotRun || !window.offerRecovery()) {
        const QStringList args = parser.positionalArguments();
        const std::filesystem::path file = args.isEmpty() ? *resources / "projects" / "sample.terrabit"
                                                          : std::filesystem::path(args.front().toStdString());
        if (!window.openFile(file) && screenshotRun) return 1;
    }
    if (!screenshotRun) return app.exec();

    // Poll rather than wait on a signal: the load and the bake may have finished already.
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &app, [&] {
        const auto* document = window.document();
        if (document->busy()) return;
        // Not idle yet: between the load and the bake, or between a progressive bake's batches
        // (the last one completes the scene), or with tiles still coming into the viewport.
        const bool baking = !document->selection().empty() && document->scene() && !document->sceneComplete() &&
                            document->lastError().isEmpty();
        if (baking || (document->scene() && !window.viewport()->sceneShown())) return;
        poll.stop();
        if (failed) {
            app.exit(1);
            return;
        }
        if (!document->selection().empty() && !document->scene()) {
            std::fprintf(stderr, "terrabit: the selected tiles were not baked: %s\n",
                         qPrintable(document->lastError()));
            app.exit(1);
            return;
        }
        // Give the viewport a few frames to draw the new scene.
        QTimer::singleShot(500, &app, [&] {
            const QString file = parser.value(screenshot);
            const bool ok = window.grab().save(file);
            if (!ok) std::fprintf(stderr, "terrabit: cannot write %s\n", qPrintable(file));
            app.exit(ok ? 0 : 1);
        });
    });
    poll.start(200);
    return app.exec();
}
