import Foundation
import PFArchive

/// Decodes a 100,000-object Parse export (generated at bench time by
/// `Benchmarks/data/gen_parse_export.py`) into model structs with ``ParseAdapter``, against
/// Foundation's `JSONDecoder` into equivalent `Codable` structs; reports objects/s and the
/// peak memory of each run.
enum ParseBench {
    static let objectCount = 100_000

    /// Threads for `decodeExport`: `PFBENCH_PARSE_PARALLELISM` when set, else its default
    /// (the active processor count).
    static var parallelism: Int {
        ProcessInfo.processInfo.environment["PFBENCH_PARSE_PARALLELISM"].flatMap { Int($0) }
            ?? ProcessInfo.processInfo.activeProcessorCount
    }

    static func run(_ bench: inout Bench) {
        if let spec = ProcessInfo.processInfo.environment["PFBENCH_PARSE_PROFILE"] {
            profile(spec)
            return
        }
        guard let data = generate() else { return }
        let group = "parse"
        let adapter = ParseAdapter()

        // Sanity: both decoders agree on the data before anything is timed (and the results
        // are gone before memory is measured).
        do {
            guard let ours = try? adapter.decodeExport(BenchScore.self, fromJSON: data),
                let theirs = try? JSONDecoder().decode(FoundationExport.self, from: data),
                ours.count == objectCount, theirs.results.count == objectCount,
                ours[0].playerName == theirs.results[0].playerName, ours[0].game.objectId == theirs.results[0].game.objectId
            else {
                FileHandle.standardError.write(Data("pfarchive-bench: parse decoders disagree on the export\n".utf8))
                return
            }
        }

        var peaks: [(String, Int)] = []
        var cpu: [(String, Double)] = []
        func measure(_ name: String, _ body: () throws -> Void) {
            if let filter = bench.filter, !"\(group)/\(name)".contains(filter) { return }
            PeakMemory.reset()
            let before = PeakMemory.currentKiB()
            bench.measure(name, group: group, bytes: data.count, units: objectCount, unitName: "objects") {
                try? body()
            }
            peaks.append((name, PeakMemory.peakKiB() - before))
            // One more run timed in CPU seconds: on a busy machine wall-clock medians mostly
            // measure the neighbours, while CPU time stays close to the work done.
            let t0 = CPUTime.seconds()
            try? body()
            cpu.append((name, CPUTime.seconds() - t0))
        }
        let threads = parallelism
        measure("ParseAdapter → models (\(threads) threads)") {
            let models = try adapter.decodeExport(BenchScore.self, fromJSON: data, parallelism: threads)
            precondition(models.count == objectCount, "Every row decodes.")
        }
        if threads > 1 {
            measure("ParseAdapter → models (1 thread)") {
                let models = try adapter.decodeExport(BenchScore.self, fromJSON: data, parallelism: 1)
                precondition(models.count == objectCount, "Every row decodes.")
            }
        }
        measure("ParseExport.forEachRow (rows, no models)") {
            var rows = 0
            try ParseExport.forEachRow(inJSON: data) { _, _ in rows += 1 }
            precondition(rows == objectCount, "Every row is read.")
        }
        measure("Foundation JSONDecoder → Codable structs") {
            let export = try JSONDecoder().decode(FoundationExport.self, from: data)
            precondition(export.results.count == objectCount, "Every row decodes.")
        }
        for (name, seconds) in cpu where seconds > 0 {
            print(String(format: "%@ %@ %12.0f objects per CPU second",
                         group.padding(toLength: 28, withPad: " ", startingAt: 0),
                         name.padding(toLength: 44, withPad: " ", startingAt: 0), Double(objectCount) / seconds))
        }
        for (name, kib) in peaks {
            print(String(format: "%@ %@ peak memory above baseline: %.1f MiB",
                         group.padding(toLength: 28, withPad: " ", startingAt: 0),
                         name.padding(toLength: 44, withPad: " ", startingAt: 0), Double(kib) / 1024))
        }
    }

