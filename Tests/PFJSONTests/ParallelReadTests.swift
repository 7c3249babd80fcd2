import Foundation
import PFCore
import PFTestSupport
import PropertyBased
import Testing

@testable import PFJSON

/// A large strict document is read on several threads (``JSONReader/Options/parallel``). These
/// tests lower the size threshold to zero and cut documents into many batches, so small
/// documents are split everywhere a split can fall, and check that each read gives exactly the
/// value or the error (message, position, key path) the one-thread read gives.
@Suite struct ParallelReadTests {
    typealias Outcome = NodeViewTests.Outcome

    /// Settings whose reads split: defaults, typed values off, short strings (errors inside
    /// units), shallow and small budgets (errors from the pre-scan).
    static let baseOptions: [JSONReader.Options] = {
        var untyped = JSONReader.Options()
        untyped.typedValues = false
        var short = JSONReader.Options()
        short.limits.maxStringBytes = 8
        var shallow = JSONReader.Options()
        shallow.limits.maxDepth = 3
        shallow.limits.maxNodes = 40
        return [JSONReader.Options(), untyped, short, shallow]
    }()

    /// Readers that split any document into 2, 16 and 10,000 batches (the last puts nearly
    /// every value in a batch of its own). The parallel read is json-c's (the native engine
    /// reads on one thread), so they are checked against the native one-thread read.
    static func parallelReaders(_ options: JSONReader.Options) -> [JSONReader] {
        [2, 16, 10_000].map { batches in
            var o = options
            o.engine = .jsonC
            o.parallelThreshold = 0
            o.parallelBatches = batches
            return JSONReader(options: o)
        }
    }

    static func oneThread(_ options: JSONReader.Options) -> JSONReader {
        var o = options
        o.parallel = false
        return JSONReader(options: o)
    }

    static func outcome(_ bytes: Data, _ reader: JSONReader) -> Outcome {
        do { return .value(try reader.read(bytes)) } catch { return .error(error) }
    }

    /// The parallel read's own outcome, or `nil` when it hands the document to one thread.
    static func parallelOutcome(_ bytes: Data, _ reader: JSONReader) -> Outcome? {
        bytes.withUnsafeBytes { buffer -> Outcome? in
            do throws(PFError) {
                switch try reader.readInParallel(buffer) {
                case .value(let value): return .value(value)
                case .oneThread: return nil
                }
            } catch {
                return .error(error)
            }
        }
    }

