#pragma once
/// Errors as values: every fallible core function returns a Result<T> or a Status whose
/// message says what went wrong and where (file, feature id, line and column as they apply).
/// Core never throws across its API.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace terrabit::core {

/// What kind of failure an Error is, so that a front end can decide what to do (the CLI's exit
/// code, the app's dialog) without reading the message. The message stays for people.
enum class ErrorKind {
    BadInput,      ///< the data read is unusable: a map, a model, a collision grid, a part file
    BadArguments,  ///< what the user asked for: an option, a tile selection, rules, an expression,
                   ///< a catalogue, a project
    Io,            ///< a file or folder could not be written, created or removed
    Cancelled,     ///< the progress callback asked to stop
    Internal,      ///< a broken invariant: a bug, never the user's doing
};

/// A failure: a human-readable message that names what and where, and its kind.
struct Error {
    std::string message;
    ErrorKind kind = ErrorKind::BadInput;
};

/// An Error of a kind other than the default (bad input).
inline Error badArguments(std::string message) { return Error{std::move(message), ErrorKind::BadArguments}; }
inline Error ioError(std::string message) { return Error{std::move(message), ErrorKind::Io}; }
inline Error cancelled(std::string message) { return Error{std::move(message), ErrorKind::Cancelled}; }
/// The same failure, now of kind `kind` (a caller that knows better than the callee what the
/// failure means, e.g. rules passed as an argument).
inline Error withKind(Error error, ErrorKind kind) {
    error.kind = kind;
    return error;
}

/// Either a value of type T or an Error. Accessing the wrong alternative is a programmer error
/// (asserted), so check ok() first.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : mState(std::move(value)) {}
    Result(Error error) : mState(std::move(error)) {}

    /// True when the result holds a value.
    bool ok() const { return mState.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & {
        assert(ok());
        return std::get<0>(mState);
    }
    const T& value() const& {
        assert(ok());
        return std::get<0>(mState);
    }
    T&& value() && {
        assert(ok());
        return std::get<0>(std::move(mState));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const {
        assert(!ok());
        return std::get<1>(mState);
    }
    /// The error message, or an empty string on success.
    const std::string& message() const {
        static const std::string kEmpty;
        return ok() ? kEmpty : error().message;
    }

private:
    std::variant<T, Error> mState;
};

/// Success or an Error, for operations that return nothing.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : mFailed(true), mError(std::move(error)) {}
    static Status success() { return {}; }

    bool ok() const { return !mFailed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const {
        assert(mFailed);
        return mError;
    }
    const std::string& message() const { return mError.message; }

private:
    bool mFailed = false;
    Error mError;
};

}  // namespace terrabit::core
