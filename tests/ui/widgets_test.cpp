// The main window without its GL viewport, on Qt's offscreen platform, driven the way a user
// drives it: clicks and drags in the map, typing in the expression editor, spin boxes in the
// rules panel, Ctrl+Z, the probe and walk tools, the quadkey entry, the export dialog, autosave
// and recovery.

#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QCompleter>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <limits>
#include <set>

#include "terrabit/core/algebra/compose.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/panels/export_dialog.h"
#include "terrabit/ui/panels/expression_editor.h"
#include "terrabit/ui/panels/expression_panel.h"
#include "terrabit/ui/panels/layer_name_validator.h"
#include "terrabit/ui/panels/layers_panel.h"
#include "terrabit/ui/panels/probe_panel.h"
#include "terrabit/ui/panels/rules_panel.h"
#include "terrabit/ui/panels/tile_list_model.h"
#include "terrabit/ui/panels/tile_picker.h"
#include "terrabit/ui/views/map_view.h"
#include "terrabit/ui/views/probe_tool.h"
#include "terrabit/ui/window/main_window.h"
#include "terrabit/ui/window/progress_meter.h"
#include "ui_test_support.h"
#include "ui_window_support.h"

using namespace terrabit;

namespace {

/// Is a layer set at a global cell?
bool setAt(const ui::MapDocument& doc, int layer, std::int64_t gx, std::int64_t gy) {
    const int zoom = doc.project().zoom;
    const core::TileId t{zoom, std::uint32_t(gx >> 8), std::uint32_t(gy >> 8)};
    const core::BitTile* bits = doc.layers().tile(t, layer);
    return bits && bits->test(int(gx & 255), int(gy & 255));
}

/// True when every cell of the square of radius r around (gx, gy) satisfies f.
bool all(std::int64_t gx, std::int64_t gy, int r, const std::function<bool(std::int64_t, std::int64_t)>& f) {
    for (std::int64_t y = gy - r; y <= gy + r; ++y) {
        for (std::int64_t x = gx - r; x <= gx + r; ++x) {
            if (!f(x, y)) return false;
        }
    }
    return true;
}

/// The first cell of the selected tiles (away from their borders) where f holds.
std::optional<std::pair<std::int64_t, std::int64_t>> findCell(
    const ui::MapDocument& doc, const std::function<bool(std::int64_t, std::int64_t)>& f) {
    for (const core::TileId& t : doc.selection()) {
        for (int y = 16; y < 240; ++y) {
            for (int x = 16; x < 240; ++x) {
                const std::int64_t gx = std::int64_t(t.x) * 256 + x, gy = std::int64_t(t.y) * 256 + y;
                if (f(gx, gy)) return std::make_pair(gx, gy);
            }
        }
    }
    return std::nullopt;
}

class Window : public testing::Test {
protected:
    /// A window without the GL viewport whose questions are recorded and get `answer`.
    void makeWindow() {
        window = test::makeTestWindow(recovery, false, errors,
                                      [this](const QString&, const QString& text, QMessageBox::StandardButtons) {
                                          questions << text;
                                          return answer;
                                      });
    }
    void SetUp() override {
        makeWindow();
        window->resize(1280, 800);
        window->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
        ASSERT_TRUE(window->openFile(test::samplePath()));
        ASSERT_TRUE(doc().waitIdle());
        ASSERT_TRUE(doc().scene());
        // The selected tiles fill the map view.
        core::Box2 box;
        for (const core::TileId& t : doc().selection()) {
            box.extend(t.boundsMercator().min);
            box.extend(t.boundsMercator().max);
        }
        map()->fitMercator(box);
    }
    void TearDown() override {
        answer = QMessageBox::Discard;
        window.reset();
    }
    ui::MapDocument& doc() { return *window->document(); }
    ui::MapView* map() { return window->mapView(); }
    QPoint pointOf(std::int64_t gx, std::int64_t gy) { return map()->cellToWidget({gx + 0.5, gy + 0.5}).toPoint(); }
    QPoint tileCentre(const core::TileId& t) {
        return pointOf(std::int64_t(t.x) * 256 + 128, std::int64_t(t.y) * 256 + 128);
    }

    test::TempDir recovery;
    std::unique_ptr<ui::MainWindow> window;
    QStringList questions, errors;
    QMessageBox::StandardButton answer = QMessageBox::Discard;
};

}  // namespace

TEST_F(Window, ClickShiftClickAndDragSelectTiles) {
    const auto tiles = doc().selection();  // 2 × 2, north-west first
    ASSERT_EQ(tiles.size(), 4u);
    QTest::mouseClick(map(), Qt::LeftButton, Qt::NoModifier, tileCentre(tiles[0]));
    EXPECT_EQ(doc().selection(), std::vector<core::TileId>{tiles[0]});
    QTest::mouseClick(map(), Qt::LeftButton, Qt::ShiftModifier, tileCentre(tiles[3]));
    EXPECT_EQ(doc().selection(), (std::vector<core::TileId>{tiles[0], tiles[3]}));
    QTest::mouseClick(map(), Qt::LeftButton, Qt::ShiftModifier, tileCentre(tiles[0]));
    EXPECT_EQ(doc().selection(), std::vector<core::TileId>{tiles[3]});
    // A drag from one corner tile to the other selects the rectangle of tiles between.
    QTest::mousePress(map(), Qt::LeftButton, Qt::NoModifier, tileCentre(tiles[0]));
    QTest::mouseMove(map(), tileCentre(tiles[1]));
    QTest::mouseMove(map(), tileCentre(tiles[3]));
    QTest::mouseRelease(map(), Qt::LeftButton, Qt::NoModifier, tileCentre(tiles[3]));
    EXPECT_EQ(doc().selection(), tiles);
    ASSERT_TRUE(doc().waitIdle());
    EXPECT_EQ(doc().scene()->tiles, tiles) << "the selection is what gets baked";
    // Selections are undoable.
    doc().undoStack()->undo();
    EXPECT_EQ(doc().selection(), std::vector<core::TileId>{tiles[3]});
}

