import PFCore

// MARK: - Key paths (the KVC analogue)

extension ParseObject {
    /// The value at a key path such as `location.city`, `tags[0]` or `owner.name` (through an
    /// embedded object), like Key-Value Coding's `valueForKeyPath:`.
    /// - Parameter keyPath: the path, in ``PFCore/PFKeyPath`` syntax (`a.b[2]`, `m["x.y"]`).
    /// - Returns: the value, or `nil` when a step is missing.
    /// - Throws: ``PFError`` with code `usage` for a malformed path or when the path goes
    ///   through a pointer stub without data (never a silent `nil`).
    public func value(forKeyPath keyPath: String) throws(PFError) -> ParseValue? {
        let path = try PFKeyPath(parsing: keyPath)
        guard case .key(let first)? = path.components.first else {
            throw PFError(parse: ParseFailure.keyPathStartsWithIndex(keyPath: "\(keyPath)"), context: context)
        }
        guard let start = try value(forKey: first) else { return nil }
        return try start.value(following: path.components.dropFirst(), from: PFCodingPath.root.appending(key: first), context: context)
    }
}

extension ParseValue {
    /// The value at a key path inside this value (objects, arrays, embedded objects).
    /// - Parameter keyPath: the path, such as `city` or `stats.weapons[0].name`.
    /// - Returns: the value, or `nil` when a step is missing.
    /// - Throws: ``PFError`` with code `usage` for a malformed path or a path through a
    ///   pointer stub.
    public func value(forKeyPath keyPath: String) throws(PFError) -> ParseValue? {
        try value(following: try PFKeyPath(parsing: keyPath).components[...], from: .root, context: .none)
    }

    func value(following steps: ArraySlice<PFKeyPath.Component>, from start: PFCodingPath, context: ParseContext)
        throws(PFError) -> ParseValue?
    {
        var current = self
        var path = start
        for step in steps {
            switch (step, current) {
            case (.key(let k), .object(let d)):
                guard let next = d[k] else { return nil }
                current = next
                path = path.appending(key: k)
            case (.key(let k), .embedded(let object)):
                guard let next = try object.value(forKey: k) else { return nil }
                current = next
                path = path.appending(key: k)
            case (.key(let k), .pointer(let p)):
                throw PFError(
                    parse: ParseFailure.stubReadThrough(pointer: "\(p)", key: k),
                    path: path.appending(key: k), context: context)
            case (.index(let i), .array(let items)):
                guard items.indices.contains(i) else { return nil }
                current = items[i]
                path = path.appending(index: i)
            default:
                return nil
            }
        }
        return current
    }
}
