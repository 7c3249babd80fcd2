import CPFJSONC
import PFCore

/// A json-c tree parsed from bytes the pre-scan has already validated, owned: the tree is
/// freed when its owner ends (`deinit`), on every path, and cannot be copied or freed twice.
///
/// The tokener is freed before `parse` returns (on every path). The root pointer is valid
/// while the owner lives, which may end at its last use: read the tree inside
/// ``withRoot(_:)`` (or keep the owner alive with `withExtendedLifetime`).
struct JSONCTree: ~Copyable {
    /// The root value; `nil` is JSON `null` (json-c returns a NULL pointer for it).
    let root: OpaquePointer?

    private init(root: OpaquePointer?) {
        self.root = root
    }

    deinit {
        if let root { json_object_put(root) }
    }

    /// Calls `body` with the root, which stays valid until `body` returns.
    /// - Parameter body: receives the root (`nil` for JSON `null`).
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    borrowing func withRoot<R, E: Error>(_ body: (OpaquePointer?) throws(E) -> R) throws(E) -> R {
        try body(root)
    }

    /// Parses `bytes[start...]` with json-c.
    /// - Throws: ``PFError`` when json-c rejects what the pre-scan let through (only
    ///   possible for lenient-mode oddities) or cannot allocate.
    static func parse(_ bytes: UnsafeRawBufferPointer, from start: Int, options: JSONReader.Options,
                      scanner: JSONScanner, depthSeen: Int) throws(PFError) -> JSONCTree {
        // json-c frees and prints trees recursively, so its depth never exceeds the supported
        // maximum; the pre-scan has already enforced the configured limit with a position.
        // Sizing the stack to the document's own depth (plus margin) matters: json-c callocs
        // the whole stack per tokener, and a large block there costs more than small parses.
        let depth = Int32(min(max(depthSeen, 0) + 2, JSONReader.maximumSupportedDepth + 1))
        let tokener = try makeTokener(depth: depth, options: options)
        defer { json_tokener_free(tokener) }
        return try parse(bytes, from: start, with: tokener, scanner: scanner)
    }

    /// A tokener for `options` whose depth stack holds `depth` levels (the caller frees it).
    static func makeTokener(depth: Int32, options: JSONReader.Options) throws(PFError) -> UnsafeMutablePointer<json_tokener> {
        guard let tokener = json_tokener_new_ex(depth) else {
            throw PFError(JSONFailure.tokenerAllocation, format: JSONError.format)
        }
        json_tokener_set_flags(tokener, options.mode == .strict ? JSON_TOKENER_STRICT : 0)
        return tokener
    }

    /// Parses `bytes[start...]` with a tokener of the caller's (reset first, so one tokener
    /// serves many documents; its flags stay as set).
    static func parse(_ bytes: UnsafeRawBufferPointer, from start: Int, with tokener: UnsafeMutablePointer<json_tokener>,
                      scanner: JSONScanner) throws(PFError) -> JSONCTree {
        json_tokener_reset(tokener)

        let length = bytes.count - start
        guard let base = bytes.baseAddress, length > 0 else {
            throw JSONError.unexpected(at: bytes.count, in: bytes, expected: "a value")
        }
        let text = (base + start).assumingMemoryBound(to: CChar.self)
        var root = json_tokener_parse_ex(tokener, text, Int32(length))
        var error = json_tokener_get_error(tokener)
        var consumed = Int(json_tokener_get_parse_end(tokener))
        if error == json_tokener_continue {
            // A top-level number (or trailing whitespace) ends only at the terminating NUL,
            // which json-c wants counted; feed it separately rather than copying the input.
            let nul: [CChar] = [0]
            root = json_tokener_parse_ex(tokener, nul, 1)
            error = json_tokener_get_error(tokener)
            if error == json_tokener_success { consumed = length }
        }
        guard error == json_tokener_success else {
            if let root { json_object_put(root) }
            let offset = start + min(consumed, length)
            let what = json_tokener_error_desc(error).map { String(cString: $0) } ?? "parse error"
            let code: PFError.Code = error == json_tokener_error_depth ? .limitExceeded
                : error == json_tokener_continue ? .truncated : .syntax
            throw JSONError.make(.jsonC(what, code: code), offset: offset, in: bytes)
        }
        // json-c stops after the value; what follows must be what the pre-scan allowed.
        let rest = start + consumed
        if rest < bytes.count {
            let end = (try? scanner.skipSpace(rest)) ?? rest
            if end != bytes.count {
                if let root { json_object_put(root) }
                throw JSONError.make(.trailingData(found: nil), offset: end, in: bytes)
            }
        }
        return JSONCTree(root: root)
    }
}
