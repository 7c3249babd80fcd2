import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse
import PFTestSupport
import Testing

/// Compact JSON text of a value, for byte-for-byte golden comparisons.
func jsonText(_ value: PFValue) throws -> String {
    String(decoding: try JSONWriter().write(value), as: UTF8.self)
}

/// A JSON text read without typed values (Parse's typed objects stay dictionaries).
func rawJSON(_ text: String) throws -> PFValue {
    try JSONReader(options: .init(typedValues: false)).read(Data(text.utf8))
}

/// A JSON text read with typed values (dates and bytes become typed).
func typedJSON(_ text: String) throws -> PFValue {
    try JSONReader().read(Data(text.utf8))
}

/// The same value with every dictionary's keys sorted, to compare regardless of order.
func sortedKeys(_ value: PFValue) -> PFValue {
    switch value {
    case .dictionary(let d):
        var out = OrderedDictionary<String, PFValue>()
        for key in d.keys.sorted() { out[key] = d[key].map(sortedKeys) }
        return .dictionary(out)
    case .array(let items): return .array(items.map(sortedKeys))
    default: return value
    }
}

/// Expects an operation to fail with a PFError carrying a Parse code and a path.
func expectParseError(
    _ code: ParseErrorCode?, path: String? = nil, contains text: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected an error with code \(code.map(String.init(describing:)) ?? "none")", sourceLocation: sourceLocation)
    } catch let error as PFError {
        #expect(error.parseErrorCode == code, "\(error)", sourceLocation: sourceLocation)
        if let path { #expect(error.path?.description == path, "\(error)", sourceLocation: sourceLocation) }
        if let text { #expect(error.description.contains(text), "\(error)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
    }
}

/// Expects an operation to fail with a PFError made from `failure` (a Parse failure case:
/// ``ParseFailure`` or ``ParseAdapterFailure``), at `path`, with `failure`'s Parse code;
/// `contains` checks the rendered message only for what is not in the case (the object it names).
func expectParseError<F: PFFailure>(
    _ failure: F, path: String? = nil, contains text: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected the failure \(failure)", sourceLocation: sourceLocation)
    } catch let error as PFError {
        #expect(error.failure(as: F.self) == failure, "\(error): \(String(describing: error.failure))", sourceLocation: sourceLocation)
        #expect(error.format == .parse, "\(error)", sourceLocation: sourceLocation)
        if let path { #expect(error.path?.description == path, "\(error)", sourceLocation: sourceLocation) }
        if let text { #expect(error.description.contains(text), "\(error)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
    }
}

/// An export of `count` GameScore rows made by the benchmark's generator
/// (`Benchmarks/data/gen_parse_export.py`).
func generatedParseExport(_ count: Int) throws -> Data {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfparse-gen-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("GameScore.json")
    let script = Fixtures.benchData.appendingPathComponent("gen_parse_export.py").path
    let run = try Peers.python(
        "import runpy, sys; p = sys.argv[1]; sys.argv = sys.argv[1:]; runpy.run_path(p, run_name='__main__')",
        [script, String(count), out.path])
    try #require(run.status == 0, "\(run.stderr)")
    return try Data(contentsOf: out)
}
