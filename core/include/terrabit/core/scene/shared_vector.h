#pragma once
/// SharedVector: a vector that copies share until one of them is changed (copy on write). The
/// scene's bulk data is made once by a pass, kept in the baker's cache and copied into every
/// scene the cache serves — a progressive bake's successive scenes, the scene shown while the
/// next is assembled: with shared buffers they all hold it once.
///
/// Reading never copies (there is no non-const access to the elements); the first change to a
/// shared vector copies it, so a vector read on one thread (a scene shown) is never changed by
/// another. Changing functions are not safe to call on one vector from two threads at once (as
/// a std::vector's).

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace terrabit::core {

template <class T>
class SharedVector {
public:
    using value_type = T;
    using const_iterator = const T*;
    using iterator = const T*;
    using size_type = std::size_t;

    SharedVector() = default;
    SharedVector(std::initializer_list<T> values) : SharedVector(std::vector<T>(values)) {}
    SharedVector(std::vector<T> values) {  // NOLINT(google-explicit-constructor): it is its vector
        if (!values.empty()) mValues = std::make_shared<std::vector<T>>(std::move(values));
    }

    std::size_t size() const { return mValues ? mValues->size() : 0; }
    bool empty() const { return size() == 0; }
    const T* data() const { return mValues ? mValues->data() : nullptr; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + size(); }
    const T& operator[](std::size_t i) const { return (*mValues)[i]; }
    const T& front() const { return mValues->front(); }
    const T& back() const { return mValues->back(); }
    operator std::span<const T>() const { return {data(), size()}; }  // NOLINT: a view, as a vector gives
    /// The bytes its buffer holds (its capacity), 0 while empty.
    std::size_t capacityBytes() const { return mValues ? mValues->capacity() * sizeof(T) : 0; }

    /// The vector to change: this one's own (copied first when another shares it).
    std::vector<T>& edit() {
        if (!mValues) {
            mValues = std::make_shared<std::vector<T>>();
        } else if (mValues.use_count() > 1) {
            mValues = std::make_shared<std::vector<T>>(*mValues);
        }
        return *mValues;
    }
    void push_back(const T& value) { edit().push_back(value); }
    void pop_back() { edit().pop_back(); }
    void reserve(std::size_t n) { edit().reserve(n); }
    /// Gives back what the buffer holds beyond its size (copying it first when shared).
    void shrink_to_fit() {
        if (mValues && mValues->capacity() > mValues->size()) edit().shrink_to_fit();
    }
    void resize(std::size_t n) { edit().resize(n); }
    void clear() { mValues.reset(); }

    /// True when another vector holds the same elements without a copy.
    bool sharesWith(const SharedVector& other) const { return mValues && mValues == other.mValues; }

    friend bool operator==(const SharedVector& a, const SharedVector& b) {
        return a.sharesWith(b) || std::equal(a.begin(), a.end(), b.begin(), b.end());
    }
    friend bool operator==(const SharedVector& a, const std::vector<T>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end());
    }

private:
    std::shared_ptr<std::vector<T>> mValues;  ///< null while empty
};

}  // namespace terrabit::core
