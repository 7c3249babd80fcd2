import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFJSON
import PFSerialization
import PFTestSupport
import PropertyBased
import Testing

/// Differential checks against independent peers: Python's `json`, `plistlib` (XML and
/// binary) and `cbor2` (from `scripts/setup.sh`'s `.venv`).
///
/// 1. Random documents written by each peer are read by pfarchive as the same values.
/// 2. Random documents written by pfarchive are read by each peer as the same values.
/// 3. Random byte mutations of peer-written documents: when both sides accept, the values
///    agree; when only one side accepts, the input falls under one of the documented
///    differences (Docs/Security.md, "Differences from the peers"), checked by `explained`.
///
/// Values are compared through a rendering both sides produce (``render(_:)`` and the Python
/// `r` below): scalars tagged by kind, text and bytes in hex, floats by bit pattern, dates
/// in whole milliseconds.
@Suite(.serialized) struct DifferentialTests {
    static let peerFormats = ["json", "xmlplist", "bplist", "cbor"]
    static var count: Int { Int(ProcessInfo.processInfo.environment["PFARCHIVE_DIFFERENTIAL"] ?? "") ?? 200 }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
    static func unhex(_ text: Substring) -> Data {
        var out = Data(capacity: text.count / 2)
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8 = c >= 97 ? c - 87 : c - 48
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }

    /// pfarchive's side of the shared rendering. Integers print alike whether signed or not;
    /// a JSON number with a fraction or exponent is a float on both sides.
    static func render(_ value: PFValue) -> String {
        switch value {
        case .null: return "N"
        case .bool(let b): return b ? "T" : "F"
        case .int(let i): return "I\(i)"
        case .uint(let u): return "I\(u)"
        case .double(let d): return d.isNaN ? "Dnan" : "D" + String(format: "%016llx", d.bitPattern)
        case .string(let s): return "S" + hex(Data(s.utf8))
        case .data(let d): return "B" + hex(d)
        case .date(let d): return "Z\(Int64((d.timeIntervalSince1970 * 1000).rounded()))"
        case .array(let a): return "[" + a.map(render).joined(separator: ",") + "]"
        case .dictionary(let m): return "{" + m.map { render(.string($0.key)) + ":" + render($0.value) }.joined(separator: ",") + "}"
        case .uid(let u): return "U\(u)"
        }
    }

    /// The Python side: `r` renders a value; `gen` makes a random document a format can hold;
    /// `dump`/`load` write and read a format.
    static let python = """
        import sys, struct, datetime, random, json, plistlib, cbor2
        EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        def r(v):
            if v is None: return "N"
            if v is True: return "T"
            if v is False: return "F"
            if isinstance(v, int): return "I%d" % v
            if isinstance(v, float): return "Dnan" if v != v else "D" + struct.pack(">d", v).hex()
            if isinstance(v, str): return "S" + v.encode("utf-8", "surrogatepass").hex()
            if isinstance(v, (bytes, bytearray)): return "B" + bytes(v).hex()
            if isinstance(v, datetime.datetime):
                if v.tzinfo is None: v = v.replace(tzinfo=datetime.timezone.utc)
                micros = (v - EPOCH) // datetime.timedelta(microseconds=1)
                return "Z%d" % round(micros / 1000)
            if isinstance(v, plistlib.UID): return "U%d" % v.data
            # pfarchive reads an unknown CBOR tag as the item it tags, and undefined as null.
            if isinstance(v, cbor2.CBORTag): return r(v.value)
            if v is cbor2.undefined: return "N"
            if isinstance(v, list): return "[" + ",".join(r(x) for x in v) + "]"
            if isinstance(v, dict): return "{" + ",".join(r(k) + ":" + r(x) for k, x in v.items()) + "}"
            raise TypeError("unexpected %r" % type(v))
        WORDS = ["", "a", "key", "é", "日本", "😀", "line\\nbreak", "tab\\t", "quote\\"", "<&>", "x" * 40]
        def gen(fmt, rng, depth=0):
            kinds = ["int", "str", "bool", "float"]
            if fmt in ("json", "cbor"): kinds.append("null")
            if fmt != "json": kinds += ["bytes", "date"]
            if depth < 4: kinds += ["list", "dict"] * 2
            k = rng.choice(kinds)
            if k == "int":
                return rng.choice([0, 1, -1, 23, 24, 255, 256, 65535, 65536, 2**31, -2**31 - 1, 2**32, 2**63 - 1, -2**63,
                                   rng.randint(-10**6, 10**6)] + ([2**64 - 1, 2**63] if fmt == "cbor" else []))
            if k == "str": return rng.choice(WORDS) + str(rng.randint(0, 9))
            if k == "bool": return rng.random() < 0.5
            if k == "null": return None
            if k == "float": return rng.choice([0.5, -1.25, 1e300, 3.14159, -0.0, 2.5e-8, 123456.789])
            if k == "bytes": return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 12)))
            if k == "date":
                d = EPOCH + datetime.timedelta(seconds=rng.randint(-10**9, 2 * 10**9))
                # plistlib (3.11) writes naive datetimes as UTC; cbor2 needs an aware one.
                return d if fmt == "cbor" else d.replace(tzinfo=None)
            if k == "list": return [gen(fmt, rng, depth + 1) for _ in range(rng.randint(0, 5))]
            return {rng.choice(WORDS) + str(i): gen(fmt, rng, depth + 1) for i in range(rng.randint(0, 5))}
        def dump(fmt, v):
            if fmt == "json": return json.dumps(v, ensure_ascii=False).encode("utf-8")
            if fmt == "xmlplist": return plistlib.dumps(v, fmt=plistlib.FMT_XML)
            if fmt == "bplist": return plistlib.dumps(v, fmt=plistlib.FMT_BINARY)
            return cbor2.dumps(v, datetime_as_timestamp=False, timezone=datetime.timezone.utc)
        def load(fmt, b):
            if fmt == "json": return json.loads(b.decode("utf-8"))
            if fmt in ("xmlplist", "bplist"): return plistlib.loads(b, aware_datetime=True) if sys.version_info >= (3, 13) else plistlib.loads(b)
            return cbor2.loads(b)

        """

