import Foundation

/// A tiny benchmark harness: runs a body repeatedly and reports the median throughput.
///
/// Each format adds a `<Format>Bench.swift` file with one `static func run(_:)` that
/// calls ``Bench/measure(_:group:bytes:units:unitName:_:)`` for its cases; `main.swift`
/// calls them all. Results print as a table and, with `--json FILE`, are saved for notes.
struct Bench {
    struct Result: Codable {
        var group: String
        var name: String
        var mbPerSecond: Double
        var unitsPerSecond: Double?
        var unitName: String?
        var medianSeconds: Double
    }

    /// Minimum total time spent per case, in seconds.
    var minTime: Double = 1.0
    /// Minimum number of timed runs per case.
    var minRuns: Int = 5
    /// Only cases whose "group/name" contains this text run.
    var filter: String?
    var results: [Result] = []

    /// Times `body` and records the median MB/s of `bytes` (and units/s when `units` is given).
    mutating func measure(
        _ name: String, group: String, bytes: Int, units: Int? = nil, unitName: String? = nil,
        _ body: () throws -> Void
    ) rethrows {
        if let filter, !"\(group)/\(name)".contains(filter) { return }
        // PFBENCH_RUNS=N: run the body exactly N times, untimed, for instruction counting
        // under callgrind (deterministic, unlike wall-clock time on a shared machine).
        if let runs = ProcessInfo.processInfo.environment["PFBENCH_RUNS"].flatMap(Int.init) {
            for _ in 0..<runs { try body() }
            print("\(group)/\(name): \(runs) runs of \(bytes) bytes")
            return
        }
        try body()  // warm-up
        var times: [Double] = []
        let start = DispatchTime.now().uptimeNanoseconds
        while times.count < minRuns || Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < minTime {
            let t0 = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            if times.count >= 1000 { break }
        }
        times.sort()
        let median = times[times.count / 2]
        let result = Result(
            group: group, name: name, mbPerSecond: Double(bytes) / 1e6 / median,
            unitsPerSecond: units.map { Double($0) / median }, unitName: unitName, medianSeconds: median)
        results.append(result)
        var line = "\(group.padding(toLength: 28, withPad: " ", startingAt: 0)) \(name.padding(toLength: 44, withPad: " ", startingAt: 0)) "
        line += String(format: "%9.1f MB/s", result.mbPerSecond)
        if let u = result.unitsPerSecond, let unitName { line += String(format: "  %12.0f %@/s", u, unitName) }
        print(line)
    }
}

/// Loads a benchmark input from `Benchmarks/data`.
func benchInput(_ name: String) -> Data {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let url = here.deletingLastPathComponent().appendingPathComponent("data").appendingPathComponent(name)
    guard let data = try? Data(contentsOf: url) else {
        FileHandle.standardError.write(Data("pfarchive-bench: cannot read \(url.path)\n".utf8))
        exit(1)
    }
    return data
}

/// The three standard JSON benchmark files.
let benchFiles = ["twitter.json", "citm_catalog.json", "canada.json"]