TEST_F(Window, HoverShowsLonLatAndQuadkeyInTheStatusBar) {
    const core::TileId t = doc().selection()[2];
    QTest::mouseMove(map(), tileCentre(t));
    const QString text = window->coordinatesLabel()->text();
    EXPECT_TRUE(text.contains(QString::fromStdString(t.quadkey()))) << text.toStdString();
    const core::LonLat c = core::mercatorToLonLat(t.boundsMercator().centre());
    EXPECT_TRUE(text.contains(QString::number(c.lon, 'f', 3))) << text.toStdString();
}

TEST_F(Window, TypingAnExpressionUpdatesThePreviewWithItsCoverage) {
    ui::ExpressionPanel* panel = window->expressionPanel();
    QSignalSpy updated(panel, &ui::ExpressionPanel::previewUpdated);
    panel->editor()->setFocus();
    QTest::keyClicks(panel->editor(), "building");
    ASSERT_TRUE(updated.wait(3000));
    EXPECT_TRUE(updated.back()[0].toBool()) << panel->statusText().toStdString();
    const int building = doc().layers().layerId("building"), road = doc().layers().layerId("road");
    std::int64_t buildingCells = 0, either = 0;
    for (const core::TileId& t : doc().selection()) {
        const core::BitTile* b = doc().layers().tile(t, building);
        const core::BitTile* r = doc().layers().tile(t, road);
        core::BitTile u;
        if (b) u |= *b;
        if (r) u |= *r;
        buildingCells += b ? b->count() : 0;
        either += u.count();
    }
    EXPECT_EQ(panel->previewCoverage().cells, buildingCells);
    const QImage first = panel->previewImage();
    QTest::keyClicks(panel->editor(), " | road");
    ASSERT_TRUE(updated.wait(3000));
    EXPECT_EQ(panel->previewCoverage().cells, either);
    EXPECT_NE(panel->previewImage(), first);
    EXPECT_TRUE(panel->statusText().contains("%")) << panel->statusText().toStdString();
}

TEST_F(Window, TheLayerNameFieldTakesTheNamesTheRulesTake) {
    // One rule for a layer's name (core/rules/layer_name.h): the field accepts what the rules
    // and a project accept, capitals too, and refuses what they refuse.
    QLineEdit* name = window->expressionPanel()->nameEdit();
    const QValidator* validator = name->validator();
    ASSERT_NE(validator, nullptr);
    for (const char* text : {"shore", "Shore", "_wet_2", "CliffEdge"}) {
        QString s = text;
        int at = 0;
        EXPECT_EQ(validator->validate(s, at), QValidator::Acceptable) << text;
        EXPECT_TRUE(core::isLayerName(text)) << text;
    }
    for (const char* text : {"2shore", "wet shore", "wet-shore", "ufer\u00e4"}) {
        QString s = QString::fromUtf8(text);
        int at = 0;
        EXPECT_EQ(validator->validate(s, at), QValidator::Invalid) << text;
        EXPECT_FALSE(core::isLayerName(text)) << text;
    }
    name->clear();
    QTest::keyClicks(name, "Dry shore");  // the space cannot be typed
    EXPECT_EQ(name->text(), "Dryshore");
    // The highlighter and the completion take the same characters for a word.
    EXPECT_TRUE(ui::isLayerNameChar(QChar('Q')));
    EXPECT_FALSE(ui::isLayerNameStart(QChar('7')));
    EXPECT_FALSE(ui::isLayerNameChar(QChar(0x00e4)));
}

TEST_F(Window, ATypoIsUnderlinedWhereItIsWithTheMessage) {
    ui::ExpressionPanel* panel = window->expressionPanel();
    QSignalSpy updated(panel, &ui::ExpressionPanel::previewUpdated);
    panel->editor()->setPlainText("vegetation &\n  gras");
    panel->updatePreview();
    ASSERT_TRUE(updated.wait(5000));
    EXPECT_FALSE(updated.back()[0].toBool());
    const auto& d = panel->editor()->diagnostic();
    EXPECT_EQ(d.line, 2);
    EXPECT_EQ(d.column, 3);
    EXPECT_EQ(d.length, 4);
    EXPECT_NE(d.what.find("gras"), std::string::npos);
    EXPECT_NE(d.what.find("grass"), std::string::npos) << "did you mean: " << d.what;
    // "vegetation &\n" is 13 characters: the underline covers "gras" at 15..19.
    EXPECT_EQ(panel->editor()->diagnosticRange(), std::make_pair(15, 19));
    EXPECT_TRUE(panel->statusText().startsWith("line 2, column 3")) << panel->statusText().toStdString();
    // Fixing it clears the underline.
    panel->editor()->setPlainText("vegetation &\n  grass");
    panel->updatePreview();
    ASSERT_TRUE(updated.wait(5000));
    EXPECT_TRUE(updated.back()[0].toBool());
    EXPECT_EQ(panel->editor()->diagnostic().line, 0);
    EXPECT_EQ(panel->editor()->diagnosticRange(), std::make_pair(0, 0));
}

