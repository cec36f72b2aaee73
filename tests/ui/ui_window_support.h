#pragma once
// The main window as the ui tests open it: the shipped resources, crash recovery in a scratch
// folder, no autosave, errors collected instead of shown.

#include <QMessageBox>
#include <QStringList>

#include <memory>

#include "terrabit/ui/window/main_window.h"
#include "ui_test_support.h"

namespace terrabit::test {

/// A main window whose errors are appended to `errors` and whose questions `prompt` answers
/// (default: Discard); with `viewport` false, without the GL viewport. Not yet shown.
inline std::unique_ptr<ui::MainWindow> makeTestWindow(const TempDir& recovery, bool viewport, QStringList& errors,
                                                      ui::MainWindow::Prompt prompt = {}) {
    ui::MainWindowOptions options;
    options.resourcesDir = resourcesDir();
    options.recoveryDir = recovery.path();
    options.viewport = viewport;
    options.autosaveSeconds = 0;
    auto window = std::make_unique<ui::MainWindow>(options);
    if (!prompt) {
        prompt = [](const QString&, const QString&, QMessageBox::StandardButtons) { return QMessageBox::Discard; };
    }
    window->setPrompt(std::move(prompt));
    window->setErrorReporter([&errors](const QString&, const QString& message) { errors << message; });
    return window;
}

}  // namespace terrabit::test
