#pragma once
/// core's layer-name rule (core/rules/layer_name.h) on Qt's characters and text: the layer
/// editor's name field, and what the expression editor and its highlighter take for a word.
/// None of them writes a rule of its own.

#include <QChar>
#include <QValidator>

#include "terrabit/core/rules/layer_name.h"

namespace terrabit::ui {

/// core::isLayerNameStart for a QChar (a character beyond ASCII never is one).
inline bool isLayerNameStart(QChar c) {
    return c.unicode() < 0x80 && core::isLayerNameStart(static_cast<char>(c.unicode()));
}
/// core::isLayerNameChar for a QChar.
inline bool isLayerNameChar(QChar c) {
    return c.unicode() < 0x80 && core::isLayerNameChar(static_cast<char>(c.unicode()));
}

/// Accepts exactly the names core::isLayerName accepts; the empty field is Intermediate (still
/// being typed), anything else Invalid, so a character the rule refuses cannot be typed.
class LayerNameValidator : public QValidator {
public:
    using QValidator::QValidator;
    State validate(QString& input, int& position) const override;
};

}  // namespace terrabit::ui