TEST_F(Window, ThePreviewRunsOffTheUiThreadAndOnlyTheLatestTextIsShown) {
    // Every tile of the map with content: an evaluation big enough to take a while.
    const std::vector<core::TileId> all = doc().layers().tiles();
    ASSERT_GT(all.size(), 100u);
    doc().setSelection(all);
    ASSERT_TRUE(doc().waitIdle());
    ui::ExpressionPanel* panel = window->expressionPanel();
    ui::ExpressionEditor* editor = panel->editor();
    QSignalSpy updated(panel, &ui::ExpressionPanel::previewUpdated);
    const QString heavy =
        "close(dilate(building, 24, disk) - erode(vegetation, 8, disk), 16, disk) ^ edge(dilate(road, 12, disk))";

    // The event loop keeps turning while the evaluation runs: a timer ticks while the preview is
    // still pending. Evaluated on the UI thread, updatePreview() would only return with the
    // result, and no tick could fall inside the evaluation.
    int ticks = 0, ticksWhilePending = 0;
    QElapsedTimer clock, sinceTick;
    qint64 longestGap = 0;
    QTimer ticker;
    ticker.setInterval(5);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        ++ticks;
        if (panel->previewPending()) ++ticksWhilePending;
        longestGap = std::max(longestGap, sinceTick.restart());
    });
    editor->setPlainText(heavy);
    clock.start();
    sinceTick.start();
    ticker.start();
    panel->updatePreview();
    EXPECT_EQ(updated.count(), 0) << "updatePreview() must return before the result is in";
    EXPECT_TRUE(panel->previewPending());
    ASSERT_TRUE(updated.wait(120000));
    const qint64 evaluation = clock.elapsed();
    ticker.stop();
    ASSERT_TRUE(updated.back()[0].toBool()) << panel->statusText().toStdString();
    const core::algebra::AreaCoverage heavyCoverage = panel->previewCoverage();
    EXPECT_GE(ticksWhilePending, 3) << "the UI thread served its timer while the preview was evaluated";
    std::cout << "[ preview  ] " << all.size() << " tiles evaluated in " << evaluation << " ms; the UI thread ticked "
              << ticks << " times meanwhile, longest gap " << longestGap << " ms\n";

    // Typed quickly, one text after another: the heavy evaluation is started, then superseded;
    // the texts in between never outlive the debounce. Only the last one is ever shown.
    updated.clear();
    editor->setPlainText(heavy + " | water");
    panel->updatePreview();
    ASSERT_TRUE(panel->previewPending());
    for (const char* text : {"building | road", "dilate(water, 3)", "edge(vegetation)"}) {
        editor->setPlainText(text);
        QTest::qWait(20);
    }
    editor->clear();
    editor->setFocus();
    QTest::keyClicks(editor, "building - road");
    ASSERT_TRUE(updated.wait(120000));
    // Time for a stale result to arrive if it were going to be shown.
    QTest::qWait(2 * ui::ExpressionPanel::kDebounceMs);
    EXPECT_FALSE(panel->previewPending());
    ASSERT_EQ(updated.count(), 1) << "only the latest text's preview is reported";
    EXPECT_TRUE(updated.front()[0].toBool()) << panel->statusText().toStdString();
    core::algebra::ComposeOptions options;
    options.seed = doc().project().seed;
    const auto expected = core::algebra::compose(doc().layers(), all, "building - road", options);
    ASSERT_TRUE(expected) << expected.message();
    EXPECT_EQ(panel->previewCoverage().cells, expected->total.cells);
    EXPECT_NE(panel->previewCoverage().cells, heavyCoverage.cells);
    EXPECT_TRUE(panel->statusText().contains(QString::number(expected->total.cells)))
        << panel->statusText().toStdString();

    // A bad expression still reports where it is wrong.
    updated.clear();
    editor->setPlainText("building & roda");
    ASSERT_TRUE(updated.wait(5000));
    EXPECT_FALSE(updated.back()[0].toBool());
    EXPECT_EQ(editor->diagnostic().line, 1);
    EXPECT_EQ(editor->diagnostic().column, 12);
    EXPECT_EQ(editor->diagnosticRange(), std::make_pair(11, 15));
    EXPECT_TRUE(panel->statusText().startsWith("line 1, column 12")) << panel->statusText().toStdString();
}

TEST_F(Window, ClosingTheWindowWhileAPreviewIsEvaluatedIsSafe) {
    // The worker holds its own share of the layers: the window (panel, document and map) may go
    // while it runs. It stops at its next tile; nothing it made is shown or touched after.
    doc().setSelection(doc().layers().tiles());
    ASSERT_TRUE(doc().waitIdle());
    ui::ExpressionPanel* panel = window->expressionPanel();
    panel->editor()->setPlainText("close(dilate(building, 24, disk) - erode(vegetation, 8, disk), 16, disk)");
    panel->updatePreview();
    ASSERT_TRUE(panel->previewPending());
    QElapsedTimer clock;
    clock.start();
    window.reset();
    std::cout << "[ preview  ] window closed " << clock.elapsed() << " ms after the evaluation started\n";
    // The events the worker posted find no receiver.
    QTest::qWait(50);
    makeWindow();
    ASSERT_TRUE(window->openFile(test::samplePath()));
    ASSERT_TRUE(doc().waitIdle());
}

TEST_F(Window, CompletionOffersLayersAndFunctions) {
    ui::ExpressionEditor* editor = window->expressionPanel()->editor();
    editor->setFocus();
    QTest::keyClicks(editor, "ve");
    QCompleter* c = editor->completer();
    EXPECT_EQ(c->completionPrefix(), "ve");
    QStringList offered;
    for (int i = 0; c->setCurrentRow(i); ++i) offered << c->currentCompletion();
    EXPECT_TRUE(offered.contains("vegetation")) << offered.join(",").toStdString();
    editor->clear();
    QTest::keyClicks(editor, "dil");
    offered.clear();
    for (int i = 0; c->setCurrentRow(i); ++i) offered << c->currentCompletion();
    EXPECT_EQ(offered, QStringList{"dilate"});
}

TEST_F(Window, SaveAsLayerAddsADerivedLayerToThePanelAndTheProject) {
    ui::ExpressionPanel* panel = window->expressionPanel();
    panel->editor()->setPlainText("edge(building)");
    panel->nameEdit()->setText("facades");
    QTest::mouseClick(panel->saveButton(), Qt::LeftButton);
    EXPECT_TRUE(window->layersPanel()->item("facades") != nullptr);
    ASSERT_FALSE(doc().project().expressions.empty());
    EXPECT_EQ(doc().project().expressions.back().name, "facades");
    EXPECT_EQ(doc().project().expressions.back().text, "edge(building)");
    EXPECT_TRUE(window->isWindowModified());
}

