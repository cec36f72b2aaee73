#include "terrabit/core/algebra/expression_ast.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "terrabit/core/rules/layer_name.h"
#include "terrabit/core/tile/tile_id.h"

// The front end: a lexer, a precedence-climbing parser into a parse tree, and a resolver that
// checks names, arities and argument types and builds the ExprNode DAG. Failures are values:
// every stage records the first error as an ExpressionDiagnostic and unwinds by returning -1 /
// false, so nothing throws whatever the text.

namespace terrabit::core::algebra {

namespace {

// -- lexer ------------------------------------------------------------------------------------

enum class Tok : std::uint8_t {
    Name,
    Quoted,
    Number,
    Or,
    Xor,
    And,
    Minus,
    Tilde,
    LParen,
    RParen,
    Comma,
    Equals,
    Semicolon,
    Less,
    Greater,
    Newline,
    End,
};

struct Token {
    Tok kind = Tok::End;
    int offset = 0;         // byte offset into the text
    int length = 0;         // bytes
    std::string_view text;  // Name: the name; Quoted: the name without quotes
    double number = 0.0;    // Number: the value
    bool metres = false;    // Number: written with the unit m
    bool degrees = false;   // Number: written with the unit deg or °
};

bool isNameStart(char c) { return isLayerNameStart(c); }
bool isNameChar(char c) { return isLayerNameChar(c); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// Length in bytes of the UTF-8 sequence starting with c (1 for anything malformed).
int utf8Length(unsigned char c) {
    if (c >= 0xF0 && c <= 0xF7) return 4;
    if (c >= 0xE0) return c <= 0xEF ? 3 : 1;
    if (c >= 0xC0) return 2;
    return 1;
}

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

// -- parse tree -------------------------------------------------------------------------------

enum class PKind : std::uint8_t { Name, Quoted, Number, Compare, Not, Binary, Call };

struct PNode {
    PKind kind = PKind::Name;
    int offset = 0;
    int length = 0;
    std::string_view text;  // Name, Quoted, Call: the name
    double number = 0.0;    // Number, Compare: the value
    bool metres = false;    // Number, Compare
    bool degrees = false;   // Number, Compare
    Tok op = Tok::End;      // Binary; Compare: Less or Greater
    int valueOffset = 0;    // Compare: where its number starts (sign included)
    int valueLength = 0;    // Compare: the number's length with its unit
    int a = -1;             // Not, Binary
    int b = -1;             // Binary
    std::vector<int> args;  // Call
    int closeOffset = 0;    // Call: the ')' (for "too few arguments")
    int depth = 1;          // nesting depth of the subtree
};

struct Statement {
    bool definition = false;
    std::string_view name;  // definitions
    int nameOffset = 0;
    int expr = -1;
};

struct FunctionSpec {
    std::string_view name;
    ExprOp op;
    int minArgs;
    int maxArgs;
    std::string_view signature;
};

constexpr std::array<FunctionSpec, 11> kFunctions{{
    {"dilate", ExprOp::Dilate, 2, 3, "dilate(x, radius[, square|disk])"},
    {"erode", ExprOp::Erode, 2, 3, "erode(x, radius[, square|disk])"},
    {"open", ExprOp::Open, 2, 3, "open(x, radius[, square|disk])"},
    {"close", ExprOp::Close, 2, 3, "close(x, radius[, square|disk])"},
    {"edge", ExprOp::Edge, 1, 1, "edge(x)"},
    {"shift", ExprOp::Shift, 3, 3, "shift(x, dx, dy)"},
    {"random", ExprOp::Random, 1, 2, "random(p[, seed])"},
    {"noise", ExprOp::Noise, 2, 3, "noise(scale, threshold[, seed])"},
    {"height", ExprOp::Height, 1, 2, "height(>480m[, <1800m])"},
    {"slope", ExprOp::Slope, 1, 2, "slope(>25deg[, <40deg])"},
    {"aspect", ExprOp::Aspect, 1, 2, "aspect(N|NE|E|SE|S|SW|W|NW|bearing[, within])"},
}};

/// The lowest and highest height a relief comparison may name, metres: below the deepest ocean
/// trench and above the highest peak.
constexpr double kMinHeightMetres = -11000.0;
constexpr double kMaxHeightMetres = 9000.0;

/// The bearing of a compass direction name (N, NE, … or n, ne, …), degrees; -1 when it is none.
double compassBearing(std::string_view s) {
    static constexpr std::array<std::string_view, 8> kNames{"N", "NE", "E", "SE", "S", "SW", "W", "NW"};
    static constexpr std::array<std::string_view, 8> kLower{"n", "ne", "e", "se", "s", "sw", "w", "nw"};
    for (std::size_t i = 0; i < kNames.size(); ++i) {
        if (s == kNames[i] || s == kLower[i]) return 45.0 * static_cast<double>(i);
    }
    return -1.0;
}

const FunctionSpec* findFunction(std::string_view name) {
    for (const FunctionSpec& f : kFunctions) {
        if (f.name == name) return &f;
    }
    return nullptr;
}

bool isElementName(std::string_view s) { return s == "square" || s == "disk"; }
bool isKeyword(std::string_view s) { return s == "all" || s == "none" || isElementName(s) || findFunction(s); }

std::string lower(std::string_view s) {
    std::string r(s);
    for (char& c : r) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return r;
}

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), ignoring case.
int editDistance(std::string_view a0, std::string_view b0) {
    const std::string a = lower(a0), b = lower(b0);
    const std::size_t n = a.size(), m = b.size();
    std::vector<int> d((n + 1) * (m + 1));
    auto at = [&](std::size_t i, std::size_t j) -> int& { return d[i * (m + 1) + j]; };
    for (std::size_t i = 0; i <= n; ++i) at(i, 0) = static_cast<int>(i);
    for (std::size_t j = 0; j <= m; ++j) at(0, j) = static_cast<int>(j);
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int v = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) v = std::min(v, at(i - 2, j - 2) + 1);
            at(i, j) = v;
        }
    }
    return at(n, m);
}