    static func runPython(_ script: String, input: Data? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            let result = try Peers.python(python + script, input: input)
            guard result.status == 0 else {
                Issue.record("Python peer failed (\(result.status)); run scripts/setup.sh:\n\(result.stderr)", sourceLocation: sourceLocation)
                return nil
            }
            return result.stdoutText
        } catch {
            Issue.record("cannot run Python (\(Peers.python)): \(error); run scripts/setup.sh", sourceLocation: sourceLocation)
            return nil
        }
    }

    static func dataFormat(_ name: String) -> DataFormat { DataFormat(rawValue: name) ?? .json }

    static func read(_ bytes: Data, _ format: String) -> PFValue? {
        // Plain JSON: Parse's typed values ({"__type": …}) are not the peer's business.
        try? FormatIO.read(bytes, options: .init(format: dataFormat(format), typedJSON: false)).value
    }

    // MARK: - 1. Peer-written documents read by pfarchive

    @Test(arguments: peerFormats)
    func peerDocumentsReadAsTheSameValues(_ format: String) throws {
        let script = """
            rng = random.Random(1234)
            for i in range(\(Self.count)):
                v = gen("\(format)", rng)
                b = dump("\(format)", v)
                print(b.hex(), r(load("\(format)", b)))
            """
        guard let output = Self.runPython(script) else { return }
        var checked = 0
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let bytes = Self.unhex(parts[0])
            guard let value = Self.read(bytes, format) else {
                Issue.record("\(format): pfarchive rejects what the peer wrote: \(parts[0].prefix(120))")
                continue
            }
            #expect(Self.render(value) == String(parts[1]), "\(format): \(parts[0].prefix(120))")
            checked += 1
        }
        #expect(checked == Self.count)
    }

    // MARK: - 2. pfarchive-written documents read by the peer

    @Test(arguments: peerFormats)
    func pfarchiveDocumentsReadByThePeerAsTheSameValues(_ format: String) async throws {
        var shape = format == "json" ? ValueShape.json : ValueShape()
        shape.null = format == "json" || format == "cbor"
        shape.nonFiniteDoubles = false
        // Python's datetime has microseconds; pfarchive's dates are Doubles of seconds.
        shape.subMillisecondDates = false
        shape.nulInStrings = format != "xmlplist"  // XML 1.0 cannot hold U+0000
        var values: [PFValue] = []
        await propertyCheck(count: Self.count, input: ValueGen.tree(shape)) { values.append($0) }
        var lines: [String] = []
        var expected: [String] = []
        for value in values {
            guard let bytes = try? FormatIO.write(value, as: Self.dataFormat(format), options: .init(typedJSON: false)) else { continue }
            lines.append(Self.hex(bytes))
            expected.append(Self.render(try FormatIO.read(bytes, options: .init(format: Self.dataFormat(format), typedJSON: false)).value))
        }
        let script = """
            for line in sys.stdin:
                try:
                    print(r(load("\(format)", bytes.fromhex(line.strip()))))
                except Exception as e:
                    print("ERROR", type(e).__name__, e)
            """
        guard let output = Self.runPython(script, input: Data(lines.joined(separator: "\n").utf8)) else { return }
        let got = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count >= Self.count / 2, "most generated values are writable as \(format)")
        for (i, line) in lines.enumerated() {
            #expect(i < got.count && got[i] == expected[i], "\(format): peer read \(i < got.count ? got[i] : "nothing") for \(line.prefix(120))")
        }
    }

    // MARK: - 3. Mutated documents: both sides agree, or a documented difference explains it

    /// Whether a documented difference explains that only one side accepted `bytes`.
    /// - Parameter inHead: whether the mutation starts in an XML plist's prolog or `<plist>`
    ///   start tag.
    ///   - ourError: pfarchive's error message when it refused the input.
    static func explained(
        _ format: String, bytes: Data, inHead: Bool, peerAccepted: Bool, peerRendering: String?, ourError: String
    ) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        switch format {
        case "json":
            // Python's json accepts NaN/Infinity, lone surrogate escapes, numbers too large for
            // a Double (as inf) or an Int64/UInt64 (as big ints), and deeper nesting; strict
            // pfarchive JSON (RFC 8259) refuses them.
            if peerAccepted && (text.contains("NaN") || text.contains("Infinity")) { return "NaN/Infinity" }
            if peerAccepted, let rendering = peerRendering, rendering.contains("eda") || rendering.contains("edb") { return "lone surrogate escape" }
            if peerAccepted, let rendering = peerRendering, rendering.contains("D7ff0000000000000") || rendering.contains("Dfff0000000000000") { return "out-of-range float" }
            if peerAccepted, let rendering = peerRendering, rendering.split(whereSeparator: { !"I-0123456789".contains($0) }).contains(where: { $0.hasPrefix("I") && $0.count > 20 }) { return "integer beyond 64 bits" }
            if peerAccepted, bytes.contains(0) { return "NUL in input" }
            // json.loads takes str: Python decodes with replacement of nothing, but accepts a
            // leading BOM and surrogates smuggled via surrogatepass; pfarchive needs valid UTF-8.
            return nil
        case "xmlplist":
            // plistlib tolerates what pfarchive's stricter scanner refuses (and vice versa):
            // comments and whitespace variants, entity and CDATA handling, <real> spellings,
            // <integer> ranges, date formats, and content after </plist>.
            // pfarchive reads the XML declaration, DOCTYPE and <plist> attributes only as far
            // as it needs (encoding, where the root starts); expat checks their syntax.
            if !peerAccepted && inHead { return "prolog and <plist> attributes are not validated" }
            // plistlib skips character data between elements and decodes base64 leniently;
            // pfarchive refuses both.
            if peerAccepted && ourError.contains("unexpected text") { return "stray text between elements" }
            if peerAccepted && ourError.contains("base64") { return "lenient base64" }
            return nil
        case "bplist":
            // plistlib does not check the trailer against the file: an offset table that does
            // not end at the trailer, offsets or sizes out of range, a file too short to hold
            // an object. pfarchive checks all of them (hostile corpus, bplist_*).
            let checks = ["offset table", "trailer", "needs at least", "object offset"]
            return peerAccepted && checks.contains(where: ourError.contains) ? "plistlib does not check the trailer and offsets" : nil
        case "cbor":
            // cbor2.loads ignores bytes after the first item, keeps unassigned simple values
            // and non-text map keys; pfarchive refuses trailing bytes and what its value model
            // cannot hold.
            if peerAccepted && ourError.contains("trailing byte") { return "cbor2 ignores trailing bytes" }
            if peerAccepted && (ourError.contains("simple value") || ourError.contains("map key is") || ourError.contains("break")) {
                return "cbor2 accepts what the value model cannot hold"
            }
            return nil
        default:
            return nil
        }
    }

    @Test(arguments: peerFormats)
    func mutatedDocumentsAgreeOrDifferAsDocumented(_ format: String) throws {
        let script = """
            rng = random.Random(4321)
            for i in range(\(Self.count * 2)):
                orig = dump("\(format)", gen("\(format)", rng))
                b = bytearray(orig)
                for _ in range(rng.randint(1, 3)):
                    op = rng.randrange(3)
                    p = rng.randrange(len(b)) if b else 0
                    if op == 0 and b: b[p] = rng.randrange(256)
                    elif op == 1 and b: del b[p:p + rng.randint(1, 4)]
                    else: b[p:p] = bytes([rng.randrange(256)])
                b = bytes(b)
                # Where the first change is: "head" when it is in an XML plist's prolog or
                # <plist …> start tag (before the first byte of the root value).
                first = next((k for k in range(min(len(b), len(orig))) if b[k] != orig[k]), min(len(b), len(orig)))
                root = orig.find(b">", orig.find(b"<plist")) + 1 if b"<plist" in orig else 0
                where = "head" if first < root else "body"
                try:
                    out = r(load("\(format)", b))
                except RecursionError:
                    out = "ERROR"
                except Exception:
                    out = "ERROR"
                print(b.hex() if b else "-", where, out)
            """
        guard let output = Self.runPython(script) else { return }
        var agreeAccept = 0, agreeReject = 0, documented: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3 else { continue }
            let bytes = parts[0] == "-" ? Data() : Self.unhex(parts[0])
            let inHead = parts[1] == "head"
            let peer = parts[2] == "ERROR" ? nil : String(parts[2])
            var ourError = ""
            var ours: String?
            do {
                ours = Self.render(try FormatIO.read(bytes, options: .init(format: Self.dataFormat(format), typedJSON: false)).value)
            } catch {
                ourError = error.message
            }
            switch (peer, ours) {
            case (let p?, let o?):
                // Both accept: the same value, except where JSON numbers differ only in kind.
                if p == o { agreeAccept += 1 } else if let reason = Self.explained(format, bytes: bytes, inHead: inHead, peerAccepted: true, peerRendering: p, ourError: ourError) {
                    documented[reason + " (different value)", default: 0] += 1
                } else {
                    Issue.record("\(format): both accept \(parts[0].prefix(160)) but peer \(p.prefix(120)) ≠ ours \(o.prefix(120))")
                }
            case (nil, nil): agreeReject += 1
            case (let p, _):
                if let reason = Self.explained(format, bytes: bytes, inHead: inHead, peerAccepted: p != nil, peerRendering: p, ourError: ourError) {
                    documented[reason, default: 0] += 1
                } else {
                    Issue.record("\(format): only \(p != nil ? "the peer" : "pfarchive") accepts \(parts[0].prefix(160)) (peer: \(p?.prefix(120) ?? "error"), ours: \(ours?.prefix(120) ?? "error"))")
                }
            }
        }
        print("differential \(format): both accept \(agreeAccept), both reject \(agreeReject), documented differences \(documented)")
        #expect(agreeAccept + agreeReject > 0)
    }
}