TEST_F(Window, RulesPanelDensityChangesTheInstanceCountAndCtrlZUndoesIt) {
    auto* spin = qobject_cast<QDoubleSpinBox*>(window->rulesPanel()->editorFor("passes.vegetation.density"));
    ASSERT_TRUE(spin);
    const std::size_t before = doc().scene()->statistics.vegetationInstances;
    const double old = spin->value();
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, "0.400");
    QTest::keyClick(spin, Qt::Key_Enter);
    ASSERT_TRUE(doc().waitIdle());
    const std::size_t after = doc().scene()->statistics.vegetationInstances;
    EXPECT_GT(after, before * 2) << before << " -> " << after;
    EXPECT_TRUE(window->sceneLabel()->text().contains(QString::number(after)))
        << window->sceneLabel()->text().toStdString();

    window->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
    QTest::keyClick(window.get(), Qt::Key_Z, Qt::ControlModifier);
    ASSERT_TRUE(doc().waitIdle());
    EXPECT_EQ(doc().scene()->statistics.vegetationInstances, before);
    EXPECT_DOUBLE_EQ(spin->value(), old) << "undo puts the widget back too";
    QTest::keyClick(window.get(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    ASSERT_TRUE(doc().waitIdle());
    EXPECT_EQ(doc().scene()->statistics.vegetationInstances, after);
}

TEST_F(Window, RulesPanelRefusesABadExpressionAndKeepsTheOldOne) {
    auto* zone = qobject_cast<ui::ExpressionEditor*>(window->rulesPanel()->editorFor("passes.vegetation.zone"));
    ASSERT_TRUE(zone);
    const QString old = zone->text();
    zone->setFocus();
    zone->selectAll();
    QTest::keyClicks(zone, "vegetation - parkk");
    QTest::keyClick(zone, Qt::Key_Return);
    EXPECT_TRUE(window->rulesPanel()->message().contains("parkk")) << window->rulesPanel()->message().toStdString();
    EXPECT_EQ(zone->text(), old);
    EXPECT_EQ(doc().undoStack()->count(), 0);
}

TEST_F(Window, ProbingABuildingHitsAndARoadIsClear) {
    const int building = doc().layers().layerId("building");
    const int road = doc().layers().layerId("road");
    const int water = doc().layers().layerId("water");
    const auto inBuilding = findCell(doc(), [&](std::int64_t x, std::int64_t y) {
        return all(x, y, 3, [&](std::int64_t a, std::int64_t b) { return setAt(doc(), building, a, b); });
    });
    const auto onRoad = findCell(doc(), [&](std::int64_t x, std::int64_t y) {
        return all(x, y, 1, [&](std::int64_t a, std::int64_t b) { return setAt(doc(), road, a, b); }) &&
               all(x, y, 4, [&](std::int64_t a, std::int64_t b) {
                   return !setAt(doc(), building, a, b) && !setAt(doc(), water, a, b);
               });
    });
    ASSERT_TRUE(inBuilding && onRoad);
    ui::ProbePanel* panel = window->probePanel();
    // The Tools menu turns the probe on, and the probe dock comes to the front of its tabs.
    window->probeTool()->setActive(true);
    EXPECT_TRUE(panel->isVisible()) << "the probe dock is raised over the rules";
    window->probeTool()->setActive(false);
    QTest::mouseClick(panel->probeButton(), Qt::LeftButton);
    ASSERT_TRUE(window->probeTool()->active());

    QTest::mouseClick(map(), Qt::LeftButton, Qt::NoModifier, pointOf(inBuilding->first, inBuilding->second));
    ASSERT_TRUE(window->probeTool()->lastProbe());
    EXPECT_TRUE(window->probeTool()->lastProbe()->blocked);
    EXPECT_TRUE(window->probeTool()->lastProbe()->layers.contains("building"));
    EXPECT_EQ(panel->resultLabel()->text(), "BLOCKED");

    QTest::mouseClick(map(), Qt::LeftButton, Qt::NoModifier, pointOf(onRoad->first, onRoad->second));
    EXPECT_FALSE(window->probeTool()->lastProbe()->blocked);
    EXPECT_TRUE(window->probeTool()->lastProbe()->layers.contains("road"));
    EXPECT_FALSE(window->probeTool()->lastProbe()->layers.contains("building"));
    EXPECT_EQ(panel->resultLabel()->text(), "CLEAR");

    // Roads block once the blocking expression says so.
    ui::ExpressionEditor* blocking = panel->blockingEditor();
    blocking->setFocus();
    blocking->selectAll();
    QTest::keyClicks(blocking, "building | road");
    QTest::keyClick(blocking, Qt::Key_Return);
    QTest::mouseClick(map(), Qt::LeftButton, Qt::NoModifier, pointOf(onRoad->first, onRoad->second));
    EXPECT_TRUE(window->probeTool()->lastProbe()->blocked);
    // A rectangle dragged over the building and the road hits both.
    panel->shapeBox()->setCurrentIndex(int(ui::ProbeShape::Rectangle));
    ASSERT_EQ(window->probeTool()->shape(), ui::ProbeShape::Rectangle);
    QTest::mousePress(map(), Qt::LeftButton, Qt::NoModifier, pointOf(inBuilding->first, inBuilding->second));
    QTest::mouseMove(map(), pointOf(onRoad->first, onRoad->second));
    QTest::mouseRelease(map(), Qt::LeftButton, Qt::NoModifier, pointOf(onRoad->first, onRoad->second));
    EXPECT_EQ(window->probeTool()->lastProbe()->outline.size(), 4u);
    EXPECT_TRUE(window->probeTool()->lastProbe()->layers.contains("building"));
    EXPECT_TRUE(window->probeTool()->lastProbe()->layers.contains("road"));
}

TEST_F(Window, WalkingIntoAWallStopsAtTheWall) {
    const int building = doc().layers().layerId("building");
    const int water = doc().layers().layerId("water");
    auto blocked = [&](std::int64_t x, std::int64_t y) {
        return setAt(doc(), building, x, y) || setAt(doc(), water, x, y);
    };
    // A wall: free ground for 14 cells west of x on rows y-2..y+2, solid building from x on.
    const auto wall = findCell(doc(), [&](std::int64_t x, std::int64_t y) {
        for (std::int64_t r = y - 2; r <= y + 2; ++r) {
            for (std::int64_t c = x - 14; c < x; ++c) {
                if (blocked(c, r)) return false;
            }
            for (std::int64_t c = x; c < x + 3; ++c) {
                if (!setAt(doc(), building, c, r)) return false;
            }
        }
        return true;
    });
    ASSERT_TRUE(wall);
    ui::ProbeTool* tool = window->probeTool();
    window->probePanel()->sizeBox()->setValue(1.0);  // a character 1 m across
    QTest::mouseClick(window->probePanel()->walkButton(), Qt::LeftButton);
    ASSERT_TRUE(tool->walking());
    const core::Vec2 start{double(wall->first) - 8.5, double(wall->second) + 0.5};
    QTest::mouseClick(map(), Qt::LeftButton, Qt::NoModifier, map()->cellToWidget(start).toPoint());
    ASSERT_TRUE(tool->character());
    const core::Vec2 placed = *tool->character();
    for (int i = 0; i < 40; ++i) QTest::keyClick(map(), Qt::Key_D);  // 20 m east: far past the wall
    const core::Vec2 end = *tool->character();
    const double radius = tool->footprint().radius;
    EXPECT_TRUE(tool->lastMove().blockedX);
    EXPECT_TRUE(tool->lastMove().hitLayers != 0);
    // Stopped with the footprint's edge at the wall's west face: touching, not inside.
    EXPECT_LE(end.x + radius, double(wall->first) + 1e-9);
    EXPECT_GT(end.x + radius, double(wall->first) - 0.05);
    EXPECT_DOUBLE_EQ(end.y, placed.y) << "moving east does not drift north or south";
    // Walking back west is free.
    for (int i = 0; i < 4; ++i) QTest::keyClick(map(), Qt::Key_A);
    EXPECT_LT(tool->character()->x, end.x - 1.0);
    EXPECT_FALSE(tool->lastMove().blocked());
}

TEST_F(Window, QuadkeyEntryGoesToTheTile) {
    ui::TilePicker* picker = window->tilePicker();
    picker->quadkeyEdit()->setFocus();
    QTest::keyClicks(picker->quadkeyEdit(), "1202230303022112");
    QTest::keyClick(picker->quadkeyEdit(), Qt::Key_Return);
    EXPECT_TRUE(picker->message().isEmpty()) << picker->message().toStdString();
    const auto target = core::TileId::fromQuadkey("1202230303022112");
    ASSERT_TRUE(target.ok());
    // The view is centred on the zoom-16 tile: its centre cell at zoom 17 is in the middle.
    const core::Vec2 centre = map()->widgetToCell({map()->width() / 2.0, map()->height() / 2.0});
    EXPECT_NEAR(centre.x, (target->x * 2 + 1) * 256.0, 1.0);
    EXPECT_NEAR(centre.y, (target->y * 2 + 1) * 256.0, 1.0);
    EXPECT_FALSE(picker->goToQuadkey("1204"));
    EXPECT_FALSE(picker->message().isEmpty());
}

TEST_F(Window, TilePickerListsTheSelectedTilesWithTheirFigures) {
    ui::TilePicker* picker = window->tilePicker();
    const QAbstractItemModel* model = picker->table()->model();
    ASSERT_EQ(model->rowCount(), 4);
    using M = ui::TileListModel;
    int placed = 0, trees = 0;
    for (int r = 0; r < 4; ++r) {
        placed += model->index(r, M::PlacedColumn).data().toInt();
        trees += model->index(r, M::TreesColumn).data().toInt();
        const QModelIndex coverage = model->index(r, M::CoverageColumn);
        EXPECT_FALSE(coverage.data(Qt::DecorationRole).value<QIcon>().isNull()) << "the coverage bar";
        const QString figures = coverage.data(Qt::AccessibleTextRole).toString();
        EXPECT_TRUE(figures.contains(QRegularExpression("building \\d+ %"))) << figures.toStdString();
        const QString tip = coverage.data(Qt::ToolTipRole).toString();
        EXPECT_TRUE(tip.contains("road: ")) << tip.toStdString();
        EXPECT_EQ(model->index(r, M::TileColumn).data().toString().toStdString(), picker->model()->tileAt(r).quadkey());
    }
    EXPECT_EQ(std::size_t(placed), doc().scene()->statistics.buildingsPlaced);
    EXPECT_GT(trees, 0);

    // A click on a heading sorts; the rows keep their tiles.
    picker->table()->sortByColumn(M::PlacedColumn, Qt::DescendingOrder);
    std::vector<int> sorted;
    for (int r = 0; r < 4; ++r) {
        sorted.push_back(model->index(r, M::PlacedColumn).data().toInt());
        const core::TileId t = picker->model()->tileAt(r);
        ASSERT_TRUE(doc().tileTally(t));
        EXPECT_EQ(sorted.back(), doc().tileTally(t)->buildingsPlaced);
    }
    EXPECT_TRUE(std::is_sorted(sorted.rbegin(), sorted.rend()));
    // A double-click goes to the tile of its row.
    QSignalSpy went(picker, &ui::TilePicker::goToTile);
    emit picker->table()->doubleClicked(model->index(2, M::TileColumn));
    ASSERT_EQ(went.size(), 1);
    EXPECT_EQ(went.front()[0].value<core::TileId>(), picker->model()->tileAt(2));
}

TEST_F(Window, LayersPanelTogglesVisibilityAndChoosesTheOverlay) {
    QTreeWidgetItem* road = window->layersPanel()->item("road");
    ASSERT_TRUE(road);
    EXPECT_TRUE(road->text(1).endsWith("%"));
    road->setCheckState(0, Qt::Unchecked);
    EXPECT_FALSE(doc().layerVisible("road"));
    const int index = window->layersPanel()->overlayBox()->findData("building");
    ASSERT_GT(index, 0);
    window->layersPanel()->overlayBox()->setCurrentIndex(index);
    EXPECT_EQ(doc().overlay(), "building");
    EXPECT_TRUE(window->isWindowModified());
}

TEST_F(Window, ExportDialogWritesTheChosenFormats) {
    const test::TempDir out;
    ui::ExportDialog dialog(window->document(), window.get());
    dialog.folderEdit()->setText(QString::fromStdString(out.path().string()));
    dialog.formatBox(core::ExportFormat::Glb)->setChecked(true);
    dialog.formatBox(core::ExportFormat::Manifest)->setChecked(true);
    dialog.formatBox(core::ExportFormat::Osgb)->setChecked(true);
    QSignalSpy finished(&dialog, &ui::ExportDialog::finished);
    ASSERT_TRUE(dialog.startExport()) << dialog.status().toStdString();
    ASSERT_TRUE(finished.wait(60000));
    EXPECT_TRUE(finished.front()[0].toBool()) << dialog.status().toStdString();
    EXPECT_TRUE(std::filesystem::exists(out.path() / "scene.glb"));
    EXPECT_TRUE(std::filesystem::exists(out.path() / "manifest.json"));
    // The render module's writer: a root, and the tiles in the files of their groups.
    ASSERT_TRUE(std::filesystem::exists(out.path() / "scene.osgb"));
    std::uintmax_t groupBytes = 0;
    for (const auto& f : std::filesystem::directory_iterator(out.path() / "scene")) groupBytes += f.file_size();
    EXPECT_GT(groupBytes, 10000u);
    EXPECT_EQ(doc().project().exportSettings.folder, out.path());
}

TEST_F(Window, CancellingAnExportStopsItLeavesNoPartialFilesAndTheNextExportWorks) {
    // Every tile of the map: an export long enough to be cancelled in the middle.
    doc().setSelection(doc().layers().tiles());
    ASSERT_TRUE(doc().waitIdle());
    const test::TempDir out;
    ui::ExportDialog dialog(window->document(), window.get());
    dialog.folderEdit()->setText(QString::fromStdString(out.path().string()));
    const std::set<core::ExportFormat> chosen{core::ExportFormat::Glb, core::ExportFormat::Tiles3d,
                                              core::ExportFormat::Layers};
    for (core::ExportFormat f : {core::ExportFormat::Glb, core::ExportFormat::Tiles3d, core::ExportFormat::Manifest,
                                 core::ExportFormat::Layers, core::ExportFormat::Collision, core::ExportFormat::Osgb}) {
        dialog.formatBox(f)->setChecked(chosen.count(f) > 0);
    }
    // Formats run two at a time, in this order: scene.glb and the 3D Tiles content (tile by
    // tile), then the layer rasters once one of them is done. Cancel while the tileset is being
    // written.
    bool cancelled = false;
    QElapsedTimer sinceCancel;
    QStringList stagesAfterCancel;
    QObject::connect(&doc(), &ui::MapDocument::progress, &dialog, [&](double, const QString& stage) {
        if (cancelled) {
            stagesAfterCancel << stage;
        } else if (stage.contains("3D Tiles")) {
            cancelled = true;
            sinceCancel.start();
            ASSERT_TRUE(dialog.cancelButton()->isEnabled());
            dialog.cancelButton()->click();
        }
    });
    QSignalSpy finished(&dialog, &ui::ExportDialog::finished);
    ASSERT_TRUE(dialog.startExport()) << dialog.status().toStdString();
    ASSERT_TRUE(finished.wait(120000));
    ASSERT_TRUE(cancelled) << "the export ended before the tileset was written";
    const qint64 stopMs = sinceCancel.elapsed();
    EXPECT_FALSE(finished.front()[0].toBool());
    EXPECT_TRUE(dialog.status().contains("cancelled")) << dialog.status().toStdString();
    EXPECT_EQ(dialog.progressBar()->value(), 0);
    EXPECT_FALSE(dialog.cancelButton()->isEnabled());
    EXPECT_TRUE(dialog.exportButton()->isEnabled());
    std::cout << "[ export   ] stopped " << stopMs
              << " ms after Cancel; progress after it: " << stagesAfterCancel.join(", ").toStdString() << "\n";
    for (const QString& stage : stagesAfterCancel) EXPECT_FALSE(stage.contains("done")) << stage.toStdString();

    // What is left is whole: at most scene.glb, when it was finished before the Cancel (it is
    // written beside the tileset, and stopped with it otherwise). The tileset is only usable
    // whole, so none of its files stays; no temporary and no layer file either.
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(out.path())) {
        if (e.is_regular_file()) files.push_back(std::filesystem::relative(e.path(), out.path()).string());
        if (e.is_directory()) std::cout << "[ export   ] folder left: " << e.path().filename().string() << "\n";
    }
    EXPECT_TRUE(files.empty() || files == std::vector<std::string>{"scene.glb"}) << ::testing::PrintToString(files);
    if (std::filesystem::exists(out.path() / "scene.glb")) {
        std::ifstream glb(out.path() / "scene.glb", std::ios::binary);
        std::uint32_t header[3] = {};
        glb.read(reinterpret_cast<char*>(header), sizeof header);
        EXPECT_EQ(header[0], 0x46546C67u) << "glTF magic";
        EXPECT_EQ(header[2], std::filesystem::file_size(out.path() / "scene.glb")) << "the length its header says";
    }

    // The app exports again afterwards, into the same folder.
    dialog.formatBox(core::ExportFormat::Tiles3d)->setChecked(false);
    dialog.formatBox(core::ExportFormat::Layers)->setChecked(false);
    dialog.formatBox(core::ExportFormat::Manifest)->setChecked(true);
    finished.clear();
    ASSERT_TRUE(dialog.startExport()) << dialog.status().toStdString();
    ASSERT_TRUE(finished.wait(120000));
    EXPECT_TRUE(finished.front()[0].toBool()) << dialog.status().toStdString();
    EXPECT_TRUE(std::filesystem::exists(out.path() / "manifest.json"));
    EXPECT_EQ(dialog.progressBar()->value(), 1000);
}