/// The candidate closest to name, if it is close enough to be a plausible typo.
std::optional<std::string> closest(std::string_view name, const std::vector<std::string_view>& candidates) {
    const int allowed = name.size() <= 3 ? 1 : name.size() <= 6 ? 2 : 3;
    int best = allowed + 1;
    std::optional<std::string> found;
    for (std::string_view c : candidates) {
        const int d = editDistance(name, c);
        if (d < best) {
            best = d;
            found = std::string(c);
        }
    }
    return found;
}

std::string formatNumber(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    // Messages suggest what to write, and the grammar has no exponent: 1e-05 is written
    // 0.00001 (at six significant digits, trailing zeros dropped).
    if (std::strchr(buf, 'e') != nullptr && std::isfinite(v) && std::abs(v) < 1e15) {
        const int decimals = std::clamp(5 - static_cast<int>(std::floor(std::log10(std::abs(v)))), 0, 40);
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
        std::string text = buf;
        if (text.find('.') != std::string::npos) {
            while (text.back() == '0') text.pop_back();
            if (text.back() == '.') text.pop_back();
        }
        return text;
    }
    return buf;
}

// -- parser and resolver ----------------------------------------------------------------------

class Compiler {
public:
    Compiler(std::string_view text, const std::vector<std::string>& layerNames, const ExpressionOptions& options)
        : mText(text), mLayerNames(layerNames), mOptions(options) {}

    Result<ExpressionAst> run(ExpressionDiagnostic* diagnostic) {
        const bool ok = lex() && parseDocument() && resolve();
        if (!ok) {
            if (diagnostic) *diagnostic = mError;
            return Error{mError.text()};
        }
        if (diagnostic) *diagnostic = {};
        mAst.options = mOptions;
        mAst.layerCount = static_cast<int>(mLayerNames.size());
        return std::move(mAst);
    }

private:
    bool fail(int offset, int length, std::string what) {
        if (!mFailed) {
            mFailed = true;
            mError = ExpressionDiagnostic::at(mText, offset, length, std::move(what));
        }
        return false;
    }
    int failNode(int offset, int length, std::string what) {
        fail(offset, length, std::move(what));
        return -1;
    }

