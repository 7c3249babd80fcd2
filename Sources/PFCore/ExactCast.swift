/// `value` as `T`, for generic code that has just found `T` to be `Value`'s own type:
///
/// ```swift
/// if T.self == String.self { return exactCast(string, to: T.self) }
/// ```
///
/// The one home of this cast. Unlike `as! T` it makes no call into the dynamic-cast runtime
/// (which unspecialized generic code, such as a `Decodable` type's `init(from:)` calling a
/// decoder, would pay on every value); unlike a bare `unsafeBitCast`, it checks that the
/// types are the same, and stops the program if a caller got that wrong.
@inline(__always)
package func exactCast<Value, T>(_ value: Value, to type: T.Type) -> T {
    precondition(Value.self == T.self, "exactCast between different types")
    return unsafeBitCast(value, to: T.self)
}
