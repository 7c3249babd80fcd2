import Foundation
import OrderedCollections
import PFCore
import PFPropertyList
import PFTestSupport
import PropertyBased
import Testing

/// Random trees through our writer and reader, and through the peers: Python's plistlib
/// and Foundation's PropertyListSerialization, in both directions.
@Suite struct BinaryPlistRoundTripTests {
    /// What a binary property list holds: no null, UIDs, every number and date.
    static var shape: ValueShape {
        var s = ValueShape()
        s.null = false
        s.uid = true
        return s
    }

    // MARK: - Ours to ours

    @Test func randomTreesRoundTrip() async {
        await propertyCheck(count: 300, input: ValueGen.tree(Self.shape)) { value in
            let data = try BinaryPlistWriter().write(value)
            #expect(try BinaryPlistReader().read(data) == value)
        }
    }

    @Test func randomDocumentsRoundTripWithStableBytes() async {
        await propertyCheck(count: 100, input: ValueGen.document(Self.shape)) { value in
            let data = try BinaryPlistWriter().write(value)
            let back = try BinaryPlistReader().read(data)
            #expect(back == value)
            // Writing what we read gives the same bytes: the layout depends only on the value.
            #expect(try BinaryPlistWriter().write(back) == data)
        }
    }

    @Test func boundaryValuesRoundTrip() throws {
        var members = OrderedDictionary<String, PFValue>()
        for (i, v) in ValueGen.boundaryIntegers.enumerated() { members["i\(i)"] = .int(v) }
        let value: PFValue = [
            .dictionary(members), .uint(UInt64(Int64.max) + 1), .uint(UInt64.max), .double(-0.0), .double(0.0),
            .double(.nan), .double(.infinity), .double(-.greatestFiniteMagnitude), .double(.leastNonzeroMagnitude),
            .date(Date(timeIntervalSinceReferenceDate: -3_187_296_000.25)), .date(Date(timeIntervalSinceReferenceDate: 0.5)),
            "", "\u{0}", "😀𝄞\u{10FFFF}", "e\u{301}", .string(String(repeating: "ü", count: 300)), .data(Data()),
            .data(Data(repeating: 7, count: 70_000)), .uid(0), .uid(UInt64(UInt32.max)), [], [:],
            .array((0..<300).map { .int(Int64($0)) }), .array(Array(repeating: "same", count: 15)),
        ]
        #expect(try BinaryPlistReader().read(BinaryPlistWriter().write(value)) == value)
    }

    // MARK: - Python plistlib

    static let pythonSetupHint = "Python peer failed; run scripts/setup.sh and set PFARCHIVE_PYTHON=.venv/bin/python"

    /// Renders each file plistlib reads as one JSON line in the `EXPECTED/*.plistlib.json` form,
    /// with marker keys no generated string can be (``PlistlibJSON/Markers/peer``: a random
    /// dictionary may well be `{"CF$UID": -1}`).
    static let plistlibToJSON = #"""
        import sys, json, plistlib, datetime, binascii
        sys.stdout.reconfigure(encoding="utf-8")
        def conv(v):
            if isinstance(v, dict): return {k: conv(x) for k, x in v.items()}
            if isinstance(v, list): return [conv(x) for x in v]
            if isinstance(v, datetime.datetime): return {"\u0001date": v.isoformat()}
            if isinstance(v, bytes): return {"\u0001bytes_hex": binascii.hexlify(v).decode()}
            if isinstance(v, plistlib.UID): return {"\u0001uid": v.data}
            return v
        for path in sys.argv[1:]:
            with open(path, "rb") as f:
                print(json.dumps(conv(plistlib.loads(f.read())), ensure_ascii=False))
        """#

    @Test func plistlibReadsWhatWeWrite() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bplist-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var values: [PFValue] = []
        await propertyCheck(count: 60, input: ValueGen.document(Self.shape)) { value in
            values.append(value)
        }
        // Dictionaries spelled like the fixtures' markers are dictionaries (generated keys
        // include "CF$UID"; a negative one once trapped the parser).
        values += [["CF$UID": -1], ["CF$UID": 5], ["$date": "2001-01-01T00:00:00"], ["$bytes_hex": "ab"]]
        var paths: [String] = []
        for (i, value) in values.enumerated() {
            let url = dir.appendingPathComponent("\(i).bplist")
            try BinaryPlistWriter().write(value).write(to: url)
            paths.append(url.path)
        }
        let result = try Peers.python(Self.plistlibToJSON, paths)
        try #require(result.status == 0, "\(Self.pythonSetupHint): \(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: true)
        try #require(lines.count == values.count)
        for (line, value) in zip(lines, values) {
            let seen = try PlistlibJSON.value(fromJSON: Data(line.utf8), markers: .peer)
            #expect(BPlist.samePeerValue(seen, value), "plistlib read \(line.prefix(200))")
        }
    }

    @Test func weReadWhatPlistlibWrites() async throws {
        var values: [PFValue] = []
        await propertyCheck(count: 60, input: ValueGen.document(Self.shape)) { value in
            values.append(value)
        }
        let script = #"""
            import sys, json, plistlib, datetime, binascii
            sys.stdout.reconfigure(encoding="utf-8")
            def conv(v):
                if isinstance(v, dict):
                    if len(v) == 1 and "\x01date" in v:
                        return datetime.datetime(2001, 1, 1) + datetime.timedelta(seconds=v["\x01date"])
                    if len(v) == 1 and "\x01bytes_hex" in v: return binascii.unhexlify(v["\x01bytes_hex"])
                    if len(v) == 1 and "\x01uid" in v: return plistlib.UID(v["\x01uid"])
                    return {k: conv(x) for k, x in v.items()}
                if isinstance(v, list): return [conv(x) for x in v]
                return v
            for line in sys.stdin.buffer:
                value = conv(json.loads(line))
                print(plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False).hex())
            """#
        let input = values.map { BPlist.json($0) + "\n" }.joined()
        let result = try Peers.python(script, input: Data(input.utf8))
        try #require(result.status == 0, "\(Self.pythonSetupHint): \(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n", omittingEmptySubsequences: true)
        try #require(lines.count == values.count)
        for (line, value) in zip(lines, values) {
            let read = try BinaryPlistReader().read(BPlist.bytes(String(line)))
            #expect(BPlist.samePeerValue(read, value), "plistlib wrote \(line.prefix(200))")
        }
    }

    // MARK: - Foundation PropertyListSerialization

    static var foundationShape: ValueShape {
        var s = shape
        s.uid = false  // PropertyListSerialization has no public UID type
        return s
    }

    @Test func foundationReadsWhatWeWrite() async {
        await propertyCheck(count: 150, input: ValueGen.document(Self.foundationShape)) { value in
            let data = try BinaryPlistWriter().write(value)
            let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            #expect(BPlist.sameIgnoringKeyOrder(try BPlist.value(fromFoundation: object), value))
        }
    }

    @Test func weReadWhatFoundationWrites() async {
        await propertyCheck(count: 150, input: ValueGen.document(Self.foundationShape)) { value in
            let data = try PropertyListSerialization.data(
                fromPropertyList: BPlist.foundationObject(value), format: .binary, options: 0)
            #expect(BPlist.sameIgnoringKeyOrder(try BinaryPlistReader().read(data), value))
        }
    }
}