    /// For `valgrind --tool=callgrind`: `PFBENCH_PARSE_PROFILE=PATH:N:RUNS` generates an
    /// N-object export and runs only one path RUNS times (`adapter`: models through
    /// ParseAdapter, `rows`: ParseExport.forEachRow, `objects`: rows and
    /// `ParseObject(rest:className:)` each, `nodes`: ParseExport.forEachObject, objects
    /// straight from json-c's tree, `foundation`: JSONDecoder), so instruction counts
    /// of the paths compare directly (the generator runs in a child process, not traced; under
    /// valgrind, which cannot spawn it, set `PFBENCH_PARSE_FILE` to a pre-generated export;
    /// `PFBENCH_PARSE_PARALLELISM` sets the adapter's threads).
    static func profile(_ spec: String) {
        let parts = spec.split(separator: ":").map(String.init)
        guard parts.count == 3, let n = Int(parts[1]), let runs = Int(parts[2]), n > 0,
            ["adapter", "rows", "objects", "nodes", "foundation"].contains(parts[0]),
            // Under valgrind the generator cannot be spawned: PFBENCH_PARSE_FILE names an
            // export made beforehand (`python3 Benchmarks/data/gen_parse_export.py N FILE`).
            let data = ProcessInfo.processInfo.environment["PFBENCH_PARSE_FILE"].map({ try? Data(contentsOf: URL(fileURLWithPath: $0)) })
                ?? generate(count: n)
        else {
            FileHandle.standardError.write(Data("PFBENCH_PARSE_PROFILE=adapter|rows|objects|nodes|foundation:N:RUNS\n".utf8))
            exit(2)
        }
        let adapter = ParseAdapter()
        for _ in 0..<runs {
            var count = 0
            switch parts[0] {
            case "adapter":
                count = (try? adapter.decodeExport(BenchScore.self, fromJSON: data, parallelism: parallelism))?.count ?? -1
            case "rows": try? ParseExport.forEachRow(inJSON: data) { _, _ in count += 1 }
            case "objects":
                try? ParseExport.forEachRow(inJSON: data) { row, _ throws(PFError) in
                    _ = try ParseObject(rest: row, className: "GameScore")
                    count += 1
                }
            case "nodes": try? ParseExport.forEachObject(inJSON: data, className: "GameScore") { _, _ in count += 1 }
            default: count = (try? JSONDecoder().decode(FoundationExport.self, from: data))?.results.count ?? -1
            }
            guard count == n else {
                FileHandle.standardError.write(Data("pfarchive-bench: \(parts[0]) read \(count) of \(n) objects\n".utf8))
                exit(1)
            }
        }
    }

    /// Writes the export into a temporary directory with the generator script.
    static func generate(count: Int = objectCount) -> Data? {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let script = here.deletingLastPathComponent().appendingPathComponent("data/gen_parse_export.py")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfbench-parse-\(UUID().uuidString)")
        let out = dir.appendingPathComponent("GameScore.json")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, String(count), out.path]
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
            return try Data(contentsOf: out)
        } catch {
            FileHandle.standardError.write(Data("pfarchive-bench: cannot generate the Parse export (python3 needed): \(error)\n".utf8))
            return nil
        }
    }
}

/// The process's CPU time (user + system, all threads).
enum CPUTime {
    static func seconds() -> Double {
        var ts = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 else { return 0 }
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Peak resident memory from `/proc/self/status` (`VmHWM`), reset between runs by writing
/// `5` to `/proc/self/clear_refs` (Linux; elsewhere the numbers read 0).
enum PeakMemory {
    static func reset() {
        #if canImport(Glibc)
        // Give freed heap back first, so an earlier run's pages do not hide this run's peak.
        // Glibc's Swift module does not export malloc.h, so look malloc_trim up at run time.
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            typealias Trim = @convention(c) (Int) -> Int32
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        #endif
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
        handle.write(Data("5".utf8))
        try? handle.close()
    }

    static func field(_ name: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    static func peakKiB() -> Int { field("VmHWM") }
    static func currentKiB() -> Int { field("VmRSS") }
}

// MARK: - The models (ParseAdapter)

struct BenchWeapon: Codable {
    var name: String
    var uses: Int
}

struct BenchStats: Codable {
    var kills: Int
    var deaths: Int
    var ratio: Double
    var weapons: [BenchWeapon]
}

struct BenchPosition: Codable {
    var x: Double
    var y: Double
    var zone: String
}

struct BenchScore: ParseModel {
    var objectId: String?
    var createdAt: Date?
    var updatedAt: Date?
    var acl: ParseACL?
    var score: Int
    var playerName: String
    var cheatMode: Bool
    var accuracy: Double
    var level: Int
    var tags: [String]
    var history: [Int]
    var position: BenchPosition
    var stats: BenchStats
    var lastPlayed: Date
    var player: ParsePointer
    var game: ParsePointer
    var comment: String
    static let parseClassName = "GameScore"
}

// MARK: - The equivalent Codable structs (JSONDecoder)

struct FoundationExport: Decodable {
    var results: [FoundationScore]
}

struct FoundationTypedDate: Decodable {
    var __type: String
    var iso: String
}

struct FoundationPointer: Decodable {
    var __type: String
    var className: String
    var objectId: String
}

struct FoundationAccess: Decodable {
    var read: Bool?
    var write: Bool?
}

struct FoundationScore: Decodable {
    var objectId: String?
    var createdAt: String?
    var updatedAt: String?
    var ACL: [String: FoundationAccess]?
    var score: Int
    var playerName: String
    var cheatMode: Bool
    var accuracy: Double
    var level: Int
    var tags: [String]
    var history: [Int]
    var position: BenchPosition
    var stats: BenchStats
    var lastPlayed: FoundationTypedDate
    var player: FoundationPointer
    var game: FoundationPointer
    var comment: String
}
