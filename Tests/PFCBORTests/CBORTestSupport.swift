import Foundation
import OrderedCollections
import PFCBOR
import PFCore
import PFTestSupport
import Testing

/// Bytes from hex text (spaces allowed); a malformed literal is a bug in the test itself.
func hexBytes(_ text: String) -> Data {
    let digits = Array(text.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "Hex literal has an odd number of digits.")
    var out = Data()
    var i = 0
    while i < digits.count {
        guard let byte = UInt8(String(digits[i...i + 1]), radix: 16) else {
            preconditionFailure("Hex literal has a non-hex digit.")
        }
        out.append(byte)
        i += 2
    }
    return out
}

/// Lowercase hex of bytes.
func hexString(_ data: Data) -> String {
    data.map { String(format: "%02x", $0) }.joined()
}

/// The error reading `bytes` throws, or `nil` when it reads.
func readError(_ bytes: Data, limits: PFLimits = .default) -> PFError? {
    do {
        _ = try CBORReader(options: .init(limits: limits)).read(bytes)
        return nil
    } catch {
        return error
    }
}

/// A rendering of a value tree that Python's cbor2 side reproduces exactly: scalars tagged by
/// kind, text as hex of its UTF-8, floats as bit patterns (every NaN alike), dates as whole
/// milliseconds since 1970, UIDs as the tagged integer cbor2 sees.
func peerRendering(_ value: PFValue) -> String {
    switch value {
    case .null: return "N"
    case .bool(let b): return b ? "T" : "F"
    case .int(let i): return "I\(i)"
    case .uint(let u): return "I\(u)"
    case .double(let d): return d.isNaN ? "Dnan" : "D" + String(format: "%016llx", d.bitPattern)
    case .string(let s): return "S" + hexString(Data(s.utf8))
    case .data(let d): return "B" + hexString(d)
    case .date(let d): return "Z\(Int64((d.timeIntervalSince1970 * 1000).rounded()))"
    case .array(let a): return "[" + a.map(peerRendering).joined(separator: ",") + "]"
    case .dictionary(let m):
        return "{" + m.map { peerRendering(.string($0.key)) + ":" + peerRendering($0.value) }.joined(separator: ",") + "}"
    case .uid(let u): return "G\(CBORTag.uid)(I\(u))"
    }
}

/// The Python side of ``peerRendering(_:)``, as a function `r` for peer scripts.
let pythonRendering = """
    import sys, struct, datetime, cbor2
    EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    def r(v):
        if v is None: return "N"
        if v is True: return "T"
        if v is False: return "F"
        if isinstance(v, int): return "I%d" % v
        if isinstance(v, float): return "Dnan" if v != v else "D" + struct.pack(">d", v).hex()
        if isinstance(v, str): return "S" + v.encode("utf-8").hex()
        if isinstance(v, bytes): return "B" + v.hex()
        if isinstance(v, datetime.datetime):
            micros = (v - EPOCH) // datetime.timedelta(microseconds=1)
            return "Z%d" % round(micros / 1000)
        if isinstance(v, list): return "[" + ",".join(r(x) for x in v) + "]"
        if isinstance(v, dict): return "{" + ",".join(r(k) + ":" + r(x) for k, x in v.items()) + "}"
        if isinstance(v, cbor2.CBORTag): return "G%d(%s)" % (v.tag, r(v.value))
        raise TypeError("unexpected %r" % type(v))

    """

/// Runs a peer script and fails the test (never skips) when Python or cbor2 is missing.
func runPeer(_ script: String, input: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    let result: Peers.Result
    do {
        result = try Peers.python(pythonRendering + script, input: input)
    } catch {
        Issue.record(
            "cannot run Python (\(Peers.python)): \(error); run scripts/setup.sh or set PFARCHIVE_PYTHON",
            sourceLocation: sourceLocation)
        return nil
    }
    guard result.status == 0 else {
        Issue.record(
            "Python peer failed (status \(result.status)); run scripts/setup.sh or set PFARCHIVE_PYTHON to a Python with cbor2 5.6.5:\n\(result.stderr)",
            sourceLocation: sourceLocation)
        return nil
    }
    return result.stdoutText
}

/// A CBOR head with its argument in preferred serialization.
func head(_ major: UInt8, _ argument: Int) -> Data {
    let m = major << 5
    let a = UInt64(argument)
    switch a {
    case 0..<24: return Data([m | UInt8(a)])
    case 24...0xFF: return Data([m | 24, UInt8(a)])
    case 0x100...0xFFFF: return Data([m | 25, UInt8(a >> 8), UInt8(a & 0xFF)])
    default: return Data([m | 26, UInt8(a >> 24), UInt8((a >> 16) & 0xFF), UInt8((a >> 8) & 0xFF), UInt8(a & 0xFF)])
    }
}

/// The same tree with every dictionary's keys in RFC 8949 §4.2.1 order for text keys:
/// shorter UTF-8 first, then bytewise.
func canonicallyOrdered(_ value: PFValue) -> PFValue {
    switch value {
    case .array(let a):
        return .array(a.map(canonicallyOrdered))
    case .dictionary(let d):
        let sorted = d.elements.sorted { x, y in
            let a = Array(x.key.utf8)
            let b = Array(y.key.utf8)
            return a.count != b.count ? a.count < b.count : a.lexicographicallyPrecedes(b)
        }
        var members = OrderedDictionary<String, PFValue>()
        for (k, v) in sorted { members[k] = canonicallyOrdered(v) }
        return .dictionary(members)
    default:
        return value
    }
}

/// The limit a limit error names (`maxDepth`, `maxNodes`, …), or `nil` for other errors.
func exceededLimit(_ error: PFError?) -> String? {
    guard case .limitExceeded(let limit, _)? = error?.failure(as: PFCoreFailure.self) else { return nil }
    return limit
}
