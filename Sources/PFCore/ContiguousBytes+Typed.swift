import Foundation

extension ContiguousBytes {
    /// Calls `body` with the bytes, keeping the closure's typed error: `withUnsafeBytes`
    /// only rethrows `any Error`. The one home of that workaround, for `Data`, `[UInt8]` and
    /// the other contiguous byte collections.
    ///
    /// ```swift
    /// let value = try data.withBytes { raw throws(PFError) in try read(raw) }
    /// ```
    /// - Parameter body: receives the bytes, valid only until it returns.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, with its type.
    @inlinable
    package func withBytes<R, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> R) throws(Failure) -> R {
        let result: Result<R, Failure> = withUnsafeBytes { raw in
            Result { () throws(Failure) -> R in try body(raw) }
        }
        return try result.get()
    }
}