TEST_F(Window, UnsavedChangesAreNotLostWithoutAsking) {
    ASSERT_TRUE(doc().editRule({"passes.vegetation.jitter", "0.3"}).ok());
    ASSERT_TRUE(window->isWindowModified());
    answer = QMessageBox::Cancel;
    EXPECT_FALSE(window->openFile(test::samplePath()));
    EXPECT_EQ(questions.size(), 1);
    EXPECT_TRUE(doc().modified()) << "cancelled: the edit is still there";
    EXPECT_EQ(doc().project().ruleEdits.size(), 1u);
    QCloseEvent close;
    QApplication::sendEvent(window.get(), &close);
    EXPECT_FALSE(close.isAccepted());
    answer = QMessageBox::Discard;
    EXPECT_TRUE(window->openFile(test::samplePath()));
    ASSERT_TRUE(doc().waitIdle());
    EXPECT_TRUE(doc().project().ruleEdits.empty());
}

TEST_F(Window, AutosaveIsOfferedBackAfterACrash) {
    ASSERT_TRUE(doc().editRule({"passes.vegetation.density", "0.2"}).ok());
    ASSERT_TRUE(window->autosaveNow());
    // The window goes away without closing (as in a crash); a new one finds the autosave.
    window.reset();
    answer = QMessageBox::Yes;
    makeWindow();
    ASSERT_TRUE(window->offerRecovery());
    ASSERT_TRUE(doc().waitIdle());
    EXPECT_TRUE(questions.back().contains("sample.terrabit")) << questions.back().toStdString();
    ASSERT_EQ(doc().project().ruleEdits.size(), 1u);
    EXPECT_EQ(doc().project().ruleEdits[0].value, "0.2");
    EXPECT_TRUE(doc().modified());
    EXPECT_EQ(doc().projectFile(), test::samplePath());
    // Saved elsewhere, the recovery file goes.
    const test::TempDir dir;
    ASSERT_TRUE(window->saveAs(dir.path() / "recovered.terrabit"));
    EXPECT_FALSE(window->offerRecovery());
}

