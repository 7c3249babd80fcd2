import Foundation
import OrderedCollections
import PFCore
import PFTestSupport
import Testing

// Shared helpers for the keyed-archive tests: fixture lookup, oracle parsing (the JSON
// reader is not part of this module, so EXPECTED/ files are read with Foundation's
// JSONDecoder), and PFError assertions.

enum KeyedFixtures {
    static let folder = Fixtures.real.appendingPathComponent("keyed")
    static let linuxFolder = folder.appendingPathComponent("linux-corelibs")
    static let expected = Fixtures.real.appendingPathComponent("EXPECTED/keyed")

    /// Every keyed fixture, positive and negative, relative to `keyed/`.
    static var all: [String] {
        let top = Fixtures.files(in: folder) { !$0.hasPrefix(".") && $0 != "linux-corelibs" }.map(\.lastPathComponent)
        let linux = Fixtures.files(in: linuxFolder).map { "linux-corelibs/" + $0.lastPathComponent }
        return top + linux
    }

    static var positive: [String] { all.filter { !$0.contains("-neg-") } }
    static var negative: [String] { all.filter { $0.contains("-neg-") } }

    static func data(_ name: String) throws -> Data { try Fixtures.data(folder.appendingPathComponent(name)) }

    /// An oracle's output for a fixture, or `nil` when that oracle wrote nothing for it.
    static func oracle(_ name: String, _ suffix: String) -> Data? {
        try? Data(contentsOf: expected.appendingPathComponent("\(name).\(suffix)"))
    }

    static func hostile(_ name: String) throws -> Data { try Fixtures.data(Fixtures.hostile.appendingPathComponent(name)) }
}

/// A JSON document read by Foundation's strict `JSONDecoder` (which keeps `true` and `1`
/// apart), turned into a `PFValue`.
struct OracleJSON: Decodable {
    let value: PFValue

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { value = .null; return }
        if let b = try? c.decode(Bool.self) { value = .bool(b); return }
        if let i = try? c.decode(Int64.self) { value = .int(i); return }
        if let u = try? c.decode(UInt64.self) { value = .uint(u); return }
        if let d = try? c.decode(Double.self) { value = .double(d); return }
        if let s = try? c.decode(String.self) { value = .string(s); return }
        if let a = try? c.decode([OracleJSON].self) { value = .array(a.map(\.value)); return }
        let d = try c.decode([String: OracleJSON].self)
        value = .dictionary(OrderedDictionary(uniqueKeysWithValues: d.sorted { $0.key < $1.key }.map { ($0.key, $0.value.value) }))
    }

    static func parse(_ data: Data) throws -> PFValue { try JSONDecoder().decode(OracleJSON.self, from: data).value }
}

/// A value in a form where two decoders' outputs can be compared: dictionary keys sorted,
/// integral numbers and doubles unified (nska writes `1.0` for a double 1, we may hold `.int`).
func canonical(_ value: PFValue) -> PFValue {
    switch value {
    case .int(let i): return .double(Double(i))
    case .uint(let u): return .double(Double(u))
    case .array(let items): return .array(items.map(canonical))
    case .dictionary(let members):
        return .dictionary(OrderedDictionary(uniqueKeysWithValues: members.sorted { $0.key < $1.key }.map { ($0.key, canonical($0.value)) }))
    default: return value
    }
}

/// Asserts that `body` throws a `PFError` with `code`, and returns it for further checks.
@discardableResult
func expectPFError(
    _ code: PFError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> PFError? {
    do {
        try body()
        Issue.record("expected PFError \(code), nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as PFError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected PFError \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The Python interpreter must exist: a missing peer is a failure, never a skip.
func requirePython(sourceLocation: SourceLocation = #_sourceLocation) throws {
    let probe = try? Peers.python("import plistlib, nska_deserialize; print('ok')")
    guard let probe, probe.status == 0, probe.stdoutText.contains("ok") else {
        Issue.record(
            "Python with plistlib and nska_deserialize is missing (\(Peers.python)): run scripts/setup.sh or set PFARCHIVE_PYTHON",
            sourceLocation: sourceLocation)
        throw PeerMissing()
    }
}

struct PeerMissing: Error {}
