import Foundation
import PFArchive

/// Reads a format-23 Realm file of about 1,000,000 objects (issue 25), made by repeating the
/// `Person` cluster of the real `js-simple.realm` fixture: its leaf is copied 333,334 times
/// (each copy a node of its own, sharing the column leaves) under two levels of inner cluster
/// nodes, and new table, table-list and group arrays point at the tree. Reports objects/s for
/// a raw read (``RealmDatabase/forEachObject(of:_:)``) and through the store interface
/// (``RealmObjectStore``: Parse objects, links resolved), and the peak memory above the file.
enum RealmBench {
    static let leafCopies = 333_334

    /// An integer node's flags and values (any width).
    static func node(_ b: [UInt8], _ ref: Int) -> (flags: UInt8, values: [Int64]) {
        let flags = b[ref + 4]
        let count = Int(b[ref + 5]) << 16 | Int(b[ref + 6]) << 8 | Int(b[ref + 7])
        let width = (1 << Int(flags & 7)) >> 1
        precondition((flags >> 3) & 3 == 0, "an integer node")
        let p = ref + 8
        var values: [Int64] = []
        for i in 0..<count {
            switch width {
            case 0: values.append(0)
            case 1, 2, 4:
                let bit = i * width
                values.append(Int64(b[p + bit / 8] >> UInt8(bit % 8) & UInt8((1 << width) - 1)))
            default:
                var v: UInt64 = 0
                for k in (0..<(width / 8)).reversed() { v = v << 8 | UInt64(b[p + i * width / 8 + k]) }
                let shift = UInt64(64 - width)
                values.append(Int64(bitPattern: v << shift) >> Int64(shift))
            }
        }
        return (flags, values)
    }

    /// Appends a node of 64-bit values with the given flags' inner and has-refs bits.
    static func append(_ out: inout [UInt8], _ values: [Int64], inner: Bool) -> Int64 {
        let ref = Int64(out.count)
        out += [0x41, 0x41, 0x41, 0x41, (inner ? 0x80 : 0) | 0x40 | 7]
        out += [UInt8(truncatingIfNeeded: values.count >> 16), UInt8(truncatingIfNeeded: values.count >> 8), UInt8(truncatingIfNeeded: values.count)]
        for v in values { for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: v) >> UInt64(8 * k))) } }
        return ref
    }

    static func tagged(_ v: Int) -> Int64 { Int64(v) << 1 | 1 }

    /// The big file, and how many objects its Person class holds.
    static func makeFile() throws -> ([UInt8], Int) {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let fixture = here.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Fixtures/real/realm/js-simple.realm")
        var out = [UInt8](try Data(contentsOf: fixture))
        let db = try RealmDatabase(RealmFile(bytes: out))
        guard let position = db.tables.firstIndex(where: { $0.tableName == "class_Person" }) else { throw CLIBenchError("no Person") }
        var topRef = 0
        for k in (0..<8).reversed() { topRef = topRef << 8 | Int(out[Int(out[23] & 1) * 8 + k]) }
        let top = node(out, topRef)
        let tableRefs = node(out, Int(top.values[1]))
        let table = node(out, Int(tableRefs.values[position]))
        let leaf = node(out, Int(table.values[2]))
        precondition(leaf.flags & 0x80 == 0 && leaf.values[0] & 1 == 1, "Person's cluster is one leaf")
        let perLeaf = Int(leaf.values[0] >> 1)
        while out.count % 8 != 0 { out.append(0) }
        var bottoms: [Int64] = []
        var start = 0
        while start < leafCopies {
            let n = min(256, leafCopies - start)
            let leaves = (0..<n).map { _ in append(&out, leaf.values, inner: false) }
            bottoms.append(append(&out, [0, tagged(1), tagged(n * perLeaf)] + leaves, inner: true))
            start += n
        }
        let root = append(&out, [0, tagged(2), tagged(leafCopies * perLeaf)] + bottoms, inner: true)
        var newTable = table.values
        newTable[2] = root
        var newRefs = tableRefs.values
        newRefs[position] = append(&out, newTable, inner: false)
        var newTop = top.values
        newTop[1] = append(&out, newRefs, inner: false)
        let newTopRef = append(&out, newTop, inner: false)
        for k in 0..<8 { out[k] = UInt8(truncatingIfNeeded: UInt64(newTopRef) >> UInt64(8 * k)) }
        out[23] &= ~1
        return (out, leafCopies * perLeaf)
    }

    struct CLIBenchError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    static func run(_ bench: inout Bench) {
        let group = "realm"
        let bytes: [UInt8], count: Int
        do {
            (bytes, count) = try makeFile()
        } catch {
            FileHandle.standardError.write(Data("pfarchive-bench: realm: \(error)\n".utf8))
            return
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfbench-realm-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("million.realm")
        try? Data(bytes).write(to: file)
        func measure(_ name: String, _ body: () throws -> Int) {
            if let filter = bench.filter, !"\(group)/\(name)".contains(filter) { return }
            PeakMemory.reset()
            let before = PeakMemory.currentKiB()
            bench.measure(name, group: group, bytes: bytes.count, units: count, unitName: "objects") {
                do {
                    let read = try body()
                    precondition(read == count, "every object is read")
                } catch {
                    FileHandle.standardError.write(Data("pfarchive-bench: \(error)\n".utf8))
                }
            }
            print(String(format: "%@ %@ peak memory above baseline: %.1f MiB (file %.1f MiB)",
                         group.padding(toLength: 28, withPad: " ", startingAt: 0), name.padding(toLength: 44, withPad: " ", startingAt: 0),
                         Double(PeakMemory.peakKiB() - before) / 1024, Double(bytes.count) / 1_048_576))
        }
        measure("format 23, 1M objects: forEachObject") {
            let db = try RealmDatabase(url: file)
            guard let table = db.table(named: "Person") else { return 0 }
            var n = 0
            try db.forEachObject(of: table) { _ in n += 1 }
            return n
        }
        measure("format 23, 1M objects: RealmObjectStore") {
            let store = try RealmObjectStore(url: file)
            var n = 0
            try store.forEachObject(in: "Person") { _ in n += 1 }
            return n
        }
    }
}