TEST_F(Window, MenusCarryTheShortcutsAndAboutCreditsOpenStreetMap) {
    QHash<QString, QKeySequence> shortcuts;
    for (QAction* menu : window->menuBar()->actions()) {
        for (QAction* a : menu->menu()->actions()) shortcuts[a->text().remove('&')] = a->shortcut();
    }
    EXPECT_EQ(shortcuts["New project"], QKeySequence(QKeySequence::New));
    EXPECT_EQ(shortcuts["Open…"], QKeySequence(QKeySequence::Open));
    EXPECT_EQ(shortcuts["Save"], QKeySequence(QKeySequence::Save));
    EXPECT_EQ(shortcuts["Save as…"], QKeySequence("Ctrl+Shift+S"));
    EXPECT_EQ(shortcuts["Export…"], QKeySequence("Ctrl+E"));
    EXPECT_EQ(shortcuts["Quit"], QKeySequence(QKeySequence::Quit));
    bool undo = false, redo = false;
    for (QAction* a : window->actions()) {
        undo = undo || a->shortcut() == QKeySequence("Ctrl+Z");
        redo = redo || a->shortcut() == QKeySequence("Ctrl+Shift+Z");
    }
    EXPECT_TRUE(undo && redo);
    EXPECT_TRUE(ui::MainWindow::aboutText().contains("© OpenStreetMap contributors, ODbL 1.0"));
    EXPECT_TRUE(window->recentFiles().contains(QString::fromStdString(test::samplePath().string())));
}

