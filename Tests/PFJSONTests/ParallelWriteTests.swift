import Foundation
import OrderedCollections
import PFCore
import PFTestSupport
import PropertyBased
import Testing

@testable import PFJSON

/// A heavy value is written on several threads (``JSONWriter/Options/parallel``). These tests
/// lower the weight threshold to zero and the batch weight to a few values, so small values are
/// cut everywhere a cut can fall, and check that each write gives exactly the bytes, or the
/// error (message and key path), of the one-thread write.
@Suite struct ParallelWriteTests {
    /// Compact, pretty, sorted keys, escaped slashes, typed values off, and a shallow limit.
    static let baseOptions: [JSONWriter.Options] = {
        var shallow = JSONWriter.Options()
        shallow.maxDepth = 3
        return [
            JSONWriter.Options(), JSONWriter.Options(pretty: true), JSONWriter.Options(sortedKeys: true),
            JSONWriter.Options(pretty: true, sortedKeys: true, escapeSlashes: true),
            JSONWriter.Options(typedValues: false), shallow,
        ]
    }()

    static func oneThread(_ options: JSONWriter.Options) -> JSONWriter {
        var o = options
        o.parallel = false
        return JSONWriter(options: o)
    }

    /// Writers that cut any value into batches of weight 1, 3 and 50.
    static func parallelWriters(_ options: JSONWriter.Options) -> [JSONWriter] {
        [1, 3, 50].map { weight in
            var o = options
            o.parallelThreshold = 0
            o.parallelBatchWeight = weight
            return JSONWriter(options: o)
        }
    }

    static func outcome(_ value: PFValue, _ writer: JSONWriter) -> Result<Data, PFError> {
        Result { () throws(PFError) -> Data in try writer.write(value) }
    }

