import Foundation
import OrderedCollections
import PFCore

// MARK: - Records, one at a time

extension CBORScanner {
    /// The self-describe tag's head, `D9 D9 F7`.
    static let selfDescribeHead: [UInt8] = [0xD9, 0xD9, 0xF7]

    /// Whether the bytes at `pos` are the self-describe tag's head.
    func atSelfDescribeHead() -> Bool {
        end - pos >= 3 && byte(at: pos) == 0xD9 && byte(at: pos + 1) == 0xD9 && byte(at: pos + 2) == 0xF7
    }

    /// The shape of a document of records from its first heads, without decoding a record:
    /// an array (after self-describe tags), or a map whose first key is `results` and whose
    /// first value is an array. `others` is how many members follow (`nil` when the map
    /// has an indefinite length).
    mutating func recordsShape() -> (wrapped: Bool, others: Int?)? {
        while atSelfDescribeHead() { pos += 3 }
        guard pos < end else { return nil }
        let start = pos
        let initial = byte(at: pos)
        pos += 1
        switch initial >> 5 {
        case 4:
            return (false, 0)
        case 5:
            let ai = initial & 0x1F
            var others: Int?
            if ai != 31 {
                guard let n = try? argument(ai, itemStart: start), n >= 1, n <= maxCollectionCount else { return nil }
                others = Int(n) - 1
            }
            guard (try? key(depth: 1)) == "results", pos < end, byte(at: pos) >> 5 == 4 else { return nil }
            return (true, others)
        default:
            return nil
        }
    }

    /// Reads a document of records (see ``recordsShape()``) as ``document()`` reads it —
    /// the same checks, limits and nesting depths, a shared value (tag 28) available to
    /// every later record — but hands each record to `record` as soon as it is read.
    /// - Returns: a wrapper's other members, or `nil` for an array.
    mutating func records(_ record: (PFValue) throws(PFError) -> Void) throws(PFError) -> OrderedDictionary<String, PFValue>? {
        var depth = 0
        while atSelfDescribeHead() {
            // The tag as `tagged` reads it: counted, one level deeper.
            tagCounts[CBORTag.selfDescribed, default: 0] += 1
            hasSelfDescribeTag = true
            depth = try enter(depth, start: pos)
            pos += 3
        }
        let members: OrderedDictionary<String, PFValue>?
        let start = pos
        // Nothing at all (not even a self-describe tag) is empty input, not a missing item.
        if pos == 0, pos >= end { throw PFError(CBORFailure.emptyInput, offset: 0) }
        let initial = try head()
        switch initial >> 5 {
        case 4:
            try elements(initial & 0x1F, depth: depth, start: start, wrapped: false, record)
            members = nil
        case 5:
            members = try wrapper(initial & 0x1F, depth: depth, start: start, record)
        default:
            throw PFError(CBORFailure.notRecords, offset: start)
        }
        guard pos == end else {
            throw PFError(CBORFailure.trailingBytes(end - pos), offset: pos)
        }
        return members
    }

    /// A `{"results": […], …}` map: the records, then the other members.
    private mutating func wrapper(
        _ ai: UInt8, depth: Int, start: Int, _ record: (PFValue) throws(PFError) -> Void
    ) throws(PFError) -> OrderedDictionary<String, PFValue> {
        let inner = try enter(depth, start: start)
        var remaining: Int?
        if ai == 31 {
            hasIndefiniteLengths = true
        } else {
            let n = try argument(ai, itemStart: start)
            guard n <= maxCollectionCount else { throw collectionLimit(start) }
            remaining = Int(n)
        }
        guard remaining != 0, pos < end, byte(at: pos) != 0xFF else { throw PFError(CBORFailure.notRecords, offset: start) }
        guard try key(depth: inner) == "results" else { throw PFError(CBORFailure.notRecords, offset: start) }
        let arrayStart = pos
        let initial = try head()
        guard initial >> 5 == 4 else { throw PFError(CBORFailure.notRecords, offset: start) }
        try elements(initial & 0x1F, depth: inner, start: arrayStart, wrapped: true, record)
        var members = OrderedDictionary<String, PFValue>()
        if var left = remaining.map({ $0 - 1 }) {
            while left > 0 {
                try otherMember(into: &members, depth: inner)
                left -= 1
            }
        } else {
            while true {
                guard pos < end else { throw missingBreak("map", start) }
                if byte(at: pos) == 0xFF {
                    pos += 1
                    break
                }
                guard members.count + 1 < limits.maxCollectionCount else { throw collectionLimit(start) }
                try otherMember(into: &members, depth: inner)
            }
        }
        return members
    }

    /// A member of the wrapper after `results`: a second `results` is a duplicate key.
    private mutating func otherMember(into members: inout OrderedDictionary<String, PFValue>, depth: Int) throws(PFError) {
        let keyStart = pos
        try member(into: &members, depth: depth)
        if members["results"] != nil {
            throw PFError(CBORFailure.duplicateKey("results"), offset: keyStart, path: PFKeyPath([.key("results")]))
        }
    }

    /// The elements of the records' array, each handed to `record` once read. Errors about
    /// the array are placed as the tree read places them (under `results` in a wrapper);
    /// `record`'s own errors pass unchanged.
    private mutating func elements(
        _ ai: UInt8, depth: Int, start: Int, wrapped: Bool, _ record: (PFValue) throws(PFError) -> Void
    ) throws(PFError) {
        func placed(_ error: PFError) -> PFError { wrapped ? error.prefixed(.key("results")) : error }
        let inner: Int
        do throws(PFError) { inner = try enter(depth, start: start) } catch { throw placed(error) }
        /// Reads element `i`.
        func element(_ i: Int) throws(PFError) -> PFValue {
            do throws(PFError) {
                return try value(depth: inner)
            } catch {
                throw placed(error.prefixed(.index(i)))
            }
        }
        if ai == 31 {
            hasIndefiniteLengths = true
            var i = 0
            while true {
                guard pos < end else { throw placed(missingBreak("array", start)) }
                if byte(at: pos) == 0xFF {
                    pos += 1
                    return
                }
                guard i < limits.maxCollectionCount else { throw placed(collectionLimit(start)) }
                try record(try element(i))
                i += 1
            }
        }
        let n: UInt64
        do throws(PFError) { n = try argument(ai, itemStart: start) } catch { throw placed(error) }
        guard n <= maxCollectionCount else { throw placed(collectionLimit(start)) }
        for i in 0..<Int(n) { try record(try element(i)) }
    }
}