// MARK: - The two JSON engines against each other

/// JSON is read by two engines inside PFJSON: json-c's tree (`JSONReader.read`, primary for
/// values, and the parallel read) and pfarchive's own scanner tape (node views, whose
/// `value()` builds through the same `JSONValueBuilder`). Each is the other's oracle: every
/// document must read to the same value, or fail with the same error, both ways.
@Suite struct JSONEngineDifferentialTests {
    enum Outcome: Equatable {
        case value(PFValue)
        case error(String)
    }

    static func outcome(_ body: () throws(PFError) -> PFValue) -> Outcome {
        do throws(PFError) { return .value(try body()) } catch { return .error(error.description) }
    }

    /// Strict typed, untyped, rejecting, and one-thread readers.
    static var readers: [JSONReader] {
        var untyped = JSONReader.Options(typedValues: false)
        untyped.parallel = false
        var rejecting = JSONReader.Options()
        rejecting.rejectDuplicateKeys = true
        var oneThread = JSONReader.Options()
        oneThread.parallel = false
        return [JSONReader(), JSONReader(options: untyped), JSONReader(options: rejecting), JSONReader(options: oneThread)]
    }

    /// Expects json-c's engine (the oracle), the native engine's read, the tape's node view
    /// and a session's read and view to agree on `bytes`.
    static func expectAgreement(_ bytes: Data, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for reader in readers {
            var jsonCOptions = reader.options
            jsonCOptions.engine = .jsonC
            let tree = outcome { () throws(PFError) -> PFValue in try JSONReader(options: jsonCOptions).read(bytes) }
            let native = outcome { () throws(PFError) -> PFValue in try reader.read(bytes) }
            #expect(native == tree, "\(label): native engine vs json-c", sourceLocation: sourceLocation)
            let view = outcome { () throws(PFError) -> PFValue in try reader.withDocument(bytes) { root throws(PFError) in try root.value() } }
            let session = JSONReader.Session(reader: reader)
            let sessionView = outcome { () throws(PFError) -> PFValue in
                try session.withDocument(bytes) { root throws(PFError) in try root.value() }
            }
            #expect(view == tree, "\(label): node view vs read", sourceLocation: sourceLocation)
            #expect(sessionView == tree, "\(label): session node view vs read", sourceLocation: sourceLocation)
            let sessionRead = outcome { () throws(PFError) -> PFValue in try session.read(bytes) }
            #expect(sessionRead == tree, "\(label): session read vs json-c", sourceLocation: sourceLocation)
        }
    }

