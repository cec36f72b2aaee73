#pragma once
/// RulesPanel: every placement pass's parameters as widgets — masks and zones as expression
/// fields, density, jitter, scale ranges, margins as spin boxes and sliders, species weights per
/// vegetation class, model filters' style tags, the pass seeds and the scene seed. Each change
/// becomes a rule edit on the document's undo stack (Ctrl+Z takes it back) and re-bakes what it
/// affects in the background. A refused edit (out of range, an expression that does not compile)
/// is shown above the passes and the widget returns to the value in force. The form is built from
/// the rules schema (core/placement/rule_schema.h): a parameter declared there appears here with
/// its label, unit, range and documentation as tooltip.

#include <QHash>
#include <QWidget>

#include <functional>

class QFormLayout;
class QLabel;
class QSpinBox;
class QVBoxLayout;

namespace terrabit::core::placement {
struct ParamSpec;
struct PassRule;
}  // namespace terrabit::core::placement

namespace terrabit::ui {

class MapDocument;

class RulesPanel : public QWidget {
    Q_OBJECT
public:
    explicit RulesPanel(MapDocument* document, QWidget* parent = nullptr);

    /// The widget editing a rule path ("passes.vegetation.density"), or nullptr. Tests drive the
    /// panel through these.
    QWidget* editorFor(const QString& path) const { return mEditors.value(path, nullptr); }
    QSpinBox* seedBox() const { return mSeed; }
    /// The last refusal ("" when the last edit went through).
    QString message() const;

private:
    void rebuild();
    void refreshValues();
    void edit(const QString& path, const QString& value);
    /// The editor of one declared parameter (rule_schema.h), chosen by its type.
    void addParam(QFormLayout* form, const core::placement::ParamSpec& spec, const QString& label, const QString& path);
    /// The tag lists of a buildings pass's model filters.
    void addFilters(QFormLayout* form, const core::placement::PassRule& pass, const QString& base);
    void addNumber(QFormLayout* form, const QString& label, const QString& path, double lo, double hi, double step,
                   int decimals, bool slider, const QString& suffix = {});
    void addRange(QFormLayout* form, const QString& label, const QString& path, double lo, double hi);
    void addExpression(QFormLayout* form, const QString& label, const QString& path);
    void addChoice(QFormLayout* form, const QString& label, const QString& path, const QStringList& choices);
    void addText(QFormLayout* form, const QString& label, const QString& path, const QString& tip);
    void addSeed(QFormLayout* form, const QString& path);
    void addSpecies(QFormLayout* form, const QString& path);

    MapDocument* mDocument;
    QVBoxLayout* mPasses;
    QWidget* mPassesHost;
    QLabel* mMessage;
    QSpinBox* mSeed;
    QHash<QString, QWidget*> mEditors;
    /// Per path: sets its widget from the rules in force (signals blocked).
    QHash<QString, std::function<void()>> mUpdaters;
    QString mStructure;  ///< pass names and classes the widgets were built for
};

}  // namespace terrabit::ui
