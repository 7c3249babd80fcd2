import Foundation
import PFCore
import PFTestSupport
import Testing

@testable import PFRealm

/// Files written by ``RealmTestWriter`` with random contents, read back; hostile variants of
/// them and of every fixture fail with one clean error.
@Suite("Realm generated and hostile files") struct RealmGeneratedTests {
    struct Row: Equatable {
        var key: Int64
        var id: Int64
        var score: Int64?
        var name: String?
        var flag: Bool
        var ratio: Double
    }

    static func randomString(_ rng: inout SplitMix64) -> String? {
        if Int.random(in: 0..<6, using: &rng) == 0 { return nil }
        let length = [0, 1, 3, 7, 15, 40, 70, 300][Int.random(in: 0..<8, using: &rng)]
        let alphabet = Array("abcXYZ 09é€😀\u{0}")
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &rng)] })
    }

    /// A file with one class `Item` of `count` random objects, its clusters split at 256.
    static func makeFile(seed: UInt64, count: Int, streaming: Bool) -> ([UInt8], [Row]) {
        var rng = SplitMix64(seed: seed)
        var w = RealmTestWriter()
        var rows: [Row] = []
        let explicitOffsets = Bool.random(using: &rng)
        var leaves: [Int64] = []
        var offsets: [Int64] = []
        var start = 0
        var leafIndex: Int64 = 0
        repeat {
            let n = min(256, count - start)
            let offset = explicitOffsets ? leafIndex * 1000 : leafIndex << 8
            var slice: [Row] = []
            for j in 0..<n {
                let id = [Int64.random(in: 0...3, using: &rng), Int64.random(in: -200...200, using: &rng), Int64.random(in: Int64.min...Int64.max, using: &rng)][Int.random(in: 0..<3, using: &rng)]
                let score: Int64? = Bool.random(using: &rng) ? nil : Int64.random(in: -100_000...100_000, using: &rng)
                slice.append(Row(key: offset + Int64(j), id: id, score: score, name: randomString(&rng), flag: Bool.random(using: &rng), ratio: Double.random(in: -1e6...1e6, using: &rng)))
            }
            let ids = w.ints(slice.map(\.id))
            let sentinel: Int64 = -4_000_000
            let scores = w.ints([sentinel] + slice.map { $0.score ?? sentinel })
            let names: Int64
            switch Int.random(in: 0..<3, using: &rng) {
            case 0 where slice.allSatisfy({ ($0.name?.utf8.count ?? 0) < 63 }): names = w.shortStrings(slice.map(\.name))
            case 1: names = w.bigStrings(slice.map(\.name))
            default: names = w.mediumStrings(slice.map(\.name))
            }
            let flags = w.ints(slice.map { $0.flag ? 1 : 0 })
            let ratioRef = Int64(w.bytes.count)
            w.header(flags: 0x08 | RealmTestWriter.log2Code(8), count: slice.count)
            for r in slice { for b in 0..<8 { w.bytes.append(UInt8(truncatingIfNeeded: r.ratio.bitPattern >> UInt64(8 * b))) } }
            w.pad()
            leaves.append(w.refs([RealmTestWriter.tagged(Int64(n)), ids, scores, names, flags, ratioRef]))
            offsets.append(offset)
            rows += slice
            start += n
            leafIndex += 1
        } while start < count
        let root: Int64
        if leaves.count == 1 {
            root = leaves[0]
        } else {
            let keyOffsets = explicitOffsets ? w.ints(offsets) : 0
            root = w.refs([keyOffsets, RealmTestWriter.tagged(1), RealmTestWriter.tagged(Int64(count))] + leaves, inner: true)
        }
        let types = w.ints([0, 0, 2, 1, 10])
        let names = w.shortStrings(["id", "score", "name", "flag", "ratio"])
        let attributes: [Int64] = [0, 16, 16, 0, 0]
        let attrs = w.ints(attributes)
        let colKeys = w.ints([0, 0, 2, 1, 10].enumerated().map { Int64($0.offset) | Int64($0.element) << 16 | attributes[$0.offset] << 22 })
        let spec = w.refs([types, names, attrs, 0, 0, colKeys])
        let table = w.refs([spec, 0, root, RealmTestWriter.tagged(0), 0, 0, 0, 0, 0, 0, 0, 0, RealmTestWriter.tagged(0)])
        let tableNames = w.shortStrings(["class_Item"])
        let tables = w.refs([table])
        let top = w.refs([tableNames, tables, RealmTestWriter.tagged(Int64(w.bytes.count + 64))])
        return (w.file(top: top, streaming: streaming), rows)
    }

    static func read(_ bytes: [UInt8]) throws -> [Row] {
        let db = try RealmDatabase(RealmFile(bytes: bytes))
        let table = try #require(db.table(named: "Item"))
        return try db.objects(of: table).map { o in
            func int(_ v: RealmValue) -> Int64? { if case .int(let i) = v { return i } else { return nil } }
            func str(_ v: RealmValue) -> String? { if case .string(let s) = v { return s } else { return nil } }
            var flag = false
            if case .bool(let b) = o.values[3] { flag = b }
            var ratio = Double.nan
            if case .double(let d) = o.values[4] { ratio = d }
            return Row(key: o.key, id: int(o.values[0]) ?? -1, score: int(o.values[1]), name: str(o.values[2]), flag: flag, ratio: ratio)
        }
    }

    @Test(arguments: 0..<40)
    func randomTreesReadBack(_ seed: Int) throws {
        var rng = SplitMix64(seed: UInt64(seed) &* 7919)
        let count = [0, 1, 5, 255, 256, 257, 700][Int.random(in: 0..<7, using: &rng)]
        let (bytes, rows) = Self.makeFile(seed: UInt64(seed), count: count, streaming: seed % 2 == 1)
        let read = try Self.read(bytes)
        #expect(read.count == rows.count, "seed \(seed)")
        for (a, b) in zip(read, rows) where a != b {
            Issue.record("seed \(seed): read \(a), wrote \(b)")
            break
        }
    }

    @Test func versionsOutsideTheSupportedOnesFailNamingBoth() throws {
        for version: UInt8 in [9, 10, 11, 19, 21, 25, 200] {
            let (bytes, _) = Self.makeFile(seed: 1, count: 3, streaming: false)
            var b = bytes
            b[20] = version
            let error = try #require(throws: PFError.self) { try RealmFile(bytes: b) }
            #expect(error.failure(as: RealmFailure.self) == .unsupportedVersion(Int(version)), "\(error)")
            #expect(error.description.contains("20, 22, 23 and 24"), "the message names the supported versions")
        }
        let old = try Data(contentsOf: RealmFixtures.url("old-format-10"))
        let error = try #require(throws: PFError.self) { try RealmFile(bytes: [UInt8](old)) }
        #expect(error.code == .unsupported)
        #expect(error.failure(as: RealmFailure.self) == .unsupportedVersion(10))
    }

    @Test func brokenHeadersFailWithTheirCase() throws {
        let (bytes, _) = Self.makeFile(seed: 2, count: 3, streaming: false)
        func failure(_ b: [UInt8]) -> RealmFailure? {
            do {
                _ = try RealmFile(bytes: b)
                return nil
            } catch { return error.failure(as: RealmFailure.self) }
        }
        func withTop(_ top: UInt64, slot: Int = Int(bytes[23] & 1), flags: UInt8? = nil) -> [UInt8] {
            var b = bytes
            for i in 0..<8 { b[slot * 8 + i] = UInt8(truncatingIfNeeded: top >> UInt64(8 * i)) }
            if let flags { b[23] = flags }
            return b
        }
        try #require(failure(bytes) == nil, "the unbroken file reads")
        #expect(failure(Array(bytes.prefix(10))) == .shorterThanHeader(bytes: 10))
        var unmarked = bytes
        unmarked[16] = UInt8(ascii: "X")
        try #require(unmarked.count % RealmEncryption.pageSize != 0)
        #expect(failure(unmarked) == .noRealmMark(decrypted: false))
        // Both top references 0 is a file never committed to (realm-core's new file, format
        // version 0 until its first commit): an empty database, whatever the version byte.
        // The active one 0 while the other holds a reference is damage.
        var neverCommitted = withTop(0, slot: 0)
        for i in 8..<16 { neverCommitted[i] = 0 }
        var versionZero = neverCommitted
        versionZero[20] = 0
        var oneSlot = withTop(0, slot: 0)
        oneSlot[8] = 0x40
        #expect(failure(oneSlot) == .noTopReference)
        for empty in [neverCommitted, versionZero] {
            let db = try RealmDatabase(RealmFile(bytes: empty))
            #expect(db.tables.isEmpty && db.file.isNeverCommitted)
            #expect(try db.document() == [:])
        }
        var footerZero = withTop(.max, slot: 0, flags: 0)
        footerZero += [UInt8](repeating: 0, count: 8) + [0xC8, 0x26, 0xE5, 0x37, 0x52, 0x12, 0x34, 0x30]
        #expect(failure(footerZero) == .noTopReference)
        #expect(failure(withTop(UInt64(bytes.count))) == .topPastEnd(top: UInt64(bytes.count), fileSize: bytes.count))
        #expect(failure(withTop(.max, slot: 0, flags: 0)) == .streamingFooterCookie)
        #expect(failure(Array(withTop(.max, slot: 0, flags: 0).prefix(30))) == .streamingFooterMissing)
    }

    static let allFixtures = RealmFixtures.readable + ["old-format-10", "java-ios-alltypes-default", "java-ios-alltypes-default-encrypted"]

    /// Reads everything a file holds; returns the error, if any.
    static func readAll(_ bytes: [UInt8]) -> PFError? {
        do {
            let db = try RealmDatabase(RealmFile(bytes: bytes, limits: PFLimits(maxNodes: 2_000_000)))
            _ = try db.document(includeInternal: true)
            _ = try db.summary()
            for table in db.tables { _ = try db.objects(of: table) }
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: allFixtures)
    func truncationsFailCleanly(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: RealmFixtures.url(name)))
        var cuts = Array(0..<min(48, bytes.count))
        cuts += Array(stride(from: 48, to: bytes.count, by: max(1, bytes.count / 150)))
        // What must be there: the top array (normal form), or the footer (streaming form).
        let streaming = bytes.count >= 24 && bytes[0..<8].allSatisfy { $0 == 0xFF }
        let slot = bytes.count >= 24 ? Int(bytes[23] & 1) : 0
        let top = bytes.count >= 24 ? Int(RealmFile.uint64(bytes, at: slot * 8) & 0xFFFF_FFFF) : 0
        for cut in cuts {
            if let error = Self.readAll(Array(bytes.prefix(cut))) {
                #expect(!error.description.contains("\n"), "\(name) cut at \(cut): \(error)")
            } else {
                #expect(cut >= 24 && !streaming && cut > top + 8, "\(name) cut at \(cut) read")
            }
        }
    }

    @Test(arguments: allFixtures)
    func mutationsFailCleanlyOrRead(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: RealmFixtures.url(name)))
        var rng = SplitMix64(seed: UInt64(bytes.count))
        for _ in 0..<400 {
            var b = bytes
            let n = Int.random(in: 1...4, using: &rng)
            for _ in 0..<n {
                let at = Int.random(in: 0..<b.count, using: &rng)
                b[at] = [0, 0xFF, b[at] ^ 1, b[at] ^ 0x80, UInt8.random(in: 0...255, using: &rng)][Int.random(in: 0..<5, using: &rng)]
            }
            if let error = Self.readAll(b) {
                #expect(!error.description.contains("\n"), "\(name): \(error)")
            }
        }
    }
}

/// The speed check of issue 25: a format-23 file of 1,000,000 objects, written by the test
/// writer, read back whole. Set PFARCHIVE_REALM_MILLION=1 to run it (it prints the rate).
@Suite("Realm speed") struct RealmSpeedTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PFARCHIVE_REALM_MILLION"] != nil))
    func aMillionObjectsReadBack() throws {
        let (bytes, rows) = RealmGeneratedTests.makeFile(seed: 42, count: 1_000_000, streaming: false)
        let start = Date()
        let db = try RealmDatabase(RealmFile(bytes: bytes))
        let table = try #require(db.table(named: "Item"))
        var count = 0
        var last: Int64 = -1
        try db.forEachObject(of: table) { object in
            count += 1
            last = object.key
        }
        let seconds = Date().timeIntervalSince(start)
        print("Realm: \(count) objects (\(bytes.count) bytes) read in \(String(format: "%.2f", seconds)) s, \(Int(Double(count) / seconds)) objects/s")
        #expect(count == rows.count)
        #expect(last == rows.last?.key)
    }
}
