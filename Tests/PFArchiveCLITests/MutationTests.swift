import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFJSON
import PFTestSupport
import Testing

/// Random byte mutations of the fixtures, per format, through the `pfarchive` binary: every
/// run exits 0 or 1 (never a signal, never 2 for valid usage), a failure is one line on
/// stderr, and nothing but the requested output is ever left in the output's directory.
///
/// The count per format is `PFARCHIVE_MUTATIONS` (default 25, so `swift test` stays quick;
/// `.ci/run` runs 2,000 per format, a release check 10,000), run `PFARCHIVE_MUTATION_JOBS`
/// at a time (default 2).
/// `PFARCHIVE_MUTATION_SEED` replays a run (the seed is printed); `PFARCHIVE_MUTATION_FORMATS`
/// (`jsonl,cborseq`) runs only the formats named. An input that fails is
/// kept under the system's temporary directory and its path is reported; once understood,
/// it goes into Tests/Fixtures/regressions/<format>/ (replayed by RegressionReplayTests).
@Suite(.serialized) struct MutationTests {
    /// A format with its seed inputs and how to read them.
    struct Corpus: Sendable, CustomTestStringConvertible {
        var name: String
        var inputName: String
        var readArguments: [String]
        var seeds: [Data]
        /// The outputs written, one per run in turn.
        var outputs: [String] = MutationTests.outputs
        /// How to read this format's records back for the round trip (record formats only):
        /// a mutated input the CLI converts to a record format reads back, converted again,
        /// as the same values the library reads from it.
        var records: (@Sendable (Data) throws -> [PFValue])?
        var testDescription: String { name }
    }

    static var count: Int { Int(ProcessInfo.processInfo.environment["PFARCHIVE_MUTATIONS"] ?? "") ?? 25 }
    static var jobs: Int { max(1, Int(ProcessInfo.processInfo.environment["PFARCHIVE_MUTATION_JOBS"] ?? "") ?? 2) }
    static var formats: Set<String>? {
        ProcessInfo.processInfo.environment["PFARCHIVE_MUTATION_FORMATS"].map { Set($0.split(separator: ",").map(String.init)) }
    }
    static var seed: UInt64 { UInt64(ProcessInfo.processInfo.environment["PFARCHIVE_MUTATION_SEED"] ?? "") ?? 0x5eed_f00d }

    static func load(_ urls: [URL]) -> [Data] {
        urls.filter { !$0.lastPathComponent.contains("-neg-") }.compactMap { try? Data(contentsOf: $0) }
            .filter { $0.count <= 256 << 10 }
    }

    static func files(_ folder: String, _ suffixes: [String]) -> [URL] {
        Fixtures.files(in: Fixtures.root.appendingPathComponent(folder)) { name in suffixes.contains { name.hasSuffix($0) } }
    }

