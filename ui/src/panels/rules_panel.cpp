#include "terrabit/ui/panels/rules_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

#include "terrabit/core/placement/rule_schema.h"
#include "terrabit/core/project/rule_edit.h"
#include "terrabit/ui/document/map_document.h"
#include "terrabit/ui/panels/expression_editor.h"

namespace terrabit::ui {

namespace {

using core::placement::ParamScope;
using core::placement::ParamSpec;
using core::placement::ParamType;

QString valueAt(const MapDocument* doc, const QString& path) {
    auto v = core::project::ruleValue(doc->placementRules(), path.toStdString());
    return v ? QString::fromStdString(*v) : QString();
}

QString number(double v) { return QString::number(v, 'g', 12); }

/// "[a, b]" into its two numbers.
std::pair<double, double> rangeOf(const QString& text) {
    QString t = text;
    t.remove('[').remove(']');
    const QStringList parts = t.split(',');
    if (parts.size() != 2) return {1.0, 1.0};
    return {parts[0].trimmed().toDouble(), parts[1].trimmed().toDouble()};
}

}  // namespace

RulesPanel::RulesPanel(MapDocument* document, QWidget* parent) : QWidget(parent), mDocument(document) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    mMessage = new QLabel(this);
    mMessage->setWordWrap(true);
    mMessage->setStyleSheet("color: #c62828; padding: 4px");
    mMessage->hide();
    outer->addWidget(mMessage);
    auto* seedRow = new QFormLayout;
    seedRow->setContentsMargins(8, 4, 8, 0);
    mSeed = new QSpinBox(this);
    mSeed->setRange(0, std::numeric_limits<int>::max());
    mSeed->setKeyboardTracking(false);
    mSeed->setToolTip(tr("The scene seed: every random choice is keyed with it"));
    seedRow->addRow(tr("Scene seed"), mSeed);
    outer->addLayout(seedRow);
    connect(mSeed, &QSpinBox::valueChanged, this, [this](int v) { mDocument->setSeed(std::uint64_t(v)); });

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    mPassesHost = new QWidget(scroll);
    mPasses = new QVBoxLayout(mPassesHost);
    scroll->setWidget(mPassesHost);
    outer->addWidget(scroll, 1);

    connect(document, &MapDocument::rulesChanged, this, [this] {
        rebuild();
        refreshValues();
    });
    rebuild();
    refreshValues();
}

QString RulesPanel::message() const { return mMessage->isVisible() ? mMessage->text() : QString(); }

void RulesPanel::edit(const QString& path, const QString& value) {
    if (valueAt(mDocument, path) == value) return;
    core::Status s = mDocument->editRule({path.toStdString(), value.toStdString()});
    if (!s) {
        mMessage->setText(QString::fromStdString(s.message()));
        mMessage->show();
        if (auto it = mUpdaters.find(path); it != mUpdaters.end()) (*it)();
        return;
    }
    mMessage->hide();
}

void RulesPanel::refreshValues() {
    const QSignalBlocker block(mSeed);
    mSeed->setValue(int(std::min<std::uint64_t>(mDocument->project().seed, std::uint64_t(mSeed->maximum()))));
    for (auto it = mUpdaters.begin(); it != mUpdaters.end(); ++it) (*it)();
}

