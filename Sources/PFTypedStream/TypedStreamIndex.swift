import Foundation
import PFCore

// MARK: - Where the reader puts the object table

/// What a slot of the object table holds.
enum TypedStreamEntryKind: String {
    case object, `class`, cString = "C string"
}

/// Where ``TypedStreamReader`` puts the object table as it reads: objects, classes and C
/// strings share one numbering, which back-references use.
protocol TypedStreamEntryTable {
    /// How many entries are defined at this point of the stream.
    var count: Int { get }
    /// The kind of a defined entry.
    func kind(_ index: Int) -> TypedStreamEntryKind
    /// The bytes of a defined C string entry.
    func cString(_ index: Int) -> [UInt8]
    /// A shared string literal was read at `offset`.
    mutating func defineString(_ string: [UInt8], at offset: Int)
    /// Appends a C string entry whose bytes are shared string `sharedIndex`.
    mutating func appendCString(_ string: [UInt8], sharedIndex: Int, at offset: Int)
    /// Appends a class entry (its superclass is set once its chain is read); returns its index.
    mutating func appendClass(_ entry: TypedStreamClass, at offset: Int) -> Int
    /// Sets a class entry's superclass.
    mutating func setSuperclass(_ index: Int, _ superclass: Int?)
    /// Appends an object entry, numbered before its class is read; returns its index.
    mutating func appendObject(at offset: Int) -> Int
    /// The object at `index` is read; its literal ends at `end`.
    mutating func finishObject(_ index: Int, _ object: TypedStreamObject, end: Int)
    /// When an object is read back, a literal object nested in it, at `offset`, is stepped
    /// over: its index, where it ends, and how many shared strings are defined there.
    mutating func skipObject(at offset: Int) -> (index: Int, end: Int, definedStrings: Int)?
}

extension TypedStreamEntryTable {
    func defineString(_ string: [UInt8], at offset: Int) {}
    func skipObject(at offset: Int) -> (index: Int, end: Int, definedStrings: Int)? { nil }
}

/// The table of a whole ``TypedStreamDocument``: every entry with its values.
struct TypedStreamWholeTable: TypedStreamEntryTable {
    var entries: [TypedStreamEntry] = []

    var count: Int { entries.count }

    func kind(_ index: Int) -> TypedStreamEntryKind {
        switch entries[index] {
        case .object: .object
        case .class: .class
        case .cString: .cString
        }
    }

    func cString(_ index: Int) -> [UInt8] {
        guard case .cString(let s) = entries[index] else { return [] }
        return s
    }

    mutating func appendCString(_ string: [UInt8], sharedIndex: Int, at offset: Int) { entries.append(.cString(string)) }

    mutating func appendClass(_ entry: TypedStreamClass, at offset: Int) -> Int {
        entries.append(.class(entry))
        return entries.count - 1
    }

    mutating func setSuperclass(_ index: Int, _ superclass: Int?) {
        guard case .class(var c) = entries[index] else { return }
        c.superclass = superclass
        entries[index] = .class(c)
    }

    mutating func appendObject(at offset: Int) -> Int {
        entries.append(.object(TypedStreamObject(classIndex: -1, groups: [], offset: offset)))
        return entries.count - 1
    }

    mutating func finishObject(_ index: Int, _ object: TypedStreamObject, end: Int) { entries[index] = .object(object) }
}

// MARK: - The compact index

/// A typedstream's object table without its values, made by a first pass of the reader that
/// checks the whole stream: per entry its kind, where its literal starts and (an object) ends,
/// a C string's shared string and a class's record; the shared strings with where each was
/// defined. Nine bytes an entry, so a stream of small objects costs about its own size.
///
/// An object's groups are read back from the bytes when they are needed
/// (``TypedStreamLazyObjects``): the reader starts at the object's literal with the table as it
/// stood there (entries and shared strings defined before it, found by binary search on the
/// offsets, which rise through the stream) and steps over the literal objects nested in it.
struct TypedStreamIndex: TypedStreamEntryTable {
    /// Per entry: where its literal starts.
    var offsets: [UInt32] = []
    /// Per entry: an object's end, a class's place in ``classes``, a C string's shared string.
    var aux: [UInt32] = []
    var kinds: [UInt8] = []
    var classes: [TypedStreamClass] = []
    var strings: [[UInt8]] = []
    /// Where each shared string literal starts.
    var stringOffsets: [UInt32] = []

    /// The largest input the index numbers with 32-bit offsets.
    static let maxBytes = Int(UInt32.max)

    static let kindOrder: [TypedStreamEntryKind] = [.object, .class, .cString]

    var count: Int { kinds.count }

    func kind(_ index: Int) -> TypedStreamEntryKind { Self.kindOrder[Int(kinds[index])] }

    func cString(_ index: Int) -> [UInt8] { strings[Int(aux[index])] }

    func classEntry(_ index: Int) -> TypedStreamClass? {
        guard index >= 0, index < kinds.count, kinds[index] == 1 else { return nil }
        return classes[Int(aux[index])]
    }

    mutating func defineString(_ string: [UInt8], at offset: Int) {
        strings.append(string)
        stringOffsets.append(UInt32(truncatingIfNeeded: offset))
    }

    private mutating func append(_ kind: UInt8, at offset: Int, aux value: Int) -> Int {
        offsets.append(UInt32(truncatingIfNeeded: offset))
        aux.append(UInt32(truncatingIfNeeded: value))
        kinds.append(kind)
        return kinds.count - 1
    }

    mutating func appendCString(_ string: [UInt8], sharedIndex: Int, at offset: Int) { _ = append(2, at: offset, aux: sharedIndex) }

    mutating func appendClass(_ entry: TypedStreamClass, at offset: Int) -> Int {
        classes.append(entry)
        return append(1, at: offset, aux: classes.count - 1)
    }