    /// Expects every parallel reader to agree with the one-thread reader; returns how many
    /// reads really split (took the parallel path to a value or an error).
    @discardableResult
    static func expectSameOutcomes(_ bytes: Data, _ options: JSONReader.Options, _ label: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let expected = outcome(bytes, oneThread(options))
        var split = 0
        for reader in parallelReaders(options) {
            #expect(outcome(bytes, reader) == expected, "\(label), \(reader.options.parallelBatches) batches",
                    sourceLocation: sourceLocation)
            if let direct = parallelOutcome(bytes, reader) {
                split += 1
                #expect(direct == expected, "\(label), \(reader.options.parallelBatches) batches (direct)",
                        sourceLocation: sourceLocation)
            }
        }
        return split
    }

    @Test(arguments: 0..<4)
    func sameOutcomesOnTheJSONTestSuite(_ which: Int) throws {
        let files = Fixtures.files(in: Fixtures.jsonTestSuite) { $0.hasSuffix(".json") }
        #expect(files.count > 300)
        var split = 0
        for file in files {
            split += Self.expectSameOutcomes(try Fixtures.data(file), Self.baseOptions[which], file.lastPathComponent)
        }
        // Most y_ files are small arrays and objects: many must really have split.
        #expect(split > 200)
    }

    /// Documents on the edges of the plan: repeated keys whose dropped values would fail,
    /// typed objects and their look-alikes, keys a skeleton cannot hold, escapes and
    /// whitespace around the cuts.
    static let edgeDocuments: [String] = NodeViewTests.documents + [
        #"{"a": "0123456789abcdef", "a": [1, 2, 3], "b": [4, 5]}"#,  // the long string is replaced
        #"{"a": [1, 2, 3], "b": ["0123456789abcdef"], "a": "0123456789abcdef"}"#,
        #"[{"__type": "Bytes", "base64": "AAECAw=="}, {"__type": "Date", "iso": "2011-06-10T18:33:42.123Z"}]"#,
        #"{"__type": "Bytes", "base64": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}"#,
        #"{"__type": "Date", "iso": "nonsense"}"#,  // malformed typed object: an error in strict mode
        #"{"__type": "Date", "iso": "2011-06-10T18:33:42.123Z", "__type": "Date"}"#,
        #"{"\u005f_type": "Date", "iso": "2011-06-10T18:33:42.123Z"}"#,  // the key spelled with an escape
        #"{"CF$UID": 7}"#, #"{"CF$UID": [1, 2]}"#, #"{"CF$UID": 7, "x": [1, 2]}"#,
        #"{"k\u00e9y": [1, 2], "plain": [3, 4], "k\u00e9y": [5]}"#,
        #"{"\u00e9": [1, 2, 3], "e\u0301": [4, 5, 6]}"#,  // canonically equal keys
        "[\"a\\\\\", \"b\\\\\\\"\", \"c\\\"\", \"\\\\\"]",  // backslash runs before closing quotes
        " \n\t[ 1 ,\n 2 , [ 3 , { \"a\" : [ 4 ] } ] , \"x\" ]\r\n ",
        "[[[[[[1, 2], [3, 4]], [[5]]]]], [[[[6]]]], 7, true, false, null, -0.5e-3, \"s\"]",
        #"{"a": {"b": {"c": {"d": [1, 2, 3, 4, 5, 6, 7, 8]}}}, "e": {"f": "0123456789abcdef"}}"#,
        #"[{"a": 1}, {"a": "0123456789abcdef"}, {"a": "0123456789abcdef", "b": "0123456789abcdef"}]"#,
        #"[1, 2, 3, "0123456789abcdef", 4, 5, 6, 7, 8, 9, 10, "0123456789abcdef"]"#,
        "[" + (1...300).map { "[\($0), \($0).5, \"v\($0)\"]" }.joined(separator: ", ") + "]",
        "{" + (1...300).map { "\"k\($0 % 250)\": {\"n\": \($0)}" }.joined(separator: ", ") + "}",  // repeats
        "[" + String(repeating: "[", count: 40) + "1" + String(repeating: "]", count: 40) + ", 2]",
        "[1e400]", "[123456789012345678901234567890]", "[18446744073709551616]",
        // Runs of members: failing values a later member of the same key replaces (in the same
        // run or another), and one that stays.
        ParallelReadTests.wideObject(failing: [0, 7], replaced: [0, 7]),
        ParallelReadTests.wideObject(failing: [0, 7, 19], replaced: [0, 7]),
        ParallelReadTests.wideObject(failing: [3, 4], replaced: [4]),
    ]

    /// An object of 30 members whose `failing` ones hold a string over 8 bytes, followed by
    /// the `replaced` keys again with small values.
    static func wideObject(failing: Set<Int>, replaced: [Int]) -> String {
        let members = (0..<30).map { "\"k\($0)\": \(failing.contains($0) ? "\"0123456789abcdef\"" : "[\($0)]")" }
        let again = replaced.map { "\"k\($0)\": \($0)" }
        return "{" + (members + again).joined(separator: ", ") + "}"
    }

    @Test(arguments: 0..<4)
    func sameOutcomesOnEdgeDocuments(_ which: Int) {
        var split = 0
        for text in Self.edgeDocuments {
            split += Self.expectSameOutcomes(Data(text.utf8), Self.baseOptions[which], text)
        }
        #expect(split > Self.edgeDocuments.count)
    }

    /// Every `json_*` file of the hostile corpus (nesting bombs, huge numbers, invalid UTF-8
    /// deep inside, long strings).
    @Test func sameOutcomesOnTheHostileCorpus() throws {
        let files = Fixtures.files(in: Fixtures.hostile) { $0.hasPrefix("json_") }
        #expect(!files.isEmpty)
        for file in files {
            let bytes = try Fixtures.data(file)
            for options in Self.baseOptions.prefix(3) {
                Self.expectSameOutcomes(bytes, options, file.lastPathComponent)
            }
        }
    }

    @Test func sameOutcomesOnRandomDocuments() async {
        await propertyCheck(count: 100, input: ValueGen.document(.json)) { value in
            guard let bytes = try? JSONWriter().write(value) else { return }
            for options in Self.baseOptions.prefix(3) {
                Self.expectSameOutcomes(bytes, options, "\(value)")
            }
            // Pretty text puts whitespace around every cut; half a document fails in the scan.
            if let pretty = try? JSONWriter(options: .init(pretty: true)).write(value) {
                Self.expectSameOutcomes(pretty, JSONReader.Options(), "pretty \(value)")
            }
            Self.expectSameOutcomes(bytes.prefix(bytes.count / 2), JSONReader.Options(), "half of \(value)")
        }
    }

    /// The benchmark files split at the default threshold and batch count, and read the same.
    @Test(arguments: ["twitter.json", "citm_catalog.json", "canada.json"])
    func benchFilesSplitAndReadTheSame(_ name: String) throws {
        let bytes = try Fixtures.data(Fixtures.benchData.appendingPathComponent(name))
        let options = JSONReader.Options()
        #expect(bytes.count >= options.parallelThreshold)
        let expected = try Self.oneThread(options).read(bytes)
        let direct = Self.parallelOutcome(bytes, JSONReader(options: options))
        if JSONBatches.threads > 1 {
            #expect(direct == .value(expected))
        } else {
            #expect(direct == nil)
        }
        #expect(try JSONReader().read(bytes) == expected)
        // Errors inside units (strings over a small budget) carry the one-thread path.
        var short = options
        short.limits.maxStringBytes = 8
        let shortExpected = Self.outcome(bytes, Self.oneThread(short))
        if case .error(let error) = shortExpected {
            #expect(error.path != nil)
        } else {
            Issue.record("\(name): a string over 8 bytes must fail")
        }
        #expect(Self.outcome(bytes, JSONReader(options: short)) == shortExpected)
        // An error near the end, found by the pre-scan before anything is split.
        var broken = bytes
        broken[broken.count - 2] = 0xFF
        #expect(Self.outcome(broken, JSONReader()) == Self.outcome(broken, Self.oneThread(options)))
    }

    /// The plan of a real document: units in text order, not overlapping, inside the input,
    /// and every skeleton child accounted for.
    @Test func planCoversTheDocumentInOrder() throws {
        let bytes = try Fixtures.data(Fixtures.benchData.appendingPathComponent("citm_catalog.json"))
        try bytes.withUnsafeBytes { buffer in
            var scanner = JSONScanner(bytes: buffer, base: buffer.baseAddress!, options: JSONReader.Options())
            var recorder = JSONContainerRecorder()
            _ = try scanner.scan(into: &recorder)
            let plan = try #require(JSONSplitPlan(bytes: buffer, containers: recorder, batchBytes: buffer.count / 16,
                                                  typedValues: true))
            #expect(plan.batches.count >= 8)
            #expect(plan.batches.first?.lowerBound == 0)
            #expect(plan.batches.last?.upperBound == plan.units.count)
            for (a, b) in zip(plan.batches, plan.batches.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
            var last = 0
            for unit in plan.units {
                #expect(unit.start >= last && unit.start < unit.end && unit.end <= buffer.count)
                last = unit.end
            }
            var seen = Set<Int>()
            for node in plan.nodes {
                for case .node(_, let key) in node.children { #expect((key != nil) == node.isObject) }
                for case .unit(let u) in node.children { #expect(seen.insert(u).inserted) }
            }
            #expect(seen.count == plan.units.count)
        }
    }

    /// A document nested deeper than a pool thread converts is read on the caller's thread
    /// (and reads the same).
    @Test func deepDocumentsStayOnOneThread() throws {
        var options = JSONReader.Options()
        options.parallelThreshold = 0
        let depth = JSONBatches.maximumDepth
        for extra in [0, 1] {
            let text = Data((String(repeating: "[1, ", count: depth + extra) + "2" + String(repeating: "]", count: depth + extra)).utf8)
            let direct = Self.parallelOutcome(text, JSONReader(options: options))
            #expect((direct == nil) == (extra == 1))
            #expect(Self.outcome(text, JSONReader(options: options)) == Self.outcome(text, Self.oneThread(options)))
        }
    }

    /// A read on a thread pool whose threads are all busy still finishes: the caller works
    /// every batch itself when no helper has started.
    @Test func finishesWhenNoHelperIsFree() throws {
        var options = JSONReader.Options()
        options.parallelThreshold = 0
        let reader = JSONReader(options: options)
        let bytes = Data(#"{"a": [1, 2, {"b": "c"}], "d": [3, [4, 5], 6]}"#.utf8)
        let count = 4 * ProcessInfo.processInfo.activeProcessorCount + 8
        let results = Recorder()
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let ok = (try? reader.read(bytes)) == ["a": [1, 2, ["b": "c"]], "d": [3, [4, 5], 6]]
            results.add(ok)
        }
        #expect(results.values.count == count)
        #expect(results.values.allSatisfy { $0 })
    }

    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Bool] = []
        func add(_ value: Bool) {
            lock.lock()
            stored.append(value)
            lock.unlock()
        }
        var values: [Bool] {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }
}