void RulesPanel::rebuild() {
    const auto& rules = mDocument->placementRules();
    QString structure;
    for (const auto& p : rules.passes()) {
        structure += QString::fromStdString(p.name) + ":" + core::placement::passKindName(p.kind) + ";";
        for (const auto& c : p.vegetation.classes) {
            structure += QString::fromStdString(c.layer) + "=";
            for (const auto& s : c.species) structure += QString::fromStdString(s.asset) + ",";
        }
        structure += QString::number(p.buildings.filters.size());
    }
    if (structure == mStructure) return;  // same passes: only the values change
    mStructure = structure;
    mEditors.clear();
    mUpdaters.clear();
    while (QLayoutItem* item = mPasses->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    using core::placement::PassKind;
    for (const auto& pass : rules.passes()) {
        const QString base = "passes." + QString::fromStdString(pass.name) + ".";
        auto* box = new QGroupBox(
            QString("%1  (%2)").arg(QString::fromStdString(pass.name), core::placement::passKindName(pass.kind)),
            mPassesHost);
        auto* form = new QFormLayout(box);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        // Every parameter the schema declares for the pass type, in its order; the seed last.
        for (const ParamSpec& spec : core::placement::passParams()) {
            if (!spec.appliesTo(pass.kind) || spec.scope == ParamScope::Class || spec.type == ParamType::Seed) continue;
            QString label = tr(spec.label.data());
            if (spec.scope == ParamScope::ClassDefault) label = tr("%1 (all classes)").arg(label);
            addParam(form, spec, label, base + QString::fromUtf8(spec.key.data(), int(spec.key.size())));
        }
        if (pass.kind == PassKind::Buildings) addFilters(form, pass, base);
        for (const auto& c : pass.vegetation.classes) {
            const QString cp = base + "classes." + QString::fromStdString(c.layer) + ".";
            form->addRow(new QLabel("<b>" + QString::fromStdString(c.layer) + "</b>"));
            for (const ParamSpec& spec : core::placement::passParams()) {
                if (!spec.appliesTo(pass.kind) || !spec.perClass()) continue;
                addParam(form, spec, "  " + tr(spec.label.data()).toLower(),
                         cp + QString::fromUtf8(spec.key.data(), int(spec.key.size())));
            }
        }
        addSeed(form, base + "seed");
        mPasses->addWidget(box);
    }
    mPasses->addStretch(1);
}

void RulesPanel::addParam(QFormLayout* form, const ParamSpec& spec, const QString& label, const QString& path) {
    if (!spec.ui.shown || !spec.editable) return;
    const QString unit = QString::fromUtf8(spec.unit.data(), int(spec.unit.size()));
    const bool narrowed = spec.ui.min < spec.ui.max;  // a spin range narrower than the valid one
    const double lo = narrowed ? spec.ui.min : spec.min, hi = narrowed ? spec.ui.max : spec.max;
    switch (spec.type) {
        case ParamType::Number:
            addNumber(form, label, path, lo, hi, spec.ui.step, spec.ui.decimals, spec.ui.slider,
                      unit.isEmpty() ? QString() : " " + unit);
            break;
        case ParamType::ScaleRange:
            addRange(form, label, path, lo, hi);
            break;
        case ParamType::Expression:
            addExpression(form, label, path);
            break;
        case ParamType::Choice: {
            QStringList words;
            for (std::string_view w : spec.choices) words << QString::fromUtf8(w.data(), int(w.size()));
            addChoice(form, label, path, words);
            break;
        }
        case ParamType::Seed:
            addSeed(form, path);
            break;
        case ParamType::Species:
            addSpecies(form, path);
            break;
        case ParamType::Text:
        case ParamType::Distance:
        case ParamType::Colour:
        case ParamType::Layer:
            addText(form, label, path, {});
            break;
    }
    if (QWidget* editor = mEditors.value(path); editor && editor->toolTip().isEmpty()) {
        editor->setToolTip(tr(spec.doc.data()));
    }
}

void RulesPanel::addFilters(QFormLayout* form, const core::placement::PassRule& pass, const QString& base) {
    for (std::size_t i = 0; i < pass.buildings.filters.size(); ++i) {
        const auto& f = pass.buildings.filters[i];
        QStringList when;
        for (const auto& c : f.when) {
            QStringList values;
            for (const auto& v : c.values) values << QString::fromStdString(v);
            when << QString::fromStdString(c.key) + "=" + (values.isEmpty() ? "*" : values.join("|"));
        }
        auto* title =
            new QLabel(tr("<i>Models when %1</i>").arg(when.isEmpty() ? tr("any building") : when.join(", ")));
        title->setWordWrap(true);
        form->addRow(title);
        const QString fp = base + "filters." + QString::number(i) + ".";
        addText(form, tr("  any of tags"), fp + "any_tags", tr("Models must carry one of these style tags"));
        addText(form, tr("  none of tags"), fp + "none_tags", tr("Models must carry none of these"));
    }
}

void RulesPanel::addNumber(QFormLayout* form, const QString& label, const QString& path, double lo, double hi,
                           double step, int decimals, bool slider, const QString& suffix) {
    auto* spin = new QDoubleSpinBox;
    spin->setRange(lo, hi);
    spin->setSingleStep(step);
    spin->setDecimals(decimals);
    spin->setSuffix(suffix);
    spin->setKeyboardTracking(false);
    spin->setObjectName(path);
    QSlider* bar = nullptr;
    QWidget* field = spin;
    if (slider) {
        bar = new QSlider(Qt::Horizontal);
        bar->setRange(0, 1000);
        auto* row = new QWidget;
        auto* h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->addWidget(bar, 1);
        h->addWidget(spin);
        field = row;
        connect(bar, &QSlider::valueChanged, spin,
                [spin, bar, lo, hi] { spin->setValue(lo + (hi - lo) * bar->value() / 1000.0); });
    }
    form->addRow(label, field);
    mEditors.insert(path, spin);
    connect(spin, &QDoubleSpinBox::valueChanged, this, [this, path, spin, bar, lo, hi](double v) {
        if (bar) {
            const QSignalBlocker block(bar);
            bar->setValue(int(std::lround((v - lo) / (hi - lo) * 1000.0)));
        }
        edit(path, number(spin->value()));
    });
    mUpdaters.insert(path, [this, path, spin, bar, lo, hi] {
        const double v = valueAt(mDocument, path).toDouble();
        const QSignalBlocker block(spin);
        spin->setValue(v);
        if (bar) {
            const QSignalBlocker blockBar(bar);
            bar->setValue(int(std::lround((v - lo) / (hi - lo) * 1000.0)));
        }
    });
}

void RulesPanel::addRange(QFormLayout* form, const QString& label, const QString& path, double lo, double hi) {
    auto* row = new QWidget;
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    auto* a = new QDoubleSpinBox;
    auto* b = new QDoubleSpinBox;
    for (QDoubleSpinBox* s : {a, b}) {
        s->setRange(lo, hi);
        s->setSingleStep(0.05);
        s->setDecimals(2);
        s->setKeyboardTracking(false);
    }
    h->addWidget(a);
    h->addWidget(new QLabel("–"));
    h->addWidget(b);
    form->addRow(label, row);
    mEditors.insert(path, row);
    auto commit = [this, path, a, b] { edit(path, "[" + number(a->value()) + ", " + number(b->value()) + "]"); };
    connect(a, &QDoubleSpinBox::valueChanged, this, commit);
    connect(b, &QDoubleSpinBox::valueChanged, this, commit);
    mUpdaters.insert(path, [this, path, a, b] {
        const auto [x, y] = rangeOf(valueAt(mDocument, path));
        const QSignalBlocker ba(a), bb(b);
        a->setValue(x);
        b->setValue(y);
    });
}

void RulesPanel::addExpression(QFormLayout* form, const QString& label, const QString& path) {
    auto* editor = new ExpressionEditor;
    editor->setSingleLine(true);
    QStringList names;
    for (const std::string& n : core::placement::PlacementRules::expressionLayerNames(
             mDocument->map() ? mDocument->map()->rules.layerInfos() : std::vector<core::LayerInfo>{})) {
        names << QString::fromStdString(n);
    }
    for (const auto& e : mDocument->placementRules().expressions()) names << QString::fromStdString(e.name);
    editor->setLayerNames(names);
    form->addRow(label, editor);
    mEditors.insert(path, editor);
    connect(editor, &ExpressionEditor::committed, this,
            [this, path](const QString& text) { edit(path, text.trimmed()); });
    mUpdaters.insert(path, [this, path, editor] {
        const QSignalBlocker block(editor);
        editor->setText(valueAt(mDocument, path));
    });
}

void RulesPanel::addChoice(QFormLayout* form, const QString& label, const QString& path, const QStringList& choices) {
    auto* combo = new QComboBox;
    combo->addItems(choices);
    form->addRow(label, combo);
    mEditors.insert(path, combo);
    connect(combo, &QComboBox::currentTextChanged, this, [this, path](const QString& t) { edit(path, t); });
    mUpdaters.insert(path, [this, path, combo] {
        const QSignalBlocker block(combo);
        combo->setCurrentText(valueAt(mDocument, path));
    });
}

void RulesPanel::addText(QFormLayout* form, const QString& label, const QString& path, const QString& tip) {
    auto* line = new QLineEdit;
    line->setToolTip(tip);
    form->addRow(label, line);
    mEditors.insert(path, line);
    connect(line, &QLineEdit::editingFinished, this, [this, path, line] { edit(path, line->text().trimmed()); });
    mUpdaters.insert(path, [this, path, line] {
        const QSignalBlocker block(line);
        line->setText(valueAt(mDocument, path));
    });
}

void RulesPanel::addSeed(QFormLayout* form, const QString& path) {
    auto* spin = new QSpinBox;
    spin->setRange(0, std::numeric_limits<int>::max());
    spin->setKeyboardTracking(false);
    spin->setToolTip(tr("Mixed with the scene seed for this pass's random choices"));
    form->addRow(tr("Pass seed"), spin);
    mEditors.insert(path, spin);
    connect(spin, &QSpinBox::valueChanged, this, [this, path](int v) { edit(path, QString::number(v)); });
    mUpdaters.insert(path, [this, path, spin] {
        const QSignalBlocker block(spin);
        spin->setValue(valueAt(mDocument, path).toInt());
    });
}

void RulesPanel::addSpecies(QFormLayout* form, const QString& path) {
    // One weight per species of the class; any change writes the whole map back.
    const QString text = valueAt(mDocument, path);
    QString inner = text;
    inner.remove('{').remove('}');
    QStringList names;
    for (const QString& part : inner.split(',', Qt::SkipEmptyParts)) names << part.section(':', 0, 0).trimmed();
    auto* row = new QWidget;
    auto* grid = new QFormLayout(row);
    grid->setContentsMargins(12, 0, 0, 0);
    QList<QDoubleSpinBox*> spins;
    for (const QString& name : names) {
        auto* spin = new QDoubleSpinBox;
        spin->setRange(0.01, 1000);
        spin->setDecimals(2);
        spin->setKeyboardTracking(false);
        spin->setObjectName(path + "." + name);
        grid->addRow(name, spin);
        spins << spin;
    }
    form->addRow(tr("  species"), row);
    mEditors.insert(path, row);
    auto commit = [this, path, names, spins] {
        QStringList parts;
        for (int i = 0; i < names.size(); ++i) parts << names[i] + ": " + number(spins[i]->value());
        edit(path, "{" + parts.join(", ") + "}");
    };
    for (QDoubleSpinBox* s : spins) connect(s, &QDoubleSpinBox::valueChanged, this, commit);
    mUpdaters.insert(path, [this, path, names, spins] {
        QString t = valueAt(mDocument, path);
        t.remove('{').remove('}');
        for (const QString& part : t.split(',', Qt::SkipEmptyParts)) {
            const int i = static_cast<int>(names.indexOf(part.section(':', 0, 0).trimmed()));
            if (i < 0) continue;
            const QSignalBlocker block(spins[i]);
            spins[i]->setValue(part.section(':', 1).trimmed().toDouble());
        }
    });
}

}  // namespace terrabit::ui