    // -- lexing -------------------------------------------------------------------------------
    bool lex() {
        const int n = static_cast<int>(mText.size());
        int i = 0;
        while (i < n) {
            const char c = mText[static_cast<std::size_t>(i)];
            if (c == ' ' || c == '\t' || c == '\r') {
                ++i;
                continue;
            }
            if (c == '#') {
                while (i < n && mText[static_cast<std::size_t>(i)] != '\n') ++i;
                continue;
            }
            Token t;
            t.offset = i;
            if (isNameStart(c)) {
                int j = i;
                while (j < n && isNameChar(mText[static_cast<std::size_t>(j)])) ++j;
                t.kind = Tok::Name;
                t.text = mText.substr(static_cast<std::size_t>(i), static_cast<std::size_t>(j - i));
                t.length = j - i;
            } else if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(mText[static_cast<std::size_t>(i + 1)]))) {
                if (!lexNumber(i, t)) return false;
            } else if (c == '"') {
                int j = i + 1;
                while (j < n && mText[static_cast<std::size_t>(j)] != '"' && mText[static_cast<std::size_t>(j)] != '\n')
                    ++j;
                if (j >= n || mText[static_cast<std::size_t>(j)] != '"') {
                    return fail(i, 1, "this quoted layer name has no closing '\"' on its line");
                }
                if (j == i + 1) return fail(i, 2, "a quoted layer name cannot be empty");
                t.kind = Tok::Quoted;
                t.text = mText.substr(static_cast<std::size_t>(i + 1), static_cast<std::size_t>(j - i - 1));
                t.length = j + 1 - i;
            } else {
                t.length = 1;
                switch (c) {
                    case '|':
                        t.kind = Tok::Or;
                        break;
                    case '^':
                        t.kind = Tok::Xor;
                        break;
                    case '&':
                        t.kind = Tok::And;
                        break;
                    case '-':
                        t.kind = Tok::Minus;
                        break;
                    case '~':
                        t.kind = Tok::Tilde;
                        break;
                    case '(':
                        t.kind = Tok::LParen;
                        break;
                    case ')':
                        t.kind = Tok::RParen;
                        break;
                    case ',':
                        t.kind = Tok::Comma;
                        break;
                    case '=':
                        t.kind = Tok::Equals;
                        break;
                    case ';':
                        t.kind = Tok::Semicolon;
                        break;
                    case '<':
                        t.kind = Tok::Less;
                        break;
                    case '>':
                        t.kind = Tok::Greater;
                        break;
                    case '\n':
                        t.kind = Tok::Newline;
                        break;
                    default: {
                        const int len = std::min(utf8Length(static_cast<unsigned char>(c)), n - i);
                        const std::string_view ch =
                            mText.substr(static_cast<std::size_t>(i), static_cast<std::size_t>(len));
                        std::string hint;
                        if (c == '!') hint = " (write ~ for not)";
                        if (c == '+') hint = " (write | for or)";
                        if (c == '*') hint = " (write & for and)";
                        return fail(i, len, "unexpected character " + quote(ch) + hint);
                    }
                }
            }
            i = t.offset + t.length;
            mTokens.push_back(t);
        }
        Token end;
        end.kind = Tok::End;
        end.offset = n;
        end.length = 0;
        mTokens.push_back(end);
        return true;
    }

    bool lexNumber(int i, Token& t) {
        const int n = static_cast<int>(mText.size());
        int j = i;
        while (j < n && isDigit(mText[static_cast<std::size_t>(j)])) ++j;
        if (j < n && mText[static_cast<std::size_t>(j)] == '.') {
            ++j;
            while (j < n && isDigit(mText[static_cast<std::size_t>(j)])) ++j;
        }
        const char* first = mText.data() + i;
        const auto [ptr, ec] = std::from_chars(first, mText.data() + j, t.number);
        if (ec != std::errc() || ptr != mText.data() + j || !std::isfinite(t.number)) {
            return fail(i, j - i, "this number is out of range");
        }
        int k = j;
        if (mText.substr(static_cast<std::size_t>(j)).starts_with("\xc2\xb0")) {  // 25°
            k = j + 2;
            t.degrees = true;
        }
        while (k < n && isNameChar(mText[static_cast<std::size_t>(k)])) ++k;
        if (k > j && !t.degrees) {
            const std::string_view unit = mText.substr(static_cast<std::size_t>(j), static_cast<std::size_t>(k - j));
            if (unit == "m") {
                t.metres = true;
            } else if (unit == "deg") {
                t.degrees = true;
            } else {
                return fail(
                    j, k - j,
                    "unknown unit " + quote(unit) + ": write m for metres, deg for degrees, or no unit for cells");
            }
        } else if (t.degrees && k > j + 2) {
            return fail(j, k - j,
                        "unknown unit " +
                            quote(mText.substr(static_cast<std::size_t>(j), static_cast<std::size_t>(k - j))) +
                            ": write m for metres, deg for degrees, or no unit for cells");
        }
        t.kind = Tok::Number;
        t.offset = i;
        t.length = k - i;
        return true;
    }

    // -- parsing ------------------------------------------------------------------------------
    const Token& peek() {
        // Inside parentheses a line break is only whitespace.
        while (mParenDepth > 0 && mTokens[mPos].kind == Tok::Newline) ++mPos;
        return mTokens[mPos];
    }
    const Token& peekAt(std::size_t ahead) {
        peek();
        return mTokens[std::min(mPos + ahead, mTokens.size() - 1)];
    }
    const Token& take() {
        const Token& t = peek();
        if (t.kind != Tok::End) ++mPos;
        return t;
    }
    void skipNewlines() {
        while (mTokens[mPos].kind == Tok::Newline) ++mPos;
    }

    std::string describe(const Token& t) const {
        switch (t.kind) {
            case Tok::End:
                return "the end of the text";
            case Tok::Newline:
                return "the end of the line";
            default:
                return quote(mText.substr(static_cast<std::size_t>(t.offset), static_cast<std::size_t>(t.length)));
        }
    }

    int addNode(PNode n) {
        mNodes.push_back(std::move(n));
        return static_cast<int>(mNodes.size()) - 1;
    }

    bool parseDocument() {
        for (;;) {
            while (mTokens[mPos].kind == Tok::Newline || mTokens[mPos].kind == Tok::Semicolon) ++mPos;
            const Token& first = mTokens[mPos];
            if (first.kind == Tok::End) break;
            Statement s;
            if (first.kind == Tok::Name && mTokens[mPos + 1].kind == Tok::Equals) {
                s.definition = true;
                s.name = first.text;
                s.nameOffset = first.offset;
                mPos += 2;
                skipNewlines();
            }
            s.expr = parseBinary(1);
            if (s.expr < 0) return false;
            const Token& after = mTokens[mPos];
            if (after.kind == Tok::Equals) {
                return fail(after.offset, 1,
                            "'=' can only follow a single name at the start of a statement (name = expression)");
            }
            if (after.kind == Tok::RParen) return fail(after.offset, 1, "this ')' has no matching '('");
            if (after.kind != Tok::Newline && after.kind != Tok::Semicolon && after.kind != Tok::End) {
                return fail(after.offset, after.length,
                            "expected an operator (| ^ & -) or the end of the statement, found " + describe(after));
            }
            mStatements.push_back(s);
        }
        return true;
    }

    static int precedence(Tok k) {
        switch (k) {
            case Tok::Or:
                return 1;
            case Tok::Xor:
                return 2;
            case Tok::And:
                return 3;
            case Tok::Minus:
                return 4;
            default:
                return 0;
        }
    }

    int parseBinary(int minPrec) {
        int lhs = parseUnary();
        if (lhs < 0) return -1;
        for (;;) {
            const Token& op = peek();
            const int prec = precedence(op.kind);
            if (prec == 0 || prec < minPrec) return lhs;
            take();
            skipNewlines();  // an operator at the end of a line continues the expression
            const int rhs = parseBinary(prec + 1);
            if (rhs < 0) return -1;
            PNode n;
            n.kind = PKind::Binary;
            n.op = op.kind;
            n.a = lhs;
            n.b = rhs;
            n.offset = mNodes[static_cast<std::size_t>(lhs)].offset;
            n.length = end(rhs) - n.offset;
            n.depth =
                1 + std::max(mNodes[static_cast<std::size_t>(lhs)].depth, mNodes[static_cast<std::size_t>(rhs)].depth);
            if (n.depth > kMaxDepth) return tooDeep(op.offset, op.length);
            lhs = addNode(std::move(n));
        }
    }

    int tooDeep(int offset, int length) {
        return failNode(offset, length,
                        "the expression nests more than " + std::to_string(kMaxDepth) + " operations deep");
    }

    int end(int node) const {
        const PNode& n = mNodes[static_cast<std::size_t>(node)];
        return n.offset + n.length;
    }

    int parseUnary() {
        if (++mNesting > kMaxDepth) {
            const Token& t = peek();
            --mNesting;
            return tooDeep(t.offset, std::max(t.length, 1));
        }
        const int r = parseUnaryInner();
        --mNesting;
        return r;
    }

    int parseUnaryInner() {
        const Token& t = peek();
        if (t.kind == Tok::Tilde) {
            take();
            skipNewlines();
            const int operand = parseUnary();
            if (operand < 0) return -1;
            PNode n;
            n.kind = PKind::Not;
            n.a = operand;
            n.offset = t.offset;
            n.length = end(operand) - t.offset;
            n.depth = 1 + mNodes[static_cast<std::size_t>(operand)].depth;
            if (n.depth > kMaxDepth) return tooDeep(t.offset, 1);
            return addNode(std::move(n));
        }
        if (t.kind == Tok::Minus && peekAt(1).kind == Tok::Number) {
            take();
            const Token& num = take();
            PNode n;
            n.kind = PKind::Number;
            n.number = -num.number;
            n.metres = num.metres;
            n.degrees = num.degrees;
            n.offset = t.offset;
            n.length = num.offset + num.length - t.offset;
            return addNode(std::move(n));
        }
        return parsePrimary();
    }

    int parsePrimary() {
        const Token& t = peek();
        switch (t.kind) {
            case Tok::LParen: {
                take();
                ++mParenDepth;
                const int inner = parseBinary(1);
                if (inner < 0) return -1;
                const Token& close = peek();
                if (close.kind != Tok::RParen) {
                    const ExpressionDiagnostic open = ExpressionDiagnostic::at(mText, t.offset, 1, "");
                    return failNode(close.offset, close.length,
                                    "expected ')' to close the '(' at line " + std::to_string(open.line) + ", column " +
                                        std::to_string(open.column) + ", found " + describe(close));
                }
                --mParenDepth;
                take();
                // The parentheses belong to the span, so errors about the group underline all of it.
                PNode& n = mNodes[static_cast<std::size_t>(inner)];
                n.offset = t.offset;
                n.length = close.offset + 1 - t.offset;
                return inner;
            }
            case Tok::Name: {
                take();
                if (peek().kind == Tok::LParen) return parseCall(t);
                PNode n;
                n.kind = PKind::Name;
                n.text = t.text;
                n.offset = t.offset;
                n.length = t.length;
                return addNode(std::move(n));
            }
            case Tok::Quoted: {
                take();
                PNode n;
                n.kind = PKind::Quoted;
                n.text = t.text;
                n.offset = t.offset;
                n.length = t.length;
                return addNode(std::move(n));
            }
            case Tok::Number: {
                take();
                PNode n;
                n.kind = PKind::Number;
                n.number = t.number;
                n.metres = t.metres;
                n.degrees = t.degrees;
                n.offset = t.offset;
                n.length = t.length;
                return addNode(std::move(n));
            }
            case Tok::Less:
            case Tok::Greater:
                return parseComparison();
            case Tok::Minus:
                return failNode(t.offset, 1, "expected an operand before '-' (write ~ for not)");
            default:
                return failNode(t.offset, t.length,
                                "expected a layer name, a function call, '(' or '~', found " + describe(t));
        }
    }

    /// '<' or '>' and a number, as in height(>1800m): the comparison's value keeps its unit.
    int parseComparison() {
        const Token& op = take();
        PNode n;
        n.kind = PKind::Compare;
        n.op = op.kind;
        n.offset = op.offset;
        bool negative = false;
        n.valueOffset = peek().offset;
        if (peek().kind == Tok::Minus && peekAt(1).kind == Tok::Number) {
            take();
            negative = true;
        }
        const Token& num = peek();
        if (num.kind != Tok::Number) {
            return failNode(num.offset, std::max(num.length, 1),
                            "expected a number with its unit after " + quote(op.kind == Tok::Less ? "<" : ">") +
                                ", such as >1800m or <25deg; found " + describe(num));
        }
        take();
        n.number = negative ? -num.number : num.number;
        n.metres = num.metres;
        n.degrees = num.degrees;
        n.length = num.offset + num.length - op.offset;
        n.valueLength = num.offset + num.length - n.valueOffset;
        return addNode(std::move(n));
    }

    int parseCall(const Token& name) {
        const Token& open = take();  // '('
        ++mParenDepth;
        PNode n;
        n.kind = PKind::Call;
        n.text = name.text;
        n.offset = name.offset;
        int depth = 1;
        if (peek().kind != Tok::RParen) {
            for (;;) {
                const int arg = parseBinary(1);
                if (arg < 0) return -1;
                n.args.push_back(arg);
                depth = std::max(depth, 1 + mNodes[static_cast<std::size_t>(arg)].depth);
                const Token& sep = peek();
                if (sep.kind == Tok::Comma) {
                    take();
                    continue;
                }
                if (sep.kind == Tok::RParen) break;
                const ExpressionDiagnostic o = ExpressionDiagnostic::at(mText, open.offset, 1, "");
                return failNode(sep.offset, sep.length,
                                "expected ',' or ')' in the arguments of " + quote(name.text) + " (opened at line " +
                                    std::to_string(o.line) + ", column " + std::to_string(o.column) + "), found " +
                                    describe(sep));
            }
        }
        const Token& close = take();  // ')'
        --mParenDepth;
        n.closeOffset = close.offset;
        n.length = close.offset + 1 - name.offset;
        n.depth = depth;
        if (n.depth > kMaxDepth) return tooDeep(name.offset, name.length);
        return addNode(std::move(n));
    }

    // -- resolving ----------------------------------------------------------------------------
    struct Resolved {
        int depth = 0;  // nesting depth
        int reach = 0;  // cells read beyond the tile along one axis
    };

    bool resolve() {
        if (mStatements.empty()) return fail(0, 1, "there is no expression: write one, such as grass & ~road");
        for (std::size_t i = 0; i < mStatements.size(); ++i) {
            const Statement& s = mStatements[i];
            if (!s.definition) {
                if (i + 1 != mStatements.size()) {
                    const PNode& e = mNodes[static_cast<std::size_t>(s.expr)];
                    return fail(e.offset, e.length,
                                "only the last statement may be a bare expression; name this one (name = ...) or "
                                "remove it");
                }
                continue;
            }
            const int nameLen = static_cast<int>(s.name.size());
            if (isKeyword(s.name)) {
                return fail(s.nameOffset, nameLen, quote(s.name) + " is a keyword and cannot be redefined");
            }
            if (layerId(s.name) >= 0) {
                return fail(s.nameOffset, nameLen,
                            quote(s.name) + " is already a layer of the map; give the definition another name");
            }
            auto [it, inserted] = mDefinitionIndex.emplace(s.name, i);
            if (!inserted) {
                const Statement& first = mStatements[it->second];
                const ExpressionDiagnostic where = ExpressionDiagnostic::at(mText, first.nameOffset, 1, "");
                return fail(s.nameOffset, nameLen,
                            quote(s.name) + " is already defined at line " + std::to_string(where.line) + ", column " +
                                std::to_string(where.column));
            }
        }
        mDefinitionNode.assign(mStatements.size(), -1);
        mDefinitionState.assign(mStatements.size(), State::Unvisited);
        for (std::size_t i = 0; i < mStatements.size(); ++i) {
            if (mStatements[i].definition && resolveDefinition(i) < 0) return false;
        }
        const Statement& last = mStatements.back();
        const int root = last.definition ? mDefinitionNode[mStatements.size() - 1] : resolveMask(last.expr);
        if (root < 0) return false;
        for (std::size_t i = 0; i < mStatements.size(); ++i) {
            if (mStatements[i].definition)
                mAst.definitions.push_back({std::string(mStatements[i].name), mDefinitionNode[i]});
        }
        mAst.root = root;
        return true;
    }

    int layerId(std::string_view name) const {
        for (std::size_t i = 0; i < mLayerNames.size(); ++i) {
            if (mLayerNames[i] == name) return static_cast<int>(i);
        }
        return -1;
    }

    int resolveDefinition(std::size_t index) {
        if (mDefinitionState[index] == State::Done) return mDefinitionNode[index];
        // Definitions that use later ones resolve recursively; bound the recursion even for
        // chains of plain aliases (a = b, b = c, ...), which add no depth to the nodes.
        if (mChain.size() >= static_cast<std::size_t>(kMaxDepth)) {
            return tooDeep(mStatements[index].nameOffset, static_cast<int>(mStatements[index].name.size()));
        }
        mDefinitionState[index] = State::InProgress;
        mChain.push_back(index);
        const int node = resolveMask(mStatements[index].expr);
        mChain.pop_back();
        if (node < 0) return -1;
        mDefinitionState[index] = State::Done;
        mDefinitionNode[index] = node;
        return node;
    }

    int add(ExprNode n, const PNode& where, Resolved r) {
        if (r.depth > kMaxDepth) return tooDeep(where.offset, where.length);
        if (r.reach > kMaxReach) {
            return failNode(where.offset, where.length,
                            "this reads " + std::to_string(r.reach) + " cells beyond each tile; the limit is " +
                                std::to_string(kMaxReach) + " (radii and shifts add up along a chain)");
        }
        n.offset = where.offset;
        n.length = where.length;
        mAst.nodes.push_back(n);
        mInfo.push_back(r);
        return static_cast<int>(mAst.nodes.size()) - 1;
    }

    const Resolved& info(int node) const { return mInfo[static_cast<std::size_t>(node)]; }

    std::vector<std::string_view> layerAndDefinitionNames() const {
        std::vector<std::string_view> names(mLayerNames.begin(), mLayerNames.end());
        for (const Statement& s : mStatements) {
            if (s.definition) names.push_back(s.name);
        }
        return names;
    }

    int unknownName(const PNode& p, bool quoted) {
        std::vector<std::string_view> candidates =
            quoted ? std::vector<std::string_view>(mLayerNames.begin(), mLayerNames.end()) : layerAndDefinitionNames();
        std::string what = "unknown layer " + quote(p.text);
        if (auto best = closest(p.text, candidates)) {
            what += " (did you mean " + quote(*best) + "?)";
        } else if (!mLayerNames.empty() && mLayerNames.size() <= 16) {
            what += " (the layers are:";
            for (std::size_t i = 0; i < mLayerNames.size(); ++i) what += (i ? ", " : " ") + mLayerNames[i];
            what += ")";
        }
        return failNode(p.offset, p.length, std::move(what));
    }

    int resolveMask(int pindex) {
        const PNode& p = mNodes[static_cast<std::size_t>(pindex)];
        switch (p.kind) {
            case PKind::Number:
                return failNode(p.offset, p.length,
                                "a number is not a layer; numbers belong in function arguments such as dilate(x, 2)");
            case PKind::Compare:
                return failNode(p.offset, p.length,
                                "a comparison is not a layer; it goes inside height(...) or slope(...), as in "
                                "slope(>25deg)");
            case PKind::Quoted: {
                const int id = layerId(p.text);
                if (id < 0) return unknownName(p, true);
                ExprNode n;
                n.op = ExprOp::Layer;
                n.layer = id;
                return add(n, p, {1, 0});
            }
            case PKind::Name:
                return resolveName(p);
            case PKind::Not: {
                const int a = resolveMask(p.a);
                if (a < 0) return -1;
                ExprNode n;
                n.op = ExprOp::Not;
                n.a = a;
                return add(n, p, {info(a).depth + 1, info(a).reach});
            }
            case PKind::Binary: {
                const int a = resolveMask(p.a);
                if (a < 0) return -1;
                const int b = resolveMask(p.b);
                if (b < 0) return -1;
                ExprNode n;
                n.op = p.op == Tok::Or    ? ExprOp::Or
                       : p.op == Tok::Xor ? ExprOp::Xor
                       : p.op == Tok::And ? ExprOp::And
                                          : ExprOp::AndNot;
                n.a = a;
                n.b = b;
                return add(n, p, {std::max(info(a).depth, info(b).depth) + 1, std::max(info(a).reach, info(b).reach)});
            }
            case PKind::Call:
                return resolveCall(p);
        }
        return -1;
    }

    int resolveName(const PNode& p) {
        if (p.text == "all" || p.text == "none") {
            ExprNode n;
            n.op = p.text == "all" ? ExprOp::All : ExprOp::None;
            return add(n, p, {1, 0});
        }
        if (auto it = mDefinitionIndex.find(p.text); it != mDefinitionIndex.end()) {
            const std::size_t index = it->second;
            if (mDefinitionState[index] == State::InProgress) {
                std::string chain;
                auto start = std::find(mChain.begin(), mChain.end(), index);
                for (auto i = start; i != mChain.end(); ++i) chain += std::string(mStatements[*i].name) + " -> ";
                chain += std::string(p.text);
                return failNode(p.offset, p.length, "definition cycle: " + chain);
            }
            const int node = resolveDefinition(index);
            if (node < 0) return -1;
            if (info(node).depth > kMaxDepth) return tooDeep(p.offset, p.length);
            return node;
        }
        if (const int id = layerId(p.text); id >= 0) {
            ExprNode n;
            n.op = ExprOp::Layer;
            n.layer = id;
            return add(n, p, {1, 0});
        }
        if (const FunctionSpec* f = findFunction(p.text)) {
            return failNode(p.offset, p.length,
                            quote(p.text) + " is a function; call it as " + std::string(f->signature));
        }
        if (isElementName(p.text)) {
            return failNode(p.offset, p.length,
                            quote(p.text) + " is a structuring element; it goes third in dilate, erode, open or close");
        }
        return unknownName(p, false);
    }

    // Argument checking. Each returns false (with the error recorded) when the argument is not
    // what the function needs.
    bool numberArg(const PNode& call, int index, const char* what, const PNode*& out) {
        const PNode& arg = mNodes[static_cast<std::size_t>(call.args[static_cast<std::size_t>(index)])];
        if (arg.kind != PKind::Number) {
            return fail(arg.offset, arg.length,
                        "argument " + std::to_string(index + 1) + " of " + std::string(call.text) + " must be " + what +
                            (arg.kind == PKind::Compare ? ", not a comparison" : ", not a layer expression"));
        }
        if (arg.degrees) {
            return fail(arg.offset, arg.length,
                        "argument " + std::to_string(index + 1) + " of " + std::string(call.text) + " must be " + what +
                            "; degrees only go in slope and aspect");
        }
        out = &arg;
        return true;
    }

    /// A layer-expression argument: a number there is a type error naming the argument.
    int maskArg(const PNode& call, int index) {
        const PNode& arg = mNodes[static_cast<std::size_t>(call.args[static_cast<std::size_t>(index)])];
        if (arg.kind == PKind::Number || arg.kind == PKind::Compare) {
            return failNode(arg.offset, arg.length,
                            "argument " + std::to_string(index + 1) + " of " + std::string(call.text) +
                                " must be a layer expression, not a " +
                                (arg.kind == PKind::Number ? "number" : "comparison"));
        }
        return resolveMask(call.args[static_cast<std::size_t>(index)]);
    }

    bool metresToCells(const PNode& arg, double& cells) {
        if (!arg.metres) {
            cells = arg.number;
            return true;
        }
        if (!std::isfinite(mOptions.latitude)) {
            return fail(arg.offset, arg.length,
                        "a distance in metres needs the scene's latitude to become cells, and none was given");
        }
        cells = arg.number / metresPerCell(mOptions.latitude, mOptions.zoom);
        return true;
    }

    std::string cellsNote(const PNode& arg, double cells) const {
        if (!arg.metres) return "";
        return " (" + formatNumber(arg.number) + "m is " + formatNumber(cells) + " cells at zoom " +
               std::to_string(mOptions.zoom) + ", latitude " + formatNumber(mOptions.latitude) + ")";
    }

    /// A whole number of cells (metres rounded) within [lo, hi].
    bool wholeCellsArg(const PNode& call, int index, const char* what, int lo, int hi, int& out) {
        const PNode* arg = nullptr;
        if (!numberArg(call, index, what, arg)) return false;
        double cells = 0;
        if (!metresToCells(*arg, cells)) return false;
        if (!arg->metres && cells != std::floor(cells)) {
            return fail(arg->offset, arg->length,
                        std::string(what) + " in cells must be a whole number; for metres write " +
                            formatNumber(arg->number) + "m");
        }
        const double rounded = std::round(cells);
        if (rounded < lo || rounded > hi) {
            return fail(arg->offset, arg->length,
                        std::string(what) + " of " + formatNumber(rounded) + " cells" + cellsNote(*arg, cells) +
                            " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
        }
        out = static_cast<int>(rounded);
        return true;
    }

    bool fractionArg(const PNode& call, int index, const char* what, double& out) {
        const PNode* arg = nullptr;
        if (!numberArg(call, index, what, arg)) return false;
        if (arg->metres) return fail(arg->offset, arg->length, std::string(what) + " has no unit");
        if (!(arg->number >= 0.0 && arg->number <= 1.0)) {
            return fail(arg->offset, arg->length,
                        std::string(what) + " " + formatNumber(arg->number) + " is outside 0..1");
        }
        out = arg->number;
        return true;
    }

    bool seedArg(const PNode& call, int index, std::uint64_t& out) {
        out = 0;
        if (static_cast<int>(call.args.size()) <= index) return true;
        const PNode* arg = nullptr;
        if (!numberArg(call, index, "a seed (a whole number)", arg)) return false;
        if (arg->metres || arg->number < 0 || arg->number != std::floor(arg->number) ||
            arg->number > 9007199254740992.0) {
            return fail(arg->offset, arg->length, "a seed must be a whole number from 0 to 2^53, without a unit");
        }
        out = static_cast<std::uint64_t>(arg->number);
        return true;
    }

    bool elementArg(const PNode& call, int index, StructuringElement& out) {
        out = StructuringElement::Square;
        if (static_cast<int>(call.args.size()) <= index) return true;
        const PNode& arg = mNodes[static_cast<std::size_t>(call.args[static_cast<std::size_t>(index)])];
        if (arg.kind == PKind::Name && arg.text == "square") return true;
        if (arg.kind == PKind::Name && arg.text == "disk") {
            out = StructuringElement::Disk;
            return true;
        }
        return fail(
            arg.offset, arg.length,
            "argument " + std::to_string(index + 1) + " of " + std::string(call.text) + " must be square or disk");
    }

    /// The comparisons of height or slope (one, or one '>' and one '<'), in metres or degrees,
    /// into n.above and n.below.
    bool comparisonArgs(const PNode& call, bool angle, ExprNode& n) {
        const std::string name(call.text);
        const char* example = angle ? ">25deg" : ">1800m";
        bool seenAbove = false, seenBelow = false;
        for (std::size_t i = 0; i < call.args.size(); ++i) {
            const PNode& arg = mNodes[static_cast<std::size_t>(call.args[i])];
            if (arg.kind != PKind::Compare) {
                return fail(arg.offset, arg.length,
                            "argument " + std::to_string(i + 1) + " of " + name + " must be a comparison such as " +
                                example + (angle ? " or <10deg" : " or <480m"));
            }
            const int valueOffset = arg.valueOffset;
            const int valueLength = arg.valueLength;
            const std::string written = formatNumber(arg.number);
            if (angle && !arg.degrees) {
                return fail(valueOffset, valueLength,
                            arg.metres ? "a slope is an angle, not a distance: write " + written + "deg"
                                       : "a slope needs its unit: write " + written + "deg");
            }
            if (!angle && !arg.metres) {
                return fail(valueOffset, valueLength,
                            arg.degrees ? "a height is in metres, not degrees: write " + written + "m"
                                        : "a height needs its unit: write " + written + "m");
            }
            const double lo = angle ? 0.0 : kMinHeightMetres;
            const double hi = angle ? 90.0 : kMaxHeightMetres;
            if (!(arg.number >= lo && arg.number <= hi)) {
                const char* unit = angle ? "deg" : "m";
                return fail(valueOffset, valueLength,
                            std::string(angle ? "a slope of " : "a height of ") + written + unit + " is outside " +
                                formatNumber(lo) + unit + ".." + formatNumber(hi) + unit);
            }
            const bool isAbove = arg.op == Tok::Greater;
            if ((isAbove && seenAbove) || (!isAbove && seenBelow)) {
                return fail(arg.offset, arg.length,
                            name + " takes at most one '>' and one '<' (a band: " + name +
                                (angle ? "(>10deg, <25deg)" : "(>480m, <1800m)") + ")");
            }
            (isAbove ? seenAbove : seenBelow) = true;
            (isAbove ? n.above : n.below) = arg.number;
        }
        return true;
    }

    /// aspect's direction (a compass name or a bearing in degrees) and half-width.
    bool aspectArgs(const PNode& call, ExprNode& n) {
        const PNode& dir = mNodes[static_cast<std::size_t>(call.args[0])];
        const std::string kDirections = "N, NE, E, SE, S, SW, W, NW or a bearing such as 135deg";
        if (dir.kind == PKind::Name) {
            const double bearing = compassBearing(dir.text);
            if (bearing < 0.0) {
                return fail(dir.offset, dir.length,
                            "argument 1 of aspect must be a direction: " + kDirections + "; found " + quote(dir.text));
            }
            n.direction = bearing;
        } else if (dir.kind == PKind::Number) {
            if (!dir.degrees) {
                return fail(dir.offset, dir.length,
                            dir.metres
                                ? "a bearing is an angle, not a distance: write " + formatNumber(dir.number) + "deg"
                                : "a bearing needs its unit: write " + formatNumber(dir.number) + "deg");
            }
            if (!(dir.number >= 0.0 && dir.number <= 360.0)) {
                return fail(dir.offset, dir.length,
                            "a bearing of " + formatNumber(dir.number) + "deg is outside 0deg..360deg");
            }
            n.direction = dir.number == 360.0 ? 0.0 : dir.number;
        } else {
            return fail(dir.offset, dir.length, "argument 1 of aspect must be a direction: " + kDirections);
        }
        n.within = 22.5;
        if (call.args.size() < 2) return true;
        const PNode& w = mNodes[static_cast<std::size_t>(call.args[1])];
        if (w.kind != PKind::Number) {
            return fail(w.offset, w.length, "argument 2 of aspect must be an angle such as 45deg");
        }
        if (!w.degrees) {
            return fail(w.offset, w.length,
                        w.metres
                            ? "an aspect's width is an angle, not a distance: write " + formatNumber(w.number) + "deg"
                            : "an aspect's width needs its unit: write " + formatNumber(w.number) + "deg");
        }
        if (!(w.number > 0.0 && w.number <= 180.0)) {
            return fail(w.offset, w.length,
                        "an aspect's width of " + formatNumber(w.number) + "deg is outside 0deg..180deg (above 0)");
        }
        n.within = w.number;
        return true;
    }

    int resolveCall(const PNode& p) {
        const FunctionSpec* f = findFunction(p.text);
        if (!f) {
            std::vector<std::string_view> names;
            for (const FunctionSpec& s : kFunctions) names.push_back(s.name);
            std::string what = "unknown function " + quote(p.text);
            if (auto best = closest(p.text, names)) {
                what += " (did you mean " + quote(*best) + "?)";
            } else if (layerId(p.text) >= 0 || mDefinitionIndex.count(p.text)) {
                what += " (" + quote(p.text) + " is a layer, not a function)";
            }
            return failNode(p.offset, static_cast<int>(p.text.size()), std::move(what));
        }
        const int count = static_cast<int>(p.args.size());
        if (count < f->minArgs || count > f->maxArgs) {
            const std::string expected = f->minArgs == f->maxArgs
                                             ? std::to_string(f->minArgs)
                                             : std::to_string(f->minArgs) + " or " + std::to_string(f->maxArgs);
            std::string what = std::string(f->name) + " takes " + expected + " argument" +
                               (f->maxArgs == 1 ? "" : "s") + ", " + std::string(f->signature) + "; found " +
                               std::to_string(count);
            if (count > f->maxArgs) {
                const PNode& extra = mNodes[static_cast<std::size_t>(p.args[static_cast<std::size_t>(f->maxArgs)])];
                return failNode(extra.offset, extra.length, std::move(what));
            }
            return failNode(p.closeOffset, 1, std::move(what));
        }

        ExprNode n;
        n.op = f->op;
        Resolved r{1, 0};
        switch (f->op) {
            case ExprOp::Dilate:
            case ExprOp::Erode:
            case ExprOp::Open:
            case ExprOp::Close: {
                if ((n.a = maskArg(p, 0)) < 0) return -1;
                if (!wholeCellsArg(p, 1, "a radius", 0, kMaxRadius, n.radius)) return -1;
                if (!elementArg(p, 2, n.element)) return -1;
                const int factor = (f->op == ExprOp::Open || f->op == ExprOp::Close) ? 2 : 1;
                r = {info(n.a).depth + factor, info(n.a).reach + factor * n.radius};
                break;
            }
            case ExprOp::Edge:
                if ((n.a = maskArg(p, 0)) < 0) return -1;
                r = {info(n.a).depth + 1, info(n.a).reach + 1};
                break;
            case ExprOp::Shift:
                if ((n.a = maskArg(p, 0)) < 0) return -1;
                if (!wholeCellsArg(p, 1, "a shift", -kMaxShift, kMaxShift, n.dx)) return -1;
                if (!wholeCellsArg(p, 2, "a shift", -kMaxShift, kMaxShift, n.dy)) return -1;
                r = {info(n.a).depth + 1, info(n.a).reach + std::max(std::abs(n.dx), std::abs(n.dy))};
                break;
            case ExprOp::Random:
                if (!fractionArg(p, 0, "a probability", n.probability)) return -1;
                if (!seedArg(p, 1, n.seed)) return -1;
                break;
            case ExprOp::Noise: {
                const PNode* scale = nullptr;
                if (!numberArg(p, 0, "a scale (cells, or metres such as 20m)", scale)) return -1;
                double cells = 0;
                if (!metresToCells(*scale, cells)) return -1;
                if (!(cells >= 1.0 && cells <= 65536.0)) {
                    return failNode(scale->offset, scale->length,
                                    "a noise scale of " + formatNumber(cells) + " cells" + cellsNote(*scale, cells) +
                                        " is outside 1..65536 cells");
                }
                n.scaleCells = cells;
                if (!fractionArg(p, 1, "a threshold", n.threshold)) return -1;
                if (!seedArg(p, 2, n.seed)) return -1;
                break;
            }
            case ExprOp::Height:
            case ExprOp::Slope:
                if (!comparisonArgs(p, f->op == ExprOp::Slope, n)) return -1;
                break;
            case ExprOp::Aspect:
                if (!aspectArgs(p, n)) return -1;
                break;
            default:
                return -1;
        }
        return add(n, p, r);
    }

    enum class State : std::uint8_t { Unvisited, InProgress, Done };

    std::string_view mText;
    const std::vector<std::string>& mLayerNames;
    ExpressionOptions mOptions;

    std::vector<Token> mTokens;
    std::size_t mPos = 0;
    int mParenDepth = 0;
    int mNesting = 0;
    std::vector<PNode> mNodes;
    std::vector<Statement> mStatements;

    std::unordered_map<std::string_view, std::size_t> mDefinitionIndex;
    std::vector<int> mDefinitionNode;
    std::vector<State> mDefinitionState;
    std::vector<std::size_t> mChain;
    std::vector<Resolved> mInfo;

    ExpressionAst mAst;
    bool mFailed = false;
    ExpressionDiagnostic mError;
};

}  // namespace

Result<ExpressionAst> ExpressionAst::parse(std::string_view text, const std::vector<std::string>& layerNames,
                                           const ExpressionOptions& options, ExpressionDiagnostic* diagnostic) {
    if (options.zoom < 0 || options.zoom > kMaxZoom) {
        if (diagnostic) *diagnostic = {};
        return Error{"layer expression: zoom " + std::to_string(options.zoom) + " is outside 0.." +
                     std::to_string(kMaxZoom)};
    }
    if (text.size() > (std::size_t{1} << 24)) {
        if (diagnostic) *diagnostic = {};
        return Error{"layer expression: the text is longer than 16 MiB"};
    }
    return Compiler(text, layerNames, options).run(diagnostic);
}

}  // namespace terrabit::core::algebra