    @Test func realFilesReadAlikeBothWays() throws {
        var files = Fixtures.files(in: Fixtures.benchData) { $0.hasSuffix(".json") }
        let enumerator = FileManager.default.enumerator(at: Fixtures.real, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "json" || url.pathExtension == "jsonl" { files.append(url) }
        }
        #expect(files.count > 40)
        for file in files {
            let bytes = try Fixtures.data(file)
            if file.pathExtension == "jsonl" {
                for line in bytes.split(separator: UInt8(ascii: "\n")) { Self.expectAgreement(Data(line), file.lastPathComponent) }
            } else {
                Self.expectAgreement(bytes, file.lastPathComponent)
            }
        }
    }

    /// Every document of JSONTestSuite (accepted, refused and implementation-defined) and the
    /// hostile corpus: both engines give the same value or the same error (FuzzJSON asserts
    /// this on random bytes).
    @Test func conformanceAndHostileDocumentsReadOrFailAlikeBothWays() throws {
        let files = Fixtures.files(in: Fixtures.jsonTestSuite) { $0.hasSuffix(".json") }
            + Fixtures.files(in: Fixtures.hostile) { $0.hasSuffix(".json") }
        #expect(files.count > 300)
        for file in files { Self.expectAgreement(try Fixtures.data(file), file.lastPathComponent) }
    }

