import Foundation
import PFCore

/// The writer's working state: flattens a tree into a numbered object table, then lays the
/// objects, the offset table and the trailer out in one `[UInt8]` buffer.
///
/// Pass one (``flatten(_:depth:)``) numbers objects in CF's order, interns equal scalars,
/// and encodes every scalar's bytes into `scalarBytes` right away; containers record their
/// children's indices in `refs`. Pass two (``serialize()``) knows the object count, so it
/// can choose the reference width and write the containers.
struct BinaryPlistEncoder {
    /// One numbered object: a byte range of `scalarBytes`, or a container's range of `refs`.
    struct Entry {
        enum Kind: UInt8 { case scalar, array, dictionary }
        var kind: Kind
        var start: Int
        /// Bytes for a scalar; elements (members for a dictionary) for a container.
        var count: Int
    }

    let options: BinaryPlistWriter.Options
    var entries: [Entry] = []
    var scalarBytes: [UInt8] = []
    /// Children's object indices; a dictionary's keys, then its values.
    var refs: [Int] = []
    /// Indices of the children of the containers being flattened, moved to `refs` when a
    /// container is done (so the refs of one container stay contiguous without a
    /// per-container array).
    var pending: [Int] = []

    // Interning tables, one per kind, so that `1`, `1.0` and `true` stay distinct objects.
    var strings: [String: Int] = [:]
    var ints: [Int64: Int] = [:]
    var uints: [UInt64: Int] = [:]
    var doubles: [UInt64: Int] = [:]
    var dates: [UInt64: Int] = [:]
    var datas: [Data: Int] = [:]
    var uids: [UInt64: Int] = [:]
    var falseIndex = -1
    var trueIndex = -1
    var nullIndex = -1

    static let format = BinaryPlistLayout.format

    init(options: BinaryPlistWriter.Options) {
        self.options = options
    }

    // MARK: - Pass one: numbering and scalars