    static let corpora: [Corpus] = {
        let json = load(Fixtures.files(in: Fixtures.jsonTestSuite) { $0.hasPrefix("y_") }) + load(files("real/parse", [".json"]))
        let values = json.compactMap { try? JSONReader().read($0) }
        let cbor = values.compactMap { try? CBORWriter().write($0) }
        let bplist = load(files("real/bplist", [".bplist"])) + load([Fixtures.hostile.appendingPathComponent("bplist_valid_baseline.bplist")])
        let xml = load(files("real/xmlplist", [".plist"])) + load(files("real/keyed", [".xml"]))
        let keyed = load(files("real/keyed", [".bplist", ".xml", ".archive"]))
            + load([Fixtures.hostile.appendingPathComponent("ka_valid_baseline.bplist")])
        let classic = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures/classic")
        let typedstream = load(Fixtures.files(in: classic) { $0.hasSuffix(".typedstream") })
            + load([Fixtures.hostile.appendingPathComponent("ts_valid_nsstring_guess.typedstream")])
        let parse = load(files("real/parse", [".json"]))
        // JSON Lines and CBOR sequences: the records of the Parse fixtures (their `results`)
        // and runs of eight of the JSON test suite's values, one value per line / item.
        let runs = stride(from: 0, to: values.count, by: 8).map { Array(values[$0..<min(values.count, $0 + 8)]) }
        let records = values.compactMap { value -> [PFValue]? in
            guard case .dictionary(let document) = value, case .array(let results)? = document["results"], !results.isEmpty else { return nil }
            return results
        } + runs
        let jsonl = records.compactMap { try? JSONLines.Writer().write($0) }
        let cborseq = records.compactMap { try? CBORSequence.write($0) }
        let compressed = (bplist.prefix(3) + json.prefix(6) + cbor.prefix(3)).flatMap { plain -> [Data] in
            [try? Compression.compress(plain, as: .gzip), try? Compression.compress(plain, as: .zlib)].compactMap { $0 }
        }
        return [
            Corpus(name: "json", inputName: "input.json", readArguments: [], seeds: json),
            Corpus(name: "bplist", inputName: "input.bplist", readArguments: [], seeds: bplist),
            Corpus(name: "xmlplist", inputName: "input.plist", readArguments: [], seeds: xml),
            Corpus(name: "cbor", inputName: "input.cbor", readArguments: [], seeds: cbor),
            Corpus(name: "keyed", inputName: "input.archive", readArguments: ["--from", "keyed"], seeds: keyed),
            Corpus(name: "typedstream", inputName: "input.typedstream", readArguments: [], seeds: typedstream),
            Corpus(name: "parse", inputName: "GameScore.json", readArguments: ["--from", "parse"], seeds: parse),
            Corpus(name: "compression", inputName: "input.gz", readArguments: [], seeds: compressed),
            Corpus(
                name: "jsonl", inputName: "input.jsonl", readArguments: [], seeds: jsonl, outputs: recordOutputs,
                records: { try JSONLines.Reader.read($0, reader: JSONReader()) }),
            Corpus(
                name: "cborseq", inputName: "input.cborseq", readArguments: [], seeds: cborseq, outputs: recordOutputs,
                records: { try CBORSequence.read($0) }),
        ]
    }()

