import Foundation
import Synchronization
import Testing

@testable import PFCore

/// The one parallel engine: order, first error in input order, cancellation, bounded work,
/// the one-thread fallback, and a property test against a serial loop.
@Suite struct OrderedParallelMapTests {
    struct Failed: Error, Equatable {
        let index: Int
    }

    /// Busy work of about `n` steps, so threads finish out of order.
    static func spin(_ n: Int) -> Int {
        var x = 0
        for i in 0..<n { x = x &* 31 &+ i }
        return x
    }

    /// Counts what is running, the most at once, and what was started.
    final class Meter: Sendable {
        struct Counts {
            var running = 0
            var most = 0
            var started = 0
            var threads: Set<ObjectIdentifier> = []
        }
        let counts = Mutex(Counts())

        func enter() {
            counts.withLock {
                $0.running += 1
                $0.started += 1
                $0.most = max($0.most, $0.running)
                $0.threads.insert(ObjectIdentifier(Thread.current))
            }
        }

        func leave() { counts.withLock { $0.running -= 1 } }

        var started: Int { counts.withLock { $0.started } }
        var most: Int { counts.withLock { $0.most } }
        var running: Int { counts.withLock { $0.running } }
        var threads: Set<ObjectIdentifier> { counts.withLock { $0.threads } }
    }

    @Test func outputsComeInInputOrder() throws {
        let meter = Meter()
        let inputs = Array(0..<2_000)
        let outputs = try OrderedParallelMap<Int, Int, Failed>.map(inputs, workers: 4) { i throws(Failed) in
            meter.enter()
            defer { meter.leave() }
            _ = Self.spin((i * 7919) % 5_000)
            return i * 2
        }
        #expect(outputs == inputs.map { $0 * 2 })
        #expect(meter.most <= 4)
        #expect(meter.running == 0)
    }

