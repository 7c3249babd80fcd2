import Foundation
import PFCBOR
import PFCore
import PFTestSupport
import PropertyBased
import Testing

// Interop with Python's cbor2 5.6.5, both directions. Values are compared through a
// rendering both sides produce (see `peerRendering`), which keeps the kind of every scalar:
// bytes vs text, int vs float bit patterns (-0.0, NaN, infinities), big unsigned integers,
// dates as milliseconds, tags as tags.
@Suite("CBOR peers: cbor2")
struct CBORPeerTests {
    static var shape: ValueShape {
        var shape = ValueShape()
        shape.uid = true
        shape.nonFiniteDoubles = true
        shape.subMillisecondDates = false
        return shape
    }

    /// Collects random trees so one Python process checks them all.
    static func samples(_ shape: ValueShape, count: Int) async -> [PFValue] {
        var values: [PFValue] = []
        await propertyCheck(count: count, input: ValueGen.tree(shape)) { values.append($0) }
        return values
    }

    @Test(arguments: [false, true])
    func cbor2ReadsOurBytes(canonical: Bool) async throws {
        let values = await Self.samples(Self.shape, count: 150)
        let writer = CBORWriter(options: .init(canonical: canonical, shareValues: canonical))
        var lines = ""
        for value in values { lines += hexString(try writer.write(value)) + "\n" }
        let script = """
            for line in sys.stdin:
                print(r(cbor2.loads(bytes.fromhex(line.strip()))))
            """
        guard let output = runPeer(script, input: Data(lines.utf8)) else { return }
        let rendered = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(rendered.count == values.count)
        for (value, line) in zip(values, rendered) {
            // Canonical output orders map keys by their encodings.
            #expect(String(line) == peerRendering(canonical ? canonicallyOrdered(value) : value))
        }
    }

    @Test func canonicalBytesMatchCbor2Canonical() async throws {
        // Without dates (cbor2 re-encodes datetimes its own way), cbor2's canonical encoding of
        // what it read from our canonical bytes must be our bytes exactly.
        // cbor2 5.6.5 writes ±65504.0, the largest half, as a single (fa477fe000) where RFC 8949
        // (Appendix A) has f97bff; those values are left out here and covered by Appendix A.
        var shape = Self.shape
        shape.date = false
        let values = await Self.samples(shape, count: 150).map { Self.withoutLargestHalf($0) }
        let writer = CBORWriter(options: .init(canonical: true))
        var lines = ""
        for value in values { lines += hexString(try writer.write(value)) + "\n" }
        let script = """
            for line in sys.stdin:
                print(cbor2.dumps(cbor2.loads(bytes.fromhex(line.strip())), canonical=True).hex())
            """
        guard let output = runPeer(script, input: Data(lines.utf8)) else { return }
        let theirs = output.split(separator: "\n")
        let ours = lines.split(separator: "\n")
        #expect(theirs.count == ours.count)
        for (i, (a, b)) in zip(theirs, ours).enumerated() where a != b {
            let x = Array(a)
            let y = Array(b)
            let at = zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(x.count, y.count)
            let from = max(0, at - 30)
            Issue.record(
                "value \(i) differs at hex digit \(at): cbor2 …\(String(x[from..<min(x.count, at + 40)]))… ours …\(String(y[from..<min(y.count, at + 40)]))…"
            )
        }
    }

    static func withoutLargestHalf(_ value: PFValue) -> PFValue {
        switch value {
        case .double(let d) where d.magnitude == 65504: return .double(d / 2)
        case .array(let a): return .array(a.map(withoutLargestHalf))
        case .dictionary(var d):
            for i in d.values.indices { d.values[i] = withoutLargestHalf(d.values[i]) }
            return .dictionary(d)
        default: return value
        }
    }

    @Test func weReadCbor2Bytes() throws {
        let script = """
            import datetime as dt
            shared = [1, 2, "three"]
            inner = {"s": shared}
            samples = [
                0, 23, 24, 255, 256, 65536, 2**32, 2**63 - 1, 2**63, 2**64 - 1, -1, -24, -25, -2**63,
                0.0, -0.0, 1.5, 0.1, 1e300, 65504.0, 100000.0, 5.960464477539063e-08,
                float("nan"), float("inf"), float("-inf"),
                "", "a", "\\u00fc\\u6c34\\U00010151", "\\x00 nul", b"", b"\\x00\\xff" * 20,
                True, False, None, [], {}, [1, [2, 3]], {"a": 1, "b": [2, 3], "": None},
                dt.datetime(2020, 1, 2, 3, 4, 5, 123000, tzinfo=dt.timezone(dt.timedelta(hours=2))),
                dt.datetime(1969, 7, 20, 20, 17, 40, tzinfo=dt.timezone.utc),
                dt.datetime(2038, 1, 19, 3, 14, 8, 500000, tzinfo=dt.timezone(dt.timedelta(hours=-5, minutes=-30))),
                {"shared": [shared, shared, inner, inner], "again": shared},
                cbor2.CBORTag(1346786633, 42),
                cbor2.CBORTag(32, "http://www.example.com"),
            ]
            configs = [
                ("default", {}), ("canonical", {"canonical": True}), ("sharing", {"value_sharing": True}),
                ("timestamp", {"datetime_as_timestamp": True}),
                ("all", {"canonical": True, "value_sharing": True, "datetime_as_timestamp": True}),
            ]
            for name, options in configs:
                for value in samples:
                    encoded = cbor2.dumps(value, **options)
                    print(name, encoded.hex(), r(cbor2.loads(encoded)))
            """
        guard let output = runPeer(script) else { return }
        var checked = 0
        var sawSharing = false
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 3 else {
                Issue.record("unexpected peer line: \(line)")
                continue
            }
            let bytes = hexBytes(fields[1])
            let value = try CBORReader().read(bytes)
            var expected = fields[2]
            // A URI tag keeps its text in pfarchive; cbor2 hands back the tag.
            if expected.hasPrefix("G32(") { expected = String(expected.dropFirst(4).dropLast()) }
            #expect(peerRendering(value) == expected, "\(fields[0]) \(fields[1])")
            if try CBORReader.info(bytes).tags[CBORTag.sharedReference] != nil { sawSharing = true }
            checked += 1
        }
        #expect(checked == 5 * 44)
        #expect(sawSharing)
    }

    @Test func cyclesAndHugeIntegersFromCbor2AreRefused() throws {
        let script = """
            cycle = []
            cycle.append(cycle)
            print(cbor2.dumps(cycle, value_sharing=True).hex())
            print(cbor2.dumps(2**64).hex())
            print(cbor2.dumps(-2**64 - 1).hex())
            """
        guard let output = runPeer(script) else { return }
        let lines = output.split(separator: "\n").map { hexBytes(String($0)) }
        #expect(lines.count == 3)
        guard lines.count == 3 else { return }
        let cycle = readError(lines[0])
        #expect(cycle?.code == .invalidValue)
        let isCycle = if case .cyclicSharedReference? = cycle?.failure(as: CBORFailure.self) { true } else { false }
        #expect(isCycle, "\(String(describing: cycle))")
        #expect(readError(lines[1])?.code == .unsupported)
        #expect(readError(lines[2])?.code == .unsupported)
    }
}