    /// Typed objects, repeated keys (also inside typed shapes), escapes, wide and edge numbers.
    @Test func typedAndEdgeDocumentsReadAlikeBothWays() {
        let documents = [
            #"{"d":{"__type":"Date","iso":"2011-06-10T18:33:42.123Z"},"b":{"base64":"AAEC","__type":"Bytes"},"u":{"CF$UID":7}}"#,
            #"[{"__type":"Date","iso":"bad","iso":"2011-06-10T18:33:42.123Z"},{"CF$UID":1,"CF$UID":2}]"#,
            #"[{"CF$UID":"x","CF$UID":3},{"__type":"Date","__type":"Bytes","base64":"AA=="}]"#,
            #"{"__type":"D\u0061te","iso":"2011-06-10T18:33:42Z"}"#,
            #"{"__type":"Bytes","base64":"QU\u004a"}"#,
            #"{"__type":"Date","iso":"not a date"}"#,
            #"{"__type":"Bytes","base64":"!!"}"#,
            #"{"CF$UID":4294967296}"#, #"{"CF$UID":-1}"#, #"{"CF$UID":18446744073709551615}"#,
            #"{"__type":"Date","iso":"2011-06-10T18:33:42.123Z","x":1}"#, #"{"__type":"Other","iso":"x"}"#,
            #"{"a":1,"b":{"c":[1,2,{"a":3,"a":4}]},"a":5}"#,
            #"{"k":"\ud83d\ude00 \u00e9 \n\t\\\"","e":"","n":[-0,-0.0,1e-400,9223372036854775807,18446744073709551615,-9223372036854775808]}"#,
            #"[1.5,2.0e10,0.1,123456789012345678,"x"]"#,
        ]
        for text in documents { Self.expectAgreement(Data(text.utf8), text) }
    }

    /// Random values with typed members, written by pfarchive and read back both ways.
    @Test func randomTypedDocumentsReadAlikeBothWays() throws {
        var generator = SystemRandomNumberGenerator()
        func value(_ depth: Int) -> PFValue {
            switch Int.random(in: 0..<(depth > 3 ? 7 : 9), using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .int(Int64.random(in: .min ... .max, using: &generator))
            case 3: return .double(Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) / 64)
            case 4: return .string(String((0..<Int.random(in: 0..<12, using: &generator)).map { _ in "aé\"\\\n😀x/".randomElement(using: &generator)! }))
            case 5: return .date(Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000_000, using: &generator)) / 1000))
            case 6: return Bool.random(using: &generator) ? .data(Data((0..<Int.random(in: 0..<9, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })) : .uid(UInt64.random(in: 0...9, using: &generator))
            case 7: return .array((0..<Int.random(in: 0..<5, using: &generator)).map { _ in value(depth + 1) })
            default:
                var members = OrderedDictionary<String, PFValue>()
                for k in 0..<Int.random(in: 0..<6, using: &generator) { members["k\(k % 4)\(depth)"] = value(depth + 1) }
                return .dictionary(members)
            }
        }
        for _ in 0..<300 {
            let text = try JSONWriter().write(value(0))
            Self.expectAgreement(text, String(decoding: text, as: UTF8.self))
        }
    }
}
