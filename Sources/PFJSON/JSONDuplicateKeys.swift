import CPFJSONC
import Foundation
import PFCore

/// The one repeated-key check, over any ``JSONValueSource``: visits the objects of a checked
/// document in pre-order (the order the pre-scan saw their `{`) and compares the members each
/// was written with to its distinct keys.
///
/// On the tape, an object's members are as written and its distinct keys are counted by
/// comparing key bytes; json-c's tree keeps one member per distinct key, so its members are
/// compared with the counts the pre-scan recorded (with
/// ``JSONReader/Options/rejectDuplicateKeys``), and keys beyond ASCII, which may be distinct
/// bytes yet equal Swift strings, are also compared as strings.
struct JSONDuplicateKeys<Source: JSONValueSource> {
    let source: Source
    /// The input, for the error's line and column.
    let input: UnsafeRawBufferPointer
    /// The pre-order index of the next object.
    private var slot = 0

    init(source: Source, input: UnsafeRawBufferPointer) {
        self.source = source
        self.input = input
    }

    /// Throws at the first object (in pre-order) with a repeated key, with its key path.
    mutating func reject(_ root: Source.Value) throws(PFError) {
        let source = source
        let input = input
        try visit(root) { object, slot, members, distinct throws(PFError) in
            throw Self.duplicateKey(at: source.objectOffset(object, slot: slot), members: members,
                                    distinct: distinct, in: input)
        }
    }

    /// Calls `found` with every object that has a repeated key.
    mutating func forEachRepeating(_ root: Source.Value, _ found: (Source.Value) -> Void) {
        try? visit(root) { object, _, _, _ throws(PFError) in found(object) }
    }

    private mutating func visit(_ value: Source.Value,
                                _ repeated: (Source.Value, _ slot: Int, _ members: Int, _ distinct: Int) throws(PFError) -> Void)
        throws(PFError) {
        switch source.kind(value) {
        case .array:
            var element: Source.Value?
            for k in 0..<source.count(value) {
                let current = source.element(value, k, after: element)
                element = current
                do {
                    try visit(current, repeated)
                } catch {
                    throw error.prefixed(.index(k))
                }
            }
        case .object:
            let members = source.writtenMembers(value, slot: slot)
            slot += 1
            if members > 1 {
                let distinct = source.distinctKeys(value)
                if distinct < members { try repeated(value, slot - 1, members, distinct) }
            }
            var entry = source.firstMember(value)
            while let current = entry {
                do {
                    try visit(source.memberValue(current), repeated)
                } catch {
                    let raw = source.keyBytes(current)
                    throw error.prefixed(.key(source.keyName(raw.start, raw.count)))
                }
                entry = source.nextMember(current, of: value)
            }
        default:
            return
        }
    }

    /// The error for an object with a repeated key.
    static func duplicateKey(at offset: Int, members: Int, distinct: Int, in input: UnsafeRawBufferPointer) -> PFError {
        JSONError.make(.duplicateKey(members: members, distinct: distinct), offset: offset, in: input, path: .root)
    }
}