    /// Numbers `value` and its children and returns its object index.
    mutating func flatten(_ value: PFValue, depth: Int) throws(PFError) -> Int {
        switch value {
        case .array(let items):
            try checkDepth(depth + 1)
            let index = newContainer(.array)
            let base = pending.count
            for (i, item) in items.enumerated() {
                if case .null = item, options.nullPolicy == .drop { continue }
                do throws(PFError) {
                    pending.append(try flatten(item, depth: depth + 1))
                } catch {
                    throw error.prefixed(.index(i))
                }
            }
            finishContainer(index, base: base)
            return index
        case .dictionary(let members):
            try checkDepth(depth + 1)
            let index = newContainer(.dictionary)
            let base = pending.count
            let drop = options.nullPolicy == .drop
            for (key, member) in members {
                if drop, case .null = member { continue }
                pending.append(internString(key))
            }
            for (key, member) in members {
                if drop, case .null = member { continue }
                do throws(PFError) {
                    pending.append(try flatten(member, depth: depth + 1))
                } catch {
                    throw error.prefixed(.key(key))
                }
            }
            finishContainer(index, base: base)
            return index
        case .string(let s):
            return internString(s)
        case .int(let v):
            if let index = ints[v] { return index }
            let index = beginScalar()
            appendInt(v)
            endScalar(index)
            ints[v] = index
            return index
        case .uint(let v):
            if let small = Int64(exactly: v) { return try flatten(.int(small), depth: depth) }
            if let index = uints[v] { return index }
            let index = beginScalar()
            scalarBytes.append(BinaryPlistMarker.Byte.int128)
            scalarBytes.append(contentsOf: repeatElement(0, count: 8))
            appendBigEndian(v, size: 8)
            endScalar(index)
            uints[v] = index
            return index
        case .double(let d):
            let key = d.isNaN ? Double.nan.bitPattern : d.bitPattern
            if let index = doubles[key] { return index }
            let index = beginScalar()
            scalarBytes.append(BinaryPlistMarker.Byte.float64)
            appendBigEndian(d.bitPattern, size: 8)
            endScalar(index)
            doubles[key] = index
            return index
        case .bool(let b):
            if b, trueIndex >= 0 { return trueIndex }
            if !b, falseIndex >= 0 { return falseIndex }
            let index = beginScalar()
            scalarBytes.append(b ? BinaryPlistMarker.Byte.trueValue : BinaryPlistMarker.Byte.falseValue)
            endScalar(index)
            if b { trueIndex = index } else { falseIndex = index }
            return index
        case .date(let date):
            let t = date.timeIntervalSinceReferenceDate
            guard t.isFinite else {
                throw PFError(
                    .unrepresentable, format: Self.format,
                    "date is \(t) seconds since 2001-01-01; a binary property list date must be finite", path: .root)
            }
            if let index = dates[t.bitPattern] { return index }
            let index = beginScalar()
            scalarBytes.append(BinaryPlistMarker.Byte.date)
            appendBigEndian(t.bitPattern, size: 8)
            endScalar(index)
            dates[t.bitPattern] = index
            return index
        case .data(let data):
            if let index = datas[data] { return index }
            let index = beginScalar()
            appendMarker(BinaryPlistMarker.data, count: data.count)
            scalarBytes.append(contentsOf: data)
            endScalar(index)
            datas[data] = index
            return index
        case .uid(let uid):
            if let index = uids[uid] { return index }
            guard uid <= UInt64(UInt32.max) else {
                throw PFError(
                    .unrepresentable, format: Self.format,
                    "UID \(uid) is above UInt32.max, which CoreFoundation cannot read", path: .root)
            }
            let index = beginScalar()
            let size = uid <= 0xFF ? 1 : uid <= 0xFFFF ? 2 : 4
            scalarBytes.append((BinaryPlistMarker.uid.rawValue << 4) | UInt8(size - 1))
            appendBigEndian(uid, size: size)
            endScalar(index)
            uids[uid] = index
            return index
        case .null:
            guard options.nullPolicy == .writeNullMarker else {
                throw PFError(
                    .unrepresentable, format: Self.format,
                    "null has no binary property list form; drop the value or set BinaryPlistWriter.Options.nullPolicy to .drop or .writeNullMarker",
                    path: .root)
            }
            if nullIndex >= 0 { return nullIndex }
            let index = beginScalar()
            scalarBytes.append(BinaryPlistMarker.Byte.null)
            endScalar(index)
            nullIndex = index
            return index
        }
    }

    private mutating func internString(_ s: String) -> Int {
        if let index = strings[s] { return index }
        let index = beginScalar()
        appendString(s)
        endScalar(index)
        strings[s] = index
        return index
    }

    private func checkDepth(_ depth: Int) throws(PFError) {
        guard depth <= options.maxDepth else {
            throw PFError(
                .limitExceeded, format: Self.format,
                "nesting is deeper than maxDepth (\(options.maxDepth)); CoreFoundation reads at most 512 levels",
                path: .root)
        }
    }

    // MARK: - Entries

    private mutating func newContainer(_ kind: Entry.Kind) -> Int {
        entries.append(Entry(kind: kind, start: 0, count: 0))
        return entries.count - 1
    }

    /// Moves the container's children from `pending` to `refs`.
    private mutating func finishContainer(_ index: Int, base: Int) {
        let start = refs.count
        refs.append(contentsOf: pending[base...])
        pending.removeSubrange(base...)
        let total = refs.count - start
        entries[index].start = start
        entries[index].count = entries[index].kind == .dictionary ? total / 2 : total
    }

    private mutating func beginScalar() -> Int {
        entries.append(Entry(kind: .scalar, start: scalarBytes.count, count: 0))
        return entries.count - 1
    }

    private mutating func endScalar(_ index: Int) {
        entries[index].count = scalarBytes.count - entries[index].start
    }
}
