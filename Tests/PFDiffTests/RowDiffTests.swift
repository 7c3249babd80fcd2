import Foundation
import PFCore
import PFParse
import PFStoreTestSupport
import PFStores
import Testing

@testable import PFDiff

/// Two Parse exports compared by their rows' bytes first (``StoreDiff/Options/comparesRows``)
/// give exactly what comparing every object gives: the same lines, patch operations and counts.
@Suite struct RowDiffTests {
    /// Everything one comparison reports, in order.
    struct Run: Equatable {
        var events: [String] = []
        var operations: [JSONPatch.Operation] = []
        var summary = StoreDiff.Summary()
    }

    static func run(_ a: URL, _ b: URL, rows: Bool, _ configure: (inout StoreDiff.Options) -> Void = { _ in }) throws -> Run {
        var options = StoreDiff.Options()
        options.comparesRows = rows
        configure(&options)
        var run = Run()
        run.summary = try StoreDiff.compare(ParseExportStore(url: a), ParseExportStore(url: b), options: options) { event in
            switch event {
            case .difference(let d): run.events.append(d.description)
            case .patch(let ops): run.operations += ops
            }
        }
        return run
    }

    /// Compares both ways with and without the row path, in memory and spilled; returns the
    /// in-memory run.
    @discardableResult
    static func expectSame(_ a: URL, _ b: URL, _ configure: (inout StoreDiff.Options) -> Void = { _ in },
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> Run {
        let spillRoot = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: spillRoot) }
        let spilled: (inout StoreDiff.Options) -> Void = {
            configure(&$0)
            $0.objectsInMemory = 3
            $0.rowsInMemory = 2
            $0.partitions = 4
            $0.temporaryDirectory = spillRoot
        }
        var first: Run?
        for (x, y) in [(a, b), (b, a)] {
            let slow = try run(x, y, rows: false, configure)
            let fast = try run(x, y, rows: true, configure)
            #expect(fast == slow, "in memory", sourceLocation: sourceLocation)
            let slowSpilled = try run(x, y, rows: false, spilled)
            let fastSpilled = try run(x, y, rows: true, spilled)
            #expect(fastSpilled == slowSpilled, "spilled", sourceLocation: sourceLocation)
            // Spilling changes the order of the lines, never what they say.
            #expect(Set(fastSpilled.events) == Set(fast.events), sourceLocation: sourceLocation)
            first = first ?? fast
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: spillRoot.path).isEmpty, sourceLocation: sourceLocation)
        return first ?? Run()
    }

    static func write(_ files: [String: String], to dir: URL) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
    }

    static func results(_ rows: [String]) -> String { "{\"results\":[\n" + rows.joined(separator: ",\n") + "\n]}\n" }

    /// A hand-written pair with every kind of difference, each row spelled as a text.
    @Test func everyKindOfDifference() throws {
        let dir = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let team = #"{"__type":"Pointer","className":"Team","objectId":"t1"}"#
        let a: [String: String] = [
            "Player.json": Self.results([
                #"{"objectId":"p1","score":10,"name":"Zoë","team":\#(team),"createdAt":"2020-01-01T00:00:00.000Z"}"#,
                #"{"objectId":"p2","score":20,"born":{"__type":"Date","iso":"2001-02-03T04:05:06.789Z"}}"#,
                #"{"objectId":"p3","score":30,"tags":["a","b"],"ACL":{"*":{"read":true}}}"#,
                #"{"objectId":"p4","score":40}"#,
                #"{"objectId":"dup","score":1}"#,
                #"{"objectId":"dup","score":2}"#,
                #"{"score":99}"#,
                #"{"objectId":"p5","score":5.0,"where":{"__type":"GeoPoint","latitude":1,"longitude":2}}"#,
                #"{"objectId":"p6","updatedAt":"2020-01-01T00:00:00.000Z","n":null}"#,
            ]),
            "Team.json": Self.results([#"{"objectId":"t1","name":"reds"}"#, #"{"objectId":"t2","name":"blues"}"#]),
            "_Join:rivals:Player.json": Self.results([
                #"{"owningId":"p1","relatedId":"p2"}"#, #"{"owningId":"p1","relatedId":"p3"}"#,
            ]),
            "Gone.json": Self.results([#"{"objectId":"g1","x":1}"#]),
        ]
        let b: [String: String] = [
            "Player.json": Self.results([
                // Key order and spacing differ: equal.
                #"{ "name": "Zoë", "team": \#(team), "score": 10, "objectId": "p1", "createdAt": "2020-01-01T00:00:00Z" }"#,
                // A date changed.
                #"{"objectId":"p2","score":20,"born":{"__type":"Date","iso":"2001-02-03T04:05:06.788Z"}}"#,
                // A Pointer changed, an array element added.
                #"{"objectId":"p3","score":30,"tags":["a","b","c"],"ACL":{"*":{"read":true}},"team":{"__type":"Pointer","className":"Team","objectId":"t2"}}"#,
                // p4 removed, p7 added; the duplicate's last row is compared, and A's earlier
                // row of its objectId is a difference of its own.
                #"{"objectId":"dup","score":2}"#,
                #"{"objectId":"p7","score":70}"#,
                #"{"score":98}"#,
                // 5.0 and 5 are different types.
                #"{"objectId":"p5","score":5,"where":{"__type":"GeoPoint","latitude":1,"longitude":2}}"#,
                #"{"objectId":"p6","updatedAt":"2020-01-01T00:00:00.000Z"}"#,
            ]),
            "Team.json": Self.results([#"{"objectId":"t2","name":"blues"}"#, #"{"name":"reds","objectId":"t1"}"#]),
            "_Join:rivals:Player.json": Self.results([
                #"{"owningId":"p1","relatedId":"p3"}"#, #"{"owningId":"p7","relatedId":"p1"}"#,
            ]),
            "New.json": Self.results([#"{"objectId":"n1","x":"one"}"#]),
        ]
        try Self.write(a, to: dir.appendingPathComponent("a"))
        try Self.write(b, to: dir.appendingPathComponent("b"))
        let run = try Self.expectSame(dir.appendingPathComponent("a"), dir.appendingPathComponent("b"))
        for line in [
            "- Gone/g1", "+ New/n1", "Player/p2.born: 2001-02-03T04:05:06.789Z → 2001-02-03T04:05:06.788Z", "- Player/p4",
            "+ Player/p7", "- _Join:rivals:Player (p1, p2)", "+ _Join:rivals:Player (p7, p1)",
        ] {
            #expect(run.events.contains(line), "\(run.events)")
        }
        #expect(!run.events.contains { $0.hasPrefix("Player/p1") || $0.contains("Team/t1") }, "\(run.events)")
        #expect(run.events.filter { $0.contains("dup") } == ["- Player/dup (an earlier object of this objectId in A): {1 key}"], "\(run.events)")
        #expect(run.events.contains { $0.hasPrefix("Player/p5.score") })
        #expect(run.events.contains("- schema Gone.x: \"Number\"") && run.events.contains("+ schema New.x: \"String\""), "\(run.events)")
        // With a _SCHEMA.json on one side (its types declared, not inferred) the paths still agree.
        try Self.write(["_SCHEMA.json": #"{"results":[{"className":"Player","fields":{"score":{"type":"Number"},"level":{"type":"String"}}}]}"#],
                       to: dir.appendingPathComponent("b"))
        try Self.expectSame(dir.appendingPathComponent("a"), dir.appendingPathComponent("b"))
    }

    /// Rows whose fields disagree on a type: the inferred schemas (kept type, conflicts) agree.
    /// When A is a zip (its rows cannot be read again at their offsets), B's rows are read on a
    /// thread of their own, with an instance of B of their own, while A's index is built
    /// (``RowPass``): the schema inferred there is handed to the caller's instance; a B with
    /// more rows than are held is read again after A, an A that spills while B is held pairs
    /// the same; a bad row of B fails as when B is read after A, and a bad row of A fails first.
    @Test func rowsOfBReadOnAnotherThread() throws {
        let dir = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = (0..<6).map { #"{"objectId":"o\#($0)","v":\#($0)}"# }
        let plainA = dir.appendingPathComponent("plain-a"), b = dir.appendingPathComponent("b")
        try Self.write(["C.json": Self.results(rows)], to: plainA)
        let a = dir.appendingPathComponent("a.zip")
        _ = try StoreImporter().run(from: ParseExportStore(url: plainA), to: ParseExportStore(url: a))
        #expect(try ParseExportStore(url: a).classFilePath(of: "C") == nil)
        try Self.write(["C.json": Self.results([rows[1], #"{"objectId":"o2","v":"two"}"#])], to: b)
        // Spilled (2 rows held): A spills while B's 2 rows are held; the other way, B's 6 are read again.
        let run = try Self.expectSame(a, b)
        #expect(run.summary.objects == (a: 6, b: 2))

        var options = StoreDiff.Options()
        options.compareSchemas = false
        let storeB = ParseExportStore(url: b)
        _ = try StoreDiff.compare(ParseExportStore(url: a), storeB, options: options) { _ in }
        #expect(storeB.inferredClass("C") != nil)  // adopted from the other thread's instance
        #expect(try storeB.schema().classes["C"]?["v"]?.type == .number)
        #expect(storeB.typeConflicts.map(\.row) == [1])

        let badA = dir.appendingPathComponent("bad-a"), badB = dir.appendingPathComponent("bad-b")
        try Self.write(["C.json": Self.results([rows[0], #"{"objectId":"o1","v":}"#])], to: badA)
        try Self.write(["C.json": Self.results([rows[0], rows[1], #"{"objectId":"o2","v":[}"#])], to: badB)
        func failure(_ x: URL, _ y: URL, rows: Bool) -> String {
            do {
                _ = try Self.run(x, y, rows: rows)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        for (x, y, culprit) in [(a, badB, "bad-b"), (badA, badB, "bad-a"), (badB, badA, "bad-b")] {
            let fast = failure(x, y, rows: true)
            #expect(fast == failure(x, y, rows: false))
            #expect(fast.contains("/\(culprit): C.json"), "\(fast)")
        }
    }

    /// B's rows that are byte for byte A's rows where they are expected are recognised
    /// (``RowMatcher``) and not read as JSON again, and the comparison says exactly what it says
    /// without them: rows changed in place (one of the same length), rows removed and added
    /// (one, then a block longer than a guess reaches), rows swapped, a key repeated in A, and
    /// rows without an objectId, which are never recognised (their key is their place).
    @Test func rowsOfBRecognisedAsRowsOfA() throws {
        let dir = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func row(_ n: Int, _ v: String = "") -> String { #"{"objectId":"o\#(n)","v":\#(n)\#(v),"s":"row \#(n)"}"# }
        var rowsA = (0..<3_000).map { row($0) }
        rowsA[7] = #"{"v":7}"#
        rowsA[9] = #"{"objectId":"o8","v":-8,"s":"again"}"#  // o8 twice: its last row counts
        var rowsB = rowsA
        rowsB[3] = row(3).replacingOccurrences(of: "row", with: "wor")  // same length, other bytes
        rowsB.remove(at: 20)
        rowsB.insert(row(5_000), at: 40)
        rowsB.swapAt(60, 61)
        rowsB.insert(contentsOf: (0..<12).map { row(6_000 + $0) }, at: 100)
        rowsB.removeSubrange(1_500..<1_520)
        let a = dir.appendingPathComponent("a"), b = dir.appendingPathComponent("b")
        try Self.write(["C.json": Self.results(rowsA)], to: a)
        try Self.write(["C.json": Self.results(rowsB)], to: b)
        let run = try Self.expectSame(a, b)
        #expect(run.events.contains("C/o3.s: \"row 3\" → \"wor 3\""), "\(run.events.prefix(8))")
        #expect(run.events.contains("- C/o20") && run.events.contains("+ C/o5000") && run.events.contains("+ C/o6011"))

        // Which of B's rows the matcher recognises, fed back with where B's rows were found by
        // key as the comparison does.
        let storeA = ParseExportStore(url: a)
        let path = try #require(try storeA.classFilePath(of: "C"))
        let state = try #require(RowMatcher.FileState(path: path))
        var index = RowIndex(options: StoreDiff.Options())
        _ = try index.read("C", of: storeA)
        let matcher = try #require(RowMatcher(path: path, table: index.memory, expecting: state))
        var recognizer = matcher.recognizer(shapes: storeA.rowShapes(of: "C"))
        #expect(recognizer.shapes != nil)
        var recognised = Set<Int>()
        let match = recognizer.match
        recognizer.match = { (bytes: UnsafeRawBufferPointer, at: Int) -> Int? in
            let n = match(bytes, at)
            if n != nil { recognised.insert(at) }
            return n
        }
        let storeB = ParseExportStore(url: b)
        var ids: [String?] = []
        try storeB.forEachRow(in: "C", recognizing: recognizer) { row in
            ids.append(row.objectId)
            let key = row.objectId ?? RowIndex.unnamed(row.location.index)
            if let found = index.memory.find(key, hash: RowIndex.hash(key)) { matcher.found(found, at: row.location.index) }
        }
        #expect(ids.count == rowsB.count)
        #expect(ids[7] == nil && ids[8] == "o8" && ids[3] == "o3")
        #expect(!recognised.contains(7), "a row without an objectId")
        #expect(!recognised.contains(3), "bytes changed")
        #expect(!recognised.contains(8), "the first row of a repeated key is not its last")
        #expect(recognised.contains(9), "the last row of a repeated key")
        #expect(!recognised.contains(40) && !recognised.contains(100) && !recognised.contains(111), "added rows")
        #expect(recognised.contains(0) && recognised.contains(10) && recognised.contains(50) && recognised.contains(rowsB.count - 1))
        #expect(recognised.contains(60) && recognised.contains(61), "swapped rows")
        // Every other row is recognised: after rows added or removed, by its objectId.
        #expect(recognised.count == rowsB.count - 16, "\(recognised.count) of \(rowsB.count)")
        #expect(RowMatcher.objectIdGuess(in: UnsafeRawBufferPointer(start: nil, count: 0)) == nil)
        for (text, guess) in [
            (#"{"objectId":"a1"}"#, "a1"), (#"{ "objectId" : "b2", "x": 1}"#, "b2"), (#"{"objectId":"c\"3"}"#, nil),
            (#"{"objectId":3}"#, nil), (#"{"objectId":"unterminated"#, nil), (#"{"x":"objectId"}"#, nil),
        ] as [(String, String?)] {
            let found = Array(text.utf8).withUnsafeBytes { RowMatcher.objectIdGuess(in: $0) }
            #expect(found == guess, "\(text)")
        }
        // The schema inferred from recognised rows is the one their reading infers.
        #expect(try storeB.schema().classes["C"] == ParseExportStore(url: b).schema().classes["C"])

        // A's file changed after its rows were read: no matcher, or the comparison fails.
        try matcher.checkUnchanged()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(" ".utf8))
        try handle.close()
        #expect(RowMatcher(path: path, table: index.memory, expecting: state) == nil)
        #expect(throws: PFError.self) { try matcher.checkUnchanged() }
        do {
            try matcher.checkUnchanged()
        } catch {
            #expect(error.failure(as: DiffFailure.self) == .fileChangedDuringComparison(path: path))
            #expect(error.message.contains("changed while it was compared"), "\(error.message)")
        }
    }

    /// The row index's hash table (``RowTable``) finds every key it holds, only those, and the
    /// last value set for each, when hashes collide in full (all keys given one hash), share
    /// their upper bits (the tag kept per slot) or differ, across its growth.
    @Test(arguments: [0, 1, 2]) func rowTableFindsKeysWhateverTheirHashes(kind: Int) {
        func hash(_ k: Int) -> Int {
            switch kind {
            case 0: 42
            case 1: (7 << 32) | (k & 0xFF)
            default: RowIndex.hash("k\(k)")
            }
        }
        var table = RowTable<Int>()
        let count = kind == 0 ? 300 : 5_000
        for k in 0..<count { table.set("k\(k)", hash: hash(k), k) }
        for k in stride(from: 0, to: count, by: 3) { table.set("k\(k)", hash: hash(k), -k) }
        #expect(table.count == count)
        for k in 0..<count {
            let found = table.find("k\(k)", hash: hash(k))
            #expect(found == k)
            if let found { #expect(table.entries[found].value == (k % 3 == 0 ? -k : k)) }
        }
        #expect(table.find("k\(count)", hash: hash(count)) == nil)
        // A guessed entry is taken only when it holds the key: right, wrong (with the same
        // hash in kind 0), out of range or negative guesses all find what find(_:hash:) finds.
        for k in 0..<count {
            for hint in [k, k + 1, k - 1, count, -5, Int.max] {
                #expect(table.find("k\(k)", hash: hash(k), hint: hint) == k)
            }
        }
        #expect(table.find("k\(count)", hash: hash(count), hint: count - 1) == nil)
        #expect(table.find("k\(count)", hash: hash(count - 1), hint: count - 1) == nil)
        table.update(1) { $0 = 99 }
        #expect(table.entries[1].value == 99 && table.entries[1].key == "k1")
        table.removeAll()
        #expect(table.count == 0 && table.find("k1", hash: hash(1)) == nil)
    }

    @Test func inferredSchemaConflictsAgree() throws {
        let dir = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rows = [
            #"{"objectId":"a","v":1,"p":{"__type":"Pointer","className":"X","objectId":"1"}}"#,
            #"{"objectId":"b","v":"one","p":{"__type":"Pointer","className":"Y","objectId":"1"}}"#,
            #"{"objectId":"c","v":1,"p":{"__type":"Pointer","className":"X","objectId":"2"}}"#,
            #"{"objectId":"d","v":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"},"w":[1]}"#,
        ]
        try Self.write(["C.json": Self.results(rows)], to: dir.appendingPathComponent("a"))
        try Self.write(["C.json": Self.results([rows[1], rows[0], rows[3], rows[2]])], to: dir.appendingPathComponent("b"))
        let run = try Self.expectSame(dir.appendingPathComponent("a"), dir.appendingPathComponent("b"))
        #expect(run.events == ["schema C.p: \"Pointer<X>\" → \"Pointer<Y>\"", "schema C.v: \"Number\" → \"String\""])
        let store = ParseExportStore(url: dir.appendingPathComponent("b"))
        var summaries = 0
        try store.forEachRow(in: "C") { _ in summaries += 1 }
        #expect(summaries == 4)
        #expect(store.typeConflicts.isEmpty)  // not inferred yet: schema() reads none again
        #expect(try store.schema().classes["C"]?["v"]?.type == .string)
        #expect(store.typeConflicts.map(\.field).sorted() == ["p", "v", "v"])
    }

    /// Runs of rows of one shape (the row path adds a shape's types once per run and only
    /// counts the rest) infer the schema the object path infers: the same fields, and the
    /// same conflicts with the same first rows, runs crossing the reader's batches too.
    @Test func inferredSchemaFromRunsOfShapes() throws {
        let dir = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shapes = [
            #"{"objectId":"%","v":1,"p":{"__type":"Pointer","className":"X","objectId":"1"}}"#,
            #"{"objectId":"%","v":"one","p":{"__type":"Pointer","className":"Y","objectId":"1"}}"#,
            #"{"objectId":"%","v":true,"w":[1]}"#,
            #"{"objectId":"%","v":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"},"w":{"a":1}}"#,
        ]
        var rows: [String] = []
        var random = SplitMix64(seed: 26)
        while rows.count < 3000 {
            let shape = shapes[Int(random.next() % UInt64(shapes.count))]
            for _ in 0..<Int(random.next() % 400) + 1 { rows.append(shape.replacingOccurrences(of: "%", with: "r\(rows.count)")) }
        }
        try Self.write(["C.json": Self.results(rows)], to: dir)
        let byRows = ParseExportStore(url: dir)
        var count = 0
        try byRows.forEachRow(in: "C") { _ in count += 1 }
        #expect(count == rows.count)
        let byObjects = ParseExportStore(url: dir)
        try byObjects.forEachObject(in: "C") { _ in }
        #expect(try byRows.schema().classes["C"] == byObjects.schema().classes["C"])
        #expect(byRows.typeConflicts == byObjects.typeConflicts)
        #expect(Set(byRows.typeConflicts.map(\.field)) == ["v", "p", "w"])
    }

    /// Row shapes hashed from the JSON reader's tape, and from the bytes of rows the tape does
    /// not hold (a key with an escape or beyond ASCII), mixed in one file: the schema and its
    /// conflicts are the object path's (long integers, doubles, escaped `__type`s, dates).
    @Test func inferredSchemaFromTapeAndByteShapes() throws {
        let dir = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shapes = [
            #"{"objectId":"%","n":1,"p":{"__type":"Pointer","className":"X","objectId":"1"}}"#,
            #"{"objectId":"%","n":1234567890123456789,"p":{"__type":"Poin\u0074er","className":"Y","objectId":"1"}}"#,
            #"{"objectId":"%","n":1.5,"m":"x","d":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"}}"#,
            #"{"objectId":"%","n\u0031":true,"d":"2020","é":[1]}"#,
            #"{"objectId":"%","é":{"a":1},"d":{"__type":"Bytes","base64":"AA=="}}"#,
        ]
        var rows: [String] = []
        var random = SplitMix64(seed: 2626)
        while rows.count < 2000 {
            let shape = shapes[Int(random.next() % UInt64(shapes.count))]
            for _ in 0..<Int(random.next() % 300) + 1 { rows.append(shape.replacingOccurrences(of: "%", with: "r\(rows.count)")) }
        }
        try Self.write(["C.json": Self.results(rows)], to: dir)
        let byRows = ParseExportStore(url: dir)
        var count = 0
        try byRows.forEachRow(in: "C") { _ in count += 1 }
        #expect(count == rows.count)
        let byObjects = ParseExportStore(url: dir)
        try byObjects.forEachObject(in: "C") { _ in }
        #expect(try byRows.schema().classes["C"] == byObjects.schema().classes["C"])
        #expect(byRows.typeConflicts == byObjects.typeConflicts)
        #expect(!byRows.typeConflicts.isEmpty)
    }

    /// Generated exports (every Parse type, relations, ACLs, missing objectIds) against a copy
    /// with objects changed, removed and added.
    @Test(arguments: 0..<12) func generatedExports(seed: UInt64) throws {
        let dir = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let generated = StoreGen.store(.parseExport, seed: seed)
        var edited: [ParseObject] = []
        for (i, object) in generated.objects.enumerated() {
            switch i % 5 {
            case 1:
                var fields = object.fields
                fields["edited"] = .int(Int64(i))
                if let key = fields.keys.first(where: { $0 != "edited" }) { fields[key] = .string("changed \(i)") }
                edited.append(try object.replacingFields(fields))
            case 3 where object.objectId != nil: continue
            default: edited.append(object)
            }
        }
        edited.append(try ParseObject(className: generated.classNames.first ?? "Extra", objectId: "zzAdded", fields: ["n": .int(1)]))
        var joins = generated.joinRows
        if let key = joins.keys.first { joins[key] = Array((joins[key] ?? []).dropFirst()) }
        let a = dir.appendingPathComponent("a"), b = dir.appendingPathComponent("b"), same = dir.appendingPathComponent("same")
        _ = try StoreImporter().run(from: generated.memoryStore(), to: ParseExportStore(url: a))
        _ = try StoreImporter().run(from: generated.memoryStore(), to: ParseExportStore(url: same, options: .init(sortedKeys: true)))
        _ = try StoreImporter().run(from: MemoryStore(objects: edited, joinRows: joins), to: ParseExportStore(url: b))
        let changed = try Self.expectSame(a, b)
        #expect(!changed.events.isEmpty)
        #expect(changed.events.contains("+ \(generated.classNames.first ?? "Extra")/zzAdded"))
        // The same store written with sorted keys: every row differs in bytes, none in value.
        let equal = try Self.expectSame(a, same)
        #expect(equal.events.isEmpty, "\(equal.events.prefix(5))")
    }

    /// The real Parse export against itself, and against copies with a value changed, keys
    /// reordered and an object dropped.
    @Test func realExport() throws {
        let real = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/real/parse")
        let dir = try StoreDiffTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try Self.expectSame(real, real).events.isEmpty)
        let copy = dir.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: real, to: copy)
        let comments = copy.appendingPathComponent("Comment.json")
        var text = try String(contentsOf: comments, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"downvotes\": 0,", with: "\"downvotes\": 1,")
        try Data(text.utf8).write(to: comments)
        // _Role's rows rewritten with sorted keys and no spaces: equal values.
        let roles = copy.appendingPathComponent("_Role.json")
        let value = try JSONSerialization.jsonObject(with: Data(contentsOf: roles))
        try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]).write(to: roles)
        let run = try Self.expectSame(real, copy)
        #expect(run.events.contains { $0.hasSuffix(".downvotes: 0 → 1") })
        #expect(!run.events.contains { $0.hasPrefix("_Role") })
        // Drop the last object of Comment.json.
        if let start = text.range(of: ",\n\t{", options: .backwards), let end = text.range(of: "]", options: .backwards) {
            text.replaceSubrange(start.lowerBound..<end.lowerBound, with: "\n")
            try Data(text.utf8).write(to: comments)
            let dropped = try Self.expectSame(real, copy)
            #expect(dropped.events.contains { $0.hasPrefix("- Comment/") })
        }
    }
}