    @Test func theFirstErrorInInputOrderWins() {
        // Input 3 fails last (it is slow); 50, 51 and 400 fail at once.
        let map = OrderedParallelMap<Int, Int, Failed>(workers: 4, window: 64) { i throws(Failed) in
            if i == 3 { Thread.sleep(forTimeInterval: 0.05) }
            if [3, 50, 51, 400].contains(i) { throw Failed(index: i) }
            return i
        }
        var delivered: [Int] = []
        #expect(throws: Failed(index: 3)) {
            for i in 0..<1_000 { try map.submit(i) { delivered.append($0) } }
            try map.finish { delivered.append($0) }
        }
        #expect(delivered == [0, 1, 2])
    }

    @Test func nothingAfterAFailureStartsAndNothingRunsAfterItThrows() {
        let meter = Meter()
        let map = OrderedParallelMap<Int, Int, Failed>(workers: 3, window: 6) { i throws(Failed) in
            meter.enter()
            defer { meter.leave() }
            _ = Self.spin(2_000)
            if i == 10 { throw Failed(index: i) }
            return i
        }
        #expect(throws: Failed(index: 10)) {
            for i in 0..<10_000 { try map.submit(i) { _ in } }
            try map.finish { _ in }
        }
        // Started: the ten before it, it, and at most a window's worth after it.
        #expect(meter.started <= 11 + 6)
        let started = meter.started
        #expect(meter.running == 0)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(meter.started == started)
        // A map that threw takes nothing more.
        #expect(throws: Never.self) { try map.submit(1) { _ in Issue.record("delivered after a failure") } }
        #expect(meter.started == started)
    }

    @Test func aFailingDeliveryCancels() {
        let meter = Meter()
        let map = OrderedParallelMap<Int, Int, Failed>(workers: 2, window: 4) { i throws(Failed) in
            meter.enter()
            defer { meter.leave() }
            return i
        }
        var delivered: [Int] = []
        #expect(throws: Failed(index: -5)) {
            for i in 0..<1_000 {
                try map.submit(i) { output throws(Failed) in
                    if output == 5 { throw Failed(index: -5) }
                    delivered.append(output)
                }
            }
        }
        #expect(delivered == [0, 1, 2, 3, 4])
        #expect(meter.started <= 6 + 4)
        #expect(meter.running == 0)
    }

    @Test func cancelStopsStartingWork() {
        let meter = Meter()
        let map = OrderedParallelMap<Int, Int, Failed>(workers: 2, window: 100) { i throws(Failed) in
            meter.enter()
            defer { meter.leave() }
            Thread.sleep(forTimeInterval: 0.002)
            return i
        }
        for i in 0..<100 { try? map.submit(i) { _ in } }
        map.cancel()
        #expect(map.isCancelled)
        #expect(meter.running == 0)
        let started = meter.started
        #expect(started < 100)
        Thread.sleep(forTimeInterval: 0.02)
        #expect(meter.started == started)
    }

    @Test func oneWorkerIsTheCallersThreadAlone() throws {
        let meter = Meter()
        let caller = ObjectIdentifier(Thread.current)
        let outputs = try OrderedParallelMap<Int, String, Failed>.map(Array(0..<50), workers: 1) { i throws(Failed) in
            meter.enter()
            defer { meter.leave() }
            return String(i)
        }
        #expect(outputs == (0..<50).map(String.init))
        #expect(meter.threads == [caller])
        #expect(meter.most == 1)
    }

    @Test func oneWorkerStreamingRunsInOrderOneAtATime() throws {
        // A write-behind: one transform at a time, in input order, off or on the caller.
        let order = Mutex<[Int]>([])
        let meter = Meter()
        let map = OrderedParallelMap<Int, Int, Failed>(workers: 1, window: 3) { i throws(Failed) in
            meter.enter()
            defer { meter.leave() }
            order.withLock { $0.append(i) }
            _ = Self.spin(1_000)
            return i
        }
        var delivered: [Int] = []
        for i in 0..<200 { try map.submit(i) { delivered.append($0) } }
        try map.finish { delivered.append($0) }
        #expect(delivered == Array(0..<200))
        #expect(order.withLock { $0 } == Array(0..<200))
        #expect(meter.most == 1)
    }

    @Test func eachThreadMakesItsStateOnce() throws {
        let made = Mutex(0)
        let outputs = try OrderedParallelMap<Int, Int, Failed>.map(
            Array(0..<500), workers: 3,
            state: { () -> [Int] in
                made.withLock { $0 += 1 }
                return []
            },
            transform: { (seen: inout [Int], i: Int) throws(Failed) -> Int in
                seen.append(i)
                _ = Self.spin(500)
                // Every input this thread saw before came earlier in the input order.
                return seen.count > 1 && seen[seen.count - 2] > i ? -1 : i
            })
        #expect(outputs == Array(0..<500))
        // A pool thread that runs out of work ends and a new one makes its state again, so
        // the count is not fixed; it is far below one per input.
        #expect(made.withLock { $0 } >= 1)
        #expect(made.withLock { $0 } < 500)
    }

    /// Random sizes of work, worker counts, windows and failures: the outputs and the error
    /// are always a serial loop's.
    @Test func matchesASerialLoop() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for round in 0..<60 {
            let count = Int.random(in: 0...300, using: &random)
            let workers = Int.random(in: 1...6, using: &random)
            let window = Int.random(in: 1...20, using: &random)
            let sizes = (0..<count).map { _ in Int.random(in: 0...20_000, using: &random) }
            let failureRate: Double = [0.0, 0.01, 0.1].randomElement(using: &random) ?? 0
            let failing = Set((0..<count).filter { _ in Double.random(in: 0..<1, using: &random) < failureRate })
            let transform: @Sendable (Int) throws(Failed) -> Int = { i throws(Failed) in
                _ = OrderedParallelMapTests.spin(sizes[i])
                if failing.contains(i) { throw Failed(index: i) }
                return i &* 3 &+ sizes[i]
            }
            // Serial.
            var expected: [Int] = []
            var expectedError: Failed?
            for i in 0..<count {
                do { expected.append(try transform(i)) } catch {
                    expectedError = error
                    break
                }
            }
            // Streaming.
            var got: [Int] = []
            var gotError: Failed?
            let map = OrderedParallelMap<Int, Int, Failed>(workers: workers, window: window, transform: transform)
            do throws(Failed) {
                for i in 0..<count { try map.submit(i) { got.append($0) } }
                try map.finish { got.append($0) }
            } catch {
                gotError = error
            }
            let context = "seed \(seed) round \(round): \(count) inputs, \(workers) workers, window \(window)"
            #expect(got == expected, Comment(rawValue: context))
            #expect(gotError == expectedError, Comment(rawValue: context))
            // The collection form.
            let whole = Result { () throws(Failed) in
                try OrderedParallelMap<Int, Int, Failed>.map(Array(0..<count), workers: workers, transform: transform)
            }
            switch whole {
            case .success(let outputs):
                #expect(expectedError == nil && outputs == expected, Comment(rawValue: context))
            case .failure(let error):
                #expect(error == expectedError, Comment(rawValue: context))
            }
        }
    }
}