    /// Expects every parallel writer to agree with the one-thread writer; returns how many
    /// writes really split.
    @discardableResult
    static func expectSameOutcomes(_ value: PFValue, _ options: JSONWriter.Options, _ label: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        let expected = outcome(value, oneThread(options))
        var split = 0
        for writer in parallelWriters(options) {
            #expect(outcome(value, writer) == expected, "\(label), weight \(writer.options.parallelBatchWeight)",
                    sourceLocation: sourceLocation)
            if JSONWritePlan(value, threshold: 0, batchWeight: writer.options.parallelBatchWeight,
                             sortedKeys: options.sortedKeys) != nil {
                split += 1
            }
        }
        return split
    }

    @Test func sameBytesForRandomValues() async {
        let split = Counter()
        await propertyCheck(count: 150, input: ValueGen.document(.json)) { value in
            for options in Self.baseOptions {
                split.add(Self.expectSameOutcomes(value, options, "\(value)"))
            }
        }
        #expect(split.value > 100)
    }

    /// Values that fail deep inside a unit, in the skeleton, or in two places (the first in
    /// write order wins).
    @Test(arguments: 0..<6)
    func sameErrors(_ which: Int) {
        let options = Self.baseOptions[which]
        let deep: PFValue = ["a": [1, 2, ["b": [3, .double(.nan)]]], "c": [4, 5, 6], "d": .double(.infinity)]
        let dates: PFValue = [
            "x": .array((0..<20).map { .int($0) }), "when": .date(Date(timeIntervalSince1970: 0)),
            "y": [.data(Data([1, 2])), .uid(7)], "z": [.uid(5_000_000_000)],
        ]
        let nested: PFValue = [[[[[1, 2], [3, 4]], [[5, .double(.nan)]]]], [[[[6]]]], 7, "s"]
        let wide: PFValue = .dictionary(OrderedDictionary(uniqueKeysWithValues: (0..<40).map {
            ("k\($0)", $0 == 33 ? .double(.nan) : .array([.int($0), .string("v/\($0)")]))
        }))
        for value in [deep, dates, nested, wide] {
            Self.expectSameOutcomes(value, options, "\(value)")
        }
    }

    /// The benchmark files' values are cut at the default batch weight (twitter's is under the
    /// default threshold, about half a millisecond of writing), and write the same bytes.
    @Test(arguments: ["twitter.json", "citm_catalog.json", "canada.json"])
    func benchFilesSplitAndWriteTheSame(_ name: String) throws {
        let value = try JSONReader().read(Fixtures.data(Fixtures.benchData.appendingPathComponent(name)))
        var options = JSONWriter.Options()
        #expect(JSONWritePlan(value, threshold: 0, batchWeight: options.parallelBatchWeight, sortedKeys: false) != nil)
        options.parallelThreshold = 0
        for pretty in [false, true] {
            options.pretty = pretty
            options.sortedKeys = pretty
            #expect(try JSONWriter(options: options).write(value) == Self.oneThread(options).write(value))
        }
    }

    /// Light values and values whose weighed parts nest deeper than a pool thread writes are
    /// written on one thread.
    @Test func lightAndDeepValuesAreNotCut() {
        let light: PFValue = .array((0..<100).map { .int($0) })
        #expect(JSONWritePlan(light, threshold: 16384, batchWeight: 4096, sortedKeys: false) == nil)
        let deep = Self.nested(JSONBatches.maximumDepth + 1)
        #expect(JSONWritePlan(deep, threshold: 0, batchWeight: 1, sortedKeys: false) == nil)
        #expect(JSONWritePlan(Self.nested(10), threshold: 0, batchWeight: 1, sortedKeys: false) != nil)
        var o = JSONWriter.Options()
        o.parallelThreshold = 0
        o.maxDepth = 10_000
        #expect(Self.outcome(deep, JSONWriter(options: o)) == Self.outcome(deep, Self.oneThread(o)))
    }

    /// A deep part the weighing did not see (it samples the children of wide containers) is
    /// cut short on the pool thread and written by the caller, with the one-thread bytes; and
    /// with the one-thread error where it goes past `maxDepth`.
    @Test func deepPartsTheWeighingMissedAreWrittenByTheCaller() {
        let deep = Self.nested(JSONBatches.maximumDepth + 50)
        var items: [PFValue] = (0..<400).map { .int($0) }
        items[1] = deep  // with 400 children, every 25th is weighed: not this one
        let value: PFValue = .array(items)
        #expect(JSONWritePlan(value, threshold: 0, batchWeight: 10, sortedKeys: false) != nil)
        for maxDepth in [512, JSONBatches.maximumDepth + 20] {
            var o = JSONWriter.Options()
            o.parallelThreshold = 0
            o.parallelBatchWeight = 10
            o.maxDepth = maxDepth
            let expected = Self.outcome(value, Self.oneThread(o))
            #expect(Self.outcome(value, JSONWriter(options: o)) == expected)
            if case .failure(let error) = expected {
                #expect(maxDepth < 512 && error.code == .limitExceeded)
            } else {
                #expect(maxDepth == 512)
            }
        }
    }

    /// A chain of `depth` arrays, each with a few numbers beside the next.
    static func nested(_ depth: Int) -> PFValue {
        var value: PFValue = .array((0..<10).map { .int($0) })
        for k in 0..<depth { value = [.double(Double(k) + 0.5), value, .int(Int64(k))] }
        return value
    }

    /// Writes from a thread pool whose threads are all busy still finish.
    @Test func finishesWhenNoHelperIsFree() {
        var options = JSONWriter.Options()
        options.parallelThreshold = 0
        options.parallelBatchWeight = 2
        let writer = JSONWriter(options: options)
        let value: PFValue = ["a": [1, 2, ["b": "c"]], "d": [3, [4, 5], 6]]
        let expected = try? Self.oneThread(options).write(value)
        let count = 4 * ProcessInfo.processInfo.activeProcessorCount + 8
        let results = Counter()
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            if (try? writer.write(value)) == expected { results.add(1) }
        }
        #expect(results.value == count)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = 0
        func add(_ n: Int) {
            lock.lock()
            stored += n
            lock.unlock()
        }
        var value: Int {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }
}