    mutating func setSuperclass(_ index: Int, _ superclass: Int?) { classes[Int(aux[index])].superclass = superclass }

    mutating func appendObject(at offset: Int) -> Int { append(0, at: offset, aux: 0) }

    mutating func finishObject(_ index: Int, _ object: TypedStreamObject, end: Int) { aux[index] = UInt32(truncatingIfNeeded: end) }

    /// How many of `offsets` lie before `offset`.
    static func before(_ offset: Int, in offsets: [UInt32]) -> Int {
        var low = 0
        var high = offsets.count
        while low < high {
            let mid = (low + high) / 2
            if Int(offsets[mid]) < offset { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// The index while one object's groups are read back: entries are counted, not stored, and
/// the literal objects nested in the object are stepped over.
struct TypedStreamReplayTable: TypedStreamEntryTable {
    let index: TypedStreamIndex
    /// The object read back.
    private(set) var root: Int
    var count: Int
    var object: TypedStreamObject?

    init(index: TypedStreamIndex, root: Int) {
        self.index = index
        self.root = root
        count = root
    }

    /// Starts reading back another object, in place: making a new table copied the index's
    /// six arrays (a retain and a release each) for every object read.
    mutating func restart(root: Int) {
        self.root = root
        count = root
        object = nil
    }

    func kind(_ i: Int) -> TypedStreamEntryKind { index.kind(i) }
    func cString(_ i: Int) -> [UInt8] { index.cString(i) }
    mutating func appendCString(_ string: [UInt8], sharedIndex: Int, at offset: Int) { count += 1 }

    mutating func appendClass(_ entry: TypedStreamClass, at offset: Int) -> Int {
        count += 1
        return count - 1
    }

    func setSuperclass(_ index: Int, _ superclass: Int?) {}

    mutating func appendObject(at offset: Int) -> Int {
        count += 1
        return count - 1
    }

    mutating func finishObject(_ i: Int, _ object: TypedStreamObject, end: Int) {
        if i == root { self.object = object }
    }

    mutating func skipObject(at offset: Int) -> (index: Int, end: Int, definedStrings: Int)? {
        let i = count
        guard i != root, i < index.kinds.count, index.kinds[i] == 0, Int(index.offsets[i]) == offset else { return nil }
        let end = Int(index.aux[i])
        count = TypedStreamIndex.before(end, in: index.offsets)
        return (i, end, TypedStreamIndex.before(end, in: index.stringOffsets))
    }
}

// MARK: - Objects for the converter

/// Where the converter (``TypedStreamValueConverter``) finds objects and classes: a whole
/// ``TypedStreamDocument``, or ``TypedStreamLazyObjects``, which reads an object's groups back
/// from the bytes when asked.
protocol TypedStreamObjects {
    /// How many entries the table holds.
    var entryCount: Int { get }
    /// The object at an index, if the entry is an object.
    func objectEntry(_ index: Int) -> TypedStreamObject?
    /// The class at an index, if the entry is a class.
    func classEntry(_ index: Int) -> TypedStreamClass?
}

extension TypedStreamObjects {
    /// The class chain starting at a class index, most derived first. The reader rejects
    /// chains that refer back into themselves; the walk is bounded by the table size anyway.
    func chain(ofClass index: Int) -> [TypedStreamClass] {
        var chain: [TypedStreamClass] = []
        var next: Int? = index
        while let i = next, let c = classEntry(i), chain.count < entryCount {
            chain.append(c)
            next = c.superclass
        }
        return chain
    }
}

extension TypedStreamDocument: TypedStreamObjects {
    var entryCount: Int { entries.count }
}

/// The objects of a stream checked by a first pass into a ``TypedStreamIndex``, each read back
/// from the bytes when the converter asks for it (the last one asked for is kept: the
/// converter asks for an object's entry and then for its Foundation form).
///
/// The bytes are the ones indexed, so reading back meets no error the first pass did not;
/// should it, the error is kept in ``failure`` for the caller to throw rather than dropped.
final class TypedStreamLazyObjects: TypedStreamObjects {
    let index: TypedStreamIndex
    private var reader: TypedStreamReader<TypedStreamReplayTable>
    private var last: (index: Int, object: TypedStreamObject)?
    private(set) var failure: PFError?

    /// - Parameters:
    ///   - bytes: the stream indexed; must outlive this object's use.
    ///   - limits: the limits it was read under.
    ///   - index: the first pass's index.
    ///   - bigEndian: the header's byte order.
    init(bytes: UnsafeRawBufferPointer, limits: PFLimits, index: TypedStreamIndex, bigEndian: Bool) {
        self.index = index
        reader = TypedStreamReader(bytes: bytes, limits: limits, table: TypedStreamReplayTable(index: index, root: 0))
        reader.scanner.bigEndian = bigEndian
        reader.sharedStrings = index.strings
    }

    var entryCount: Int { index.count }

    func classEntry(_ i: Int) -> TypedStreamClass? { index.classEntry(i) }

    func objectEntry(_ i: Int) -> TypedStreamObject? {
        guard i >= 0, i < index.count, index.kinds[i] == 0 else { return nil }
        if let last, last.index == i { return last.object }
        let offset = Int(index.offsets[i])
        reader.entries.restart(root: i)
        reader.scanner.offset = offset
        reader.definedStrings = TypedStreamIndex.before(offset, in: index.stringOffsets)
        reader.depth = 0
        reader.nodes = 0
        do throws(PFError) {
            _ = try reader.readObject()
        } catch {
            if failure == nil { failure = error }
            return nil
        }
        guard let object = reader.entries.object else { return nil }
        last = (i, object)
        return object
    }
}