TEST_F(Window, TheMemoryForCachedTilesIsAskedForKeptAndBoundsTheNextBake) {
    EXPECT_EQ(doc().cacheBudget(), ui::kDefaultCacheBudgetBytes);
    auto* action = window->findChild<QAction*>("cacheBudgetAction");
    ASSERT_NE(action, nullptr);
    action->trigger();
    auto* dialog = window->findChild<QInputDialog*>("cacheBudgetDialog");
    ASSERT_NE(dialog, nullptr);
    EXPECT_EQ(dialog->intValue(), int(ui::kDefaultCacheBudgetBytes >> 20));
    auto* spin = dialog->findChild<QSpinBox*>();
    ASSERT_NE(spin, nullptr);
    spin->setValue(0);
    EXPECT_EQ(spin->text(), "no limit");
    spin->setValue(1);
    EXPECT_EQ(spin->text(), "1 MiB");
    dialog->accept();
    EXPECT_EQ(doc().cacheBudget(), std::size_t{1} << 20);
    EXPECT_EQ(QSettings().value("memory/cacheBudgetMiB").toInt(), 1);

    // The next bake keeps no more than that: the sample's tiles hold more.
    doc().rebake();
    ASSERT_TRUE(doc().waitIdle());
    EXPECT_LE(doc().bakeReport().cachedBytes, std::size_t{1} << 20);
    EXPECT_GT(doc().bakeReport().droppedTiles, 0u);
    // Asked again, the dialog says what the last bake kept and dropped.
    action->trigger();
    dialog = nullptr;
    for (QInputDialog* d : window->findChildren<QInputDialog*>("cacheBudgetDialog")) {
        if (d->isVisible()) dialog = d;  // the first one may still wait for its deletion
    }
    ASSERT_NE(dialog, nullptr);
    const QLocale locale;
    EXPECT_TRUE(dialog->labelText().contains(
        QString("the last bake kept: %1 (").arg(locale.toString(qulonglong(doc().bakeReport().cachedTiles)))))
        << dialog->labelText().toStdString();
    EXPECT_TRUE(dialog->labelText().contains(
        QString("a re-bake computes again: %1.").arg(locale.toString(qulonglong(doc().bakeReport().droppedTiles)))))
        << dialog->labelText().toStdString();
    dialog->reject();

    // A new window starts with it.
    window->close();
    makeWindow();
    EXPECT_EQ(doc().cacheBudget(), std::size_t{1} << 20);
    QSettings().remove("memory/cacheBudgetMiB");
}

TEST_F(Window, DockLayoutIsKeptBetweenRuns) {
    auto* probeDock = window->findChild<QDockWidget*>("probeDock");
    ASSERT_TRUE(probeDock);
    probeDock->hide();
    window->close();
    makeWindow();
    EXPECT_TRUE(window->findChild<QDockWidget*>("probeDock")->isHidden());
    window->findChild<QDockWidget*>("probeDock")->show();
    window->close();
}

