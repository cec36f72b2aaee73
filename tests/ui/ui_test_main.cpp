// The ui test executables' main: one QApplication for all tests, created after GoogleTest has
// read its flags (listing tests needs no display). Settings and standard paths go to a test
// location so tests never touch a user's settings.

#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QSurfaceFormat>

#include "ui_test_support.h"

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
#ifndef TERRABIT_UI_GL_TESTS
    // Widgets without GL need no display.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
#endif
    qputenv("QT_SCALE_FACTOR", "1");
    qputenv("QT_ENABLE_HIGHDPI_SCALING", "0");
    // As the app does: OSG needs the compatibility profile (notes/qt-osg-on-debian12.md).
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CompatibilityProfile);
    format.setOption(QSurfaceFormat::DeprecatedFunctions);
    format.setDepthBufferSize(24);
    QSurfaceFormat::setDefaultFormat(format);
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("TerrabitTests");
    QApplication::setApplicationName("TerrabitUiTests");
    // Settings (dock layout, recent files) live in a folder of this process alone: what an
    // earlier run saved must not change what this one sees, and CTest runs the tests of this
    // executable in parallel processes that must not see each other's.
    const terrabit::test::TempDir settings;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, QString::fromStdString(settings.path().string()));
    return RUN_ALL_TESTS();
}