    static let interesting: [UInt8] = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x0a, 0x22, 0x5b, 0x7b, 0x3c, 0xd0, 0xdf, 0x9f, 0xbf]

    /// One to four random edits: flip a bit, set an interesting byte, insert or delete a
    /// run, duplicate a chunk, truncate.
    static func mutate(_ input: Data, rng: inout SplitMix64) -> Data {
        var bytes = [UInt8](input)
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<7, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            case 1 where !bytes.isEmpty: bytes[position] = interesting.randomElement(using: &rng) ?? 0
            case 2: bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: position)
            case 3 where !bytes.isEmpty: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...16, using: &rng)))
            case 4 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &rng))
                let chunk = bytes[position..<end]
                bytes.insert(contentsOf: chunk, at: Int.random(in: 0...bytes.count, using: &rng))
            case 5 where !bytes.isEmpty: bytes.removeSubrange(position...)
            default:
                if !bytes.isEmpty { bytes[position] = UInt8.random(in: 0...255, using: &rng) }
            }
        }
        return Data(bytes)
    }

    static let outputs = ["out.json", "out.cbor", "out.bplist", "out.plist", "out.json.gz"]
    /// The record formats' outputs: the record formats themselves (streamed) and whole trees.
    static let recordOutputs = ["out.jsonl", "out.cborseq", "out.json", "out.ndjson", "out.cbor", "out.bplist"]

    /// What a batch of runs found.
    final class Tally: @unchecked Sendable {
        let lock = NSLock()
        var exits: [Int32: Int] = [:]
        var failures: [String] = []
        var maxRSS = 0
        var maxCPU = 0.0
        func add(_ run: MeasuredRun, problem: String?) {
            lock.lock()
            defer { lock.unlock() }
            exits[run.status ?? -1, default: 0] += 1
            maxRSS = max(maxRSS, run.maxRSSBytes)
            maxCPU = max(maxCPU, run.cpuSeconds)
            if let problem { failures.append(problem) }
        }
    }

    /// For a record format converted to a record format that keeps its values (the same
    /// format, or JSON Lines to a CBOR sequence): the output converted back to the input's
    /// format reads as the values the library reads from the mutated input. `nil` when it
    /// does (or the pair does not apply), else the problem.
    static func roundTrip(_ corpus: Corpus, _ mutated: Data, output: URL, in directory: URL) -> String? {
        guard let records = corpus.records else { return nil }
        let inputFormat = (corpus.inputName as NSString).pathExtension
        let outputFormat = output.pathExtension == "ndjson" ? "jsonl" : output.pathExtension
        guard outputFormat == inputFormat || (inputFormat == "jsonl" && outputFormat == "cborseq") else { return nil }
        // The library reads strictly; an input only the CLI's reading accepts is left alone.
        guard let expected = try? records(mutated) else { return nil }
        let back = directory.appendingPathComponent("back." + inputFormat)
        defer { try? FileManager.default.removeItem(at: back) }
        guard let run = try? CLI.runMeasured(["convert", output.path, back.path], watchdogSeconds: 30, sampleMemory: false) else {
            return "could not run the round trip"
        }
        guard run.status == 0 else { return "\(output.lastPathComponent) written, but converting it back failed: \(run.summary)" }
        guard let data = try? Data(contentsOf: back), let values = try? records(data) else {
            return "\(output.lastPathComponent) converted back does not read as \(corpus.name)"
        }
        return values == expected ? nil : "\(output.lastPathComponent) converted back reads as other values: \(values) for \(expected)"
    }

    @Test(arguments: corpora)
    func mutatedInputsNeverKillTheCLI(_ corpus: Corpus) throws {
        if let formats = Self.formats, !formats.contains(corpus.name) { return }
        #expect(!corpus.seeds.isEmpty, "no seed fixtures for \(corpus.name)")
        guard !corpus.seeds.isEmpty else { return }
        let count = Self.count
        let jobs = Self.jobs
        let tally = Tally()
        let keep = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-mutations-\(corpus.name)")
        let started = Date()
        DispatchQueue.concurrentPerform(iterations: jobs) { worker in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-mutate-\(UUID().uuidString)")
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let input = directory.appendingPathComponent(corpus.inputName)
            for index in stride(from: worker, to: count, by: jobs) {
                let formatSalt = corpus.name.utf8.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }
                var rng = SplitMix64(seed: Self.seed ^ (UInt64(index) &* 0x100_0000_01B3) ^ (formatSalt << 32))
                let seedInput = corpus.seeds[Int.random(in: 0..<corpus.seeds.count, using: &rng)]
                let mutated = Self.mutate(seedInput, rng: &rng)
                let outputName = corpus.outputs[index % corpus.outputs.count]
                let output = directory.appendingPathComponent(outputName)
                do {
                    try mutated.write(to: input)
                    let run = try CLI.runMeasured(["convert", input.path, output.path] + corpus.readArguments, watchdogSeconds: 30, sampleMemory: false)
                    var problem: String?
                    let entries = Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                    let expected: Set<String> = run.status == 0 ? [corpus.inputName, outputName] : [corpus.inputName]
                    if run.signal != nil || run.timedOut || (run.status != 0 && run.status != 1) {
                        problem = run.summary
                    } else if run.status == 1 && !(run.stderr.hasPrefix("pfarchive: ") && run.stderr.split(separator: "\n").count == 1) {
                        problem = "not a one-line error: \(run.stderr)"
                    } else if entries != expected {
                        problem = "left \(entries.subtracting([corpus.inputName]).sorted()) in the output directory"
                    } else if run.status == 0 {
                        problem = Self.roundTrip(corpus, mutated, output: output, in: directory)
                    }
                    if let found = problem {
                        try? FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
                        let kept = keep.appendingPathComponent("mutation-\(index)-\(corpus.inputName)")
                        try? mutated.write(to: kept)
                        problem = "\(kept.path) → \(outputName): \(found)"
                    }
                    tally.add(run, problem: problem)
                    try? FileManager.default.removeItem(at: output)
                } catch {
                    tally.add(MeasuredRun(status: nil, signal: nil, timedOut: false, stdout: Data(), stderr: "", maxRSSBytes: 0, cpuSeconds: 0),
                              problem: "could not run: \(error)")
                }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print("mutation \(corpus.name): \(count) runs in \(String(format: "%.0f", seconds)) s (\(jobs) jobs), "
            + "exit 0: \(tally.exits[0] ?? 0), exit 1: \(tally.exits[1] ?? 0), other: \(count - (tally.exits[0] ?? 0) - (tally.exits[1] ?? 0)), "
            + "max RSS ≤ \(tally.maxRSS >> 20) MiB, max CPU \(String(format: "%.2f", tally.maxCPU)) s, seed \(Self.seed)")
        for failure in tally.failures.prefix(20) { Issue.record("\(corpus.name): \(failure)") }
        #expect(tally.failures.isEmpty, "\(tally.failures.count) of \(count) mutated \(corpus.name) inputs misbehaved")
    }
}