TEST_F(Window, SavingTheBundledSampleAsksForANewFileAndLeavesTheSampleAlone) {
    const std::string sampleBefore = [] {
        std::ifstream in(test::samplePath());
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    ASSERT_TRUE(doc().isBundled(test::samplePath()));
    ASSERT_TRUE(doc().editRule({"passes.vegetation.density", "0.2"}).ok());
    const test::TempDir dir;
    int asked = 0;
    window->setSaveFileChooser([&] {
        ++asked;
        return QString::fromStdString((dir.path() / "my-monaco.terrabit").string());
    });
    ASSERT_TRUE(window->save());
    EXPECT_EQ(asked, 1);
    EXPECT_EQ(doc().projectFile(), dir.path() / "my-monaco.terrabit");
    EXPECT_FALSE(doc().isBundled(doc().projectFile()));
    std::ifstream in(test::samplePath());
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), sampleBefore);
    // The copy is an ordinary project now: saving it again writes it without asking.
    ASSERT_TRUE(doc().editRule({"passes.vegetation.density", "0.25"}).ok());
    ASSERT_TRUE(window->save());
    EXPECT_EQ(asked, 1);
    // Exports of the copy default to a folder beside it; the sample's never go into resources/.
    ui::ExportDialog dialog(window->document(), window.get());
    EXPECT_EQ(dialog.folderEdit()->text().toStdString(), (dir.path() / "my-monaco-export").string());
}

TEST_F(Window, ZoomedOutTheMapKeepsSmallTileImages) {
    // Zoomed in on the selection: full-resolution images of the tiles in view.
    map()->fitSelection();
    (void)map()->grab();
    const qsizetype near = map()->imageBytes();
    EXPECT_GT(near, 0);
    // The whole map: many more tiles, each a few pixels wide, kept small.
    map()->fitMap();
    (void)map()->grab();
    const std::size_t tiles = doc().layers().tiles().size();
    ASSERT_GT(tiles, 100u);
    const double tilePixels = 256.0 * map()->pixelsPerCell();
    ASSERT_LT(tilePixels, 64.0);
    // Kept at 64 × 64 at most (the power of two above the drawn size): 16 KiB, not 256 KiB.
    EXPECT_LE(map()->imageBytes(), qsizetype(tiles) * 64 * 64 * 4 * 2) << "two images (map, overlay) per tile at most";
    EXPECT_LT(map()->imageBytes(), qsizetype(tiles) * 256 * 256 * 4 / 8);
}

TEST_F(Window, ProbesCoverTheSelectionAndTwoTilesAroundIt) {
    ui::ProbeTool* tool = window->probeTool();
    // The sample's 2 × 2 selection and two tiles on every side: 6 × 6 tiles, not the whole map.
    EXPECT_EQ(tool->grid().tilesWide(), 6);
    EXPECT_EQ(tool->grid().tilesHigh(), 6);
    // A tile with buildings far from the selection: clear until it is selected.
    const int building = doc().layers().layerId("building");
    const core::TileId first = doc().selection().front();
    std::optional<core::TileId> far;
    for (const core::TileId& t : doc().layers().tiles()) {
        const core::BitTile* bits = doc().layers().tile(t, building);
        if (bits && bits->count() > 5000 &&
            (std::abs(int(t.x) - int(first.x)) > 5 || std::abs(int(t.y) - int(first.y)) > 5)) {
            far = t;
            break;
        }
    }
    ASSERT_TRUE(far);
    const core::BitTile* bits = doc().layers().tile(*far, building);
    std::optional<core::Vec2> cell;
    bits->forEachSetCell([&](int x, int y) {
        if (!cell) cell = core::Vec2{far->x * 256.0 + x + 0.5, far->y * 256.0 + y + 0.5};
    });
    ASSERT_TRUE(cell);
    EXPECT_FALSE(tool->probe(*cell).blocked) << "outside the probed region";
    doc().setSelection({*far});
    EXPECT_EQ(tool->grid().tilesWide(), 5);
    EXPECT_TRUE(tool->probe(*cell).blocked);
    EXPECT_TRUE(tool->probe(*cell).layers.contains("building"));
}

TEST(ProgressMeter, ReportsComeAtAnyRateButItRepaintsAtMostEveryTenthOfASecond) {
    // The main window's meter: a bake's progress may be reported many times a second, and each
    // repaint of a window holding the viewport composes the whole window.
    ui::ProgressMeter meter;
    meter.resize(180, 24);
    meter.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&meter));
    const int before = meter.repaintsRequested();
    QElapsedTimer clock;
    clock.start();
    for (int i = 0; i <= 1000; ++i) meter.setProgress(i / 1000.0, "baking");
    EXPECT_LE(meter.repaintsRequested() - before, 1 + clock.elapsed() / ui::ProgressMeter::kRepaintMs);
    EXPECT_EQ(meter.permille(), 1000);
    EXPECT_EQ(meter.text(), "baking 100%");
    // The repaint put off comes, with the newest figures; the same figures again ask for none.
    const int soon = meter.repaintsRequested();
    EXPECT_TRUE(QTest::qWaitFor([&] { return meter.repaintsRequested() > soon; }, 2000));
    QTest::qWait(3 * ui::ProgressMeter::kRepaintMs);
    const int settled = meter.repaintsRequested();
    meter.setProgress(1.0, "baking");
    meter.setProgress(0.9999, "baking");  // the same whole percent and the same pixel
    QTest::qWait(2 * ui::ProgressMeter::kRepaintMs);
    EXPECT_EQ(meter.repaintsRequested(), settled);
    // A new stage is drawn; nonsense is clamped; reset clears.
    meter.setProgress(0.5, "writing scene.glb");
    EXPECT_EQ(meter.text(), "writing scene.glb 50%");
    meter.setProgress(std::numeric_limits<double>::quiet_NaN(), "x");
    EXPECT_EQ(meter.permille(), 0);
    meter.setProgress(7.0, "x");
    EXPECT_EQ(meter.permille(), 1000);
    meter.reset();
    EXPECT_EQ(meter.text(), "0%");
    EXPECT_TRUE(QTest::qWaitFor([&] { return meter.repaintsRequested() > settled + 1; }, 2000));
    EXPECT_FALSE(meter.grab().isNull());
}

TEST_F(Window, TheStatusBarsMeterShowsTheDocumentsProgress) {
    auto* meter = window->statusBar()->findChild<ui::ProgressMeter*>("progressMeter");
    ASSERT_NE(meter, nullptr);
    EXPECT_EQ(window->statusBar()->findChild<QProgressBar*>(), nullptr);
    emit doc().progress(0.25, "placing buildings");
    EXPECT_EQ(meter->text(), "placing buildings 25%");
}
