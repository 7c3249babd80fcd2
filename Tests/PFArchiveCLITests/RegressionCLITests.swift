import Foundation
import PFTestSupport
import Testing

/// Replays Tests/Fixtures/regressions/<format>/ through the `pfarchive` binary: each input
/// converts (exit 0) or fails cleanly (exit 1, one line on stderr — several of these once
/// printed input text with line breaks in it), never a signal.
@Suite struct RegressionCLITests {
    static let root = Fixtures.root.appendingPathComponent("regressions")

    /// How each folder's inputs are read.
    static let fromArguments: [String: [String]] = [
        "json": ["--from", "json"], "bplist": ["--from", "bplist"], "xmlplist": ["--from", "xmlplist"],
        "cbor": ["--from", "cbor"], "keyed": ["--from", "keyed"], "typedstream": ["--from", "typedstream"],
        "parse": ["--from", "parse"], "compression": [],
    ]

    static let files: [String] = fromArguments.keys.sorted().flatMap { folder in
        Fixtures.files(in: root.appendingPathComponent(folder)).map { "\(folder)/\($0.lastPathComponent)" }
    }

    @Test func thereAreRegressionInputs() {
        #expect(Self.files.count >= 8, "\(Self.files)")
    }

    @Test(arguments: files)
    func replaysCleanly(_ relative: String) throws {
        let folder = String(relative.split(separator: "/")[0])
        let path = Self.root.appendingPathComponent(relative).path
        for output in ["json", "cbor", "plist"] {
            let run = try CLI.runMeasured(["convert", path, "-", "--to", output == "plist" ? "xmlplist" : output] + (Self.fromArguments[folder] ?? []))
            #expect(run.signal == nil && !run.timedOut, "\(relative) → \(output): \(run.summary)")
            #expect(run.status == 0 || run.status == 1, "\(relative) → \(output): \(run.summary)")
            if run.status == 1 {
                #expect(run.stderr.hasPrefix("pfarchive: ") && run.stderr.split(separator: "\n").count == 1,
                        "\(relative) → \(output): one line expected: \(run.stderr)")
            }
        }
    }
}

/// Messages quote input; the CLI escapes control characters so each error stays one line.
@Suite struct OneLineErrorTests {
    @Test func inputQuotedInAnErrorIsEscaped() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-oneline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.plist")
        // The message quotes the declared encoding name, line break and escape byte included.
        try Data("<?xml version=\"1.0\" encoding=\"UT\nF\u{1B}8\"?><plist version=\"1.0\"><true/></plist>".utf8).write(to: input)
        let run = try CLI.run(["convert", input.path, "-"])
        #expect(run.status == 1)
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.contains(#"'UT\nF\u{1B}8'"#), "\(run.stderr)")
    }
}
