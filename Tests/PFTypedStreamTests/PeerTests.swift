import Foundation
import PFCore
import PFTestSupport
import PFTypedStream
import PropertyBased
import Testing

/// pytypedstream (dgelessus/python-typedstream 0.1.0) as the independent peer: it reads what
/// pfarchive writes to the same values, and pfarchive reads what it reads — including the real
/// Apple files in its source distribution, which `scripts/setup.sh` downloads (their licence
/// keeps them out of this repository).
@Suite struct PeerTests {
    static let sdistData = Fixtures.repoRoot.appendingPathComponent(".venv/pytypedstream-sdist/pytypedstream-0.1.0/tests/data")

    static func requirePeer() throws {
        let check = try Peers.python("import typedstream; print(typedstream.__name__)")
        guard check.status == 0 else {
            Issue.record("pytypedstream is not importable with \(Peers.python): run scripts/setup.sh (and set PFARCHIVE_PYTHON). \(check.stderr)")
            throw PFError(.io, format: .typedstream, "run scripts/setup.sh")
        }
    }

    static func realFiles() throws -> [URL] {
        let files = Fixtures.files(in: sdistData) { !$0.hasPrefix(".") }
        guard files.count == 3 else {
            Issue.record("pytypedstream's real sample files are missing from \(sdistData.path): run scripts/setup.sh")
            throw PFError(.io, format: .typedstream, "run scripts/setup.sh")
        }
        return files
    }

    // MARK: - pfarchive writes, pytypedstream reads

    /// Decodes a stream with `typedstream.unarchive_from_data` and prints a tagged JSON form:
    /// floats, bytes and strings (as UTF-8) in hex so nothing is rounded, and no string passes
    /// through Foundation's JSON reader or writer, which drop some U+FEFF characters.
    static let unarchiveScript = #"""
import sys, json, struct, typedstream
from typedstream.types import foundation as F
from typedstream import archiving as A
def conv(o):
    if o is None: return None
    if isinstance(o, F.NSString): return {"s": o.value.encode("utf-8").hex()}
    if isinstance(o, F.NSNumber):
        v = o.value
        if o.type_encoding == b"c" and v in (0, 1): return bool(v)
        if isinstance(v, float): return {"d": struct.pack("<d", v).hex()}
        return v
    if isinstance(o, F.NSData): return {"data": o.data.hex()}
    if isinstance(o, F.NSDate): return {"date": struct.pack("<d", o.absolute_reference_date_offset).hex()}
    if isinstance(o, F.NSArray): return [conv(e) for e in o.elements]
    if isinstance(o, F.NSDictionary): return {"dict": [[conv(k), conv(v)] for k, v in o.contents.items()]}
    if isinstance(o, A.GenericArchivedObject) and o.clazz.name == b"NSNull" and not o.contents: return {"null": True}
    raise TypeError("unexpected %r" % (o,))
print(json.dumps(conv(typedstream.unarchive_from_data(sys.stdin.buffer.read()))))
"""#

    /// The same tagged form built from a value tree.
    static func tagged(_ value: PFValue) -> Any {
        func hex(_ d: Double) -> String { withUnsafeBytes(of: d.bitPattern.littleEndian) { $0.map { String(format: "%02x", $0) }.joined() } }
        switch value {
        case .null: return ["null": true]
        case .bool(let b): return b
        case .int(let i): return NSNumber(value: i)
        case .uint(let u): return NSNumber(value: u)
        case .double(let d): return ["d": hex(d)]
        case .string(let s): return ["s": Data(s.utf8).map { String(format: "%02x", $0) }.joined()]
        case .data(let d): return ["data": d.map { String(format: "%02x", $0) }.joined()]
        case .date(let d): return ["date": hex(d.timeIntervalSinceReferenceDate)]
        case .array(let items): return items.map(tagged)
        case .dictionary(let members): return ["dict": members.map { [tagged(.string($0.key)), tagged($0.value)] }]
        case .uid: return NSNull()
        }
    }

    /// pytypedstream 0.1.0 cannot read 8-byte integers (tag 0x87, which Apple writes), NaN
    /// has no JSON spelling, and JSON loses U+0000-free distinctions only for NaN: keep the
    /// peer's trees within what it reads.
    static var peerShape: ValueShape {
        var s = ValueShape()
        s.uid = false
        s.bigUnsigned = false
        return s
    }

    static func fitsPeer(_ value: PFValue) -> Bool {
        switch value {
        case .int(let i): return Int32(exactly: i) != nil
        case .uint: return false
        case .array(let items): return items.allSatisfy(fitsPeer)
        case .dictionary(let m): return m.allSatisfy { fitsPeer($0.value) }
        default: return true
        }
    }

    @Test func pytypedstreamReadsWhatWeWrite() async throws {
        try Self.requirePeer()
        func check(_ value: PFValue) throws {
            let data = try TypedStream.encodeValue(value)
            let result = try Peers.python(Self.unarchiveScript, input: data)
            #expect(result.status == 0, "\(result.stderr)")
            let theirs = try JSONSerialization.jsonObject(with: result.stdout, options: [.fragmentsAllowed])
            let ours = try JSONSerialization.jsonObject(
                with: JSONSerialization.data(withJSONObject: Self.tagged(value), options: [.fragmentsAllowed]), options: [.fragmentsAllowed])
            #expect((theirs as? NSObject) == (ours as? NSObject))
        }
        // U+FEFF leading a string, and ending a long one after a non-BMP character: Foundation's
        // JSON reader drops both, which the hex form of strings keeps out of the comparison.
        try check(["\u{FEFF}a": "\u{FEFF}", "\u{D994A}teSakey.with.dotsZIOpNqG5r/\u{FEFF}": .null])
        await propertyCheck(count: 40, input: ValueGen.document(Self.peerShape)) { value in
            guard Self.fitsPeer(value) else { return }
            try check(value)
        }
    }

    @Test func pytypedstreamReadsNestedCollectionsWithSharedStringsAndClasses() throws {
        try Self.requirePeer()
        // Repeated classes, type strings and C strings become back-references; the peer must agree.
        let value: PFValue = ["a": [1, 2, 3, true, false], "b": [["x": 1.5], ["x": -2.25]], "c": [.date(Date(timeIntervalSinceReferenceDate: 1)), .data(Data([0, 255])), .null]]
        let data = try TypedStream.encodeValue(value)
        let result = try Peers.python(Self.unarchiveScript, input: data)
        #expect(result.status == 0, "\(result.stderr)")
        let theirs = try JSONSerialization.jsonObject(with: result.stdout)
        let ours = try JSONSerialization.jsonObject(with: JSONSerialization.data(withJSONObject: Self.tagged(value)))
        #expect((theirs as? NSObject) == (ours as? NSObject))
    }

    /// Class values (`#`), the second a back-reference to the class chain already written,
    /// and groups of several values (`@@#`, `@i`) read as pfarchive wrote them.
    @Test func pytypedstreamReadsClassValuesAndGroupsOfSeveralValues() throws {
        try Self.requirePeer()
        let script = """
            import sys
            from typedstream import advanced_repr, archiving
            for group in archiving.Unarchiver.from_data(sys.stdin.buffer.read()).decode_all():
                print("|".join(e.decode() for e in group.encodings), [str(v) if isinstance(v, archiving.Class) else type(v).__name__ if v is not None and not isinstance(v, int) else v for v in group.values])
            """
        let result = try Peers.python(script, input: try ClassicCoderTests.classValuesAndGroups())
        #expect(result.status == 0, "\(result.stderr)")
        let view = "GView2D v2, extends GView v1, extends NSObject v0"
        #expect(result.stdoutText == """
            @|@|# ['GenericArchivedObject', 'GenericArchivedObject', '\(view)']
            @|i [None, 752]
            # ['\(view)']
            # [None]

            """, "\(result.stdoutText)")
    }

    // MARK: - pytypedstream reads, pfarchive reads the same

    /// Prints the stream's low-level events that carry data, in order: numbers, byte strings,
    /// byte arrays and literal classes with versions.
    static let eventsScript = #"""
import sys, json, struct
from typedstream.stream import *
r = TypedStreamReader.from_data(open(sys.argv[1], "rb").read())
out = []
for e in r:
    if isinstance(e, bool): out.append("i%d" % int(e))
    elif isinstance(e, int): out.append("i%d" % e)
    elif isinstance(e, float): out.append("d" + struct.pack("<d", e).hex())
    elif isinstance(e, bytes): out.append("b" + e.hex())
    elif isinstance(e, ByteArray): out.append("a" + e.data.hex())
    elif isinstance(e, SingleClass): out.append("c%s/%d" % (e.name.decode("latin-1"), e.version))
    elif isinstance(e, BeginObject): out.append("o")
print(json.dumps({"header": [r.streamer_version, r.byte_order, r.system_version], "events": out}))
"""#

    /// The same events from our document, walking objects where they first appear.
    static func events(_ document: TypedStreamDocument) -> [String] {
        var out: [String] = []
        var visited = Set<Int>()
        var classesSeen = 0
        let classOrder: [TypedStreamClass] = document.entries.compactMap { if case .class(let c) = $0 { c } else { nil } }
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        func double(_ d: Double) -> String { "d" + withUnsafeBytes(of: d.bitPattern.littleEndian) { hex(Array($0)) } }
        func value(_ v: TypedStreamValue) {
            switch v {
            case .int(let i): out.append("i\(i)")
            case .uint(let u): out.append("i\(u)")
            case .bool(let b): out.append("i\(b ? 1 : 0)")
            case .float(let f): out.append(double(Double(f)))
            case .double(let d): out.append(double(d))
            case .bytes(let b): out.append("b" + hex(b))
            case .byteArray(let b): out.append("a" + hex(b))
            case .array(let items): items.forEach(value)
            case .structure(_, let fields): fields.forEach(value)
            case .object(let i):
                guard let object = document.objectEntry(i), visited.insert(i).inserted else { return }
                out.append("o")
                // Literal classes appear right after the object starts, in table order.
                let literal = document.entries[(i + 1)...].prefix { if case .class = $0 { true } else { false } }.count
                for c in classOrder[classesSeen..<min(classOrder.count, classesSeen + literal)] { out.append("c\(c.name)/\(c.version)") }
                classesSeen += literal
                for g in object.groups { g.values.forEach(value) }
            default: break
            }
        }
        for g in document.roots { g.values.forEach(value) }
        return out
    }

    @Test(arguments: ["Emacs.clr", "Empty2D macOS 10.14.gcx", "Empty2D macOS 13.gcx"])
    func realAppleFilesReadTheSameAsPytypedstream(_ name: String) throws {
        try Self.requirePeer()
        let file = try Self.realFiles().first { $0.lastPathComponent == name }
        let url = try #require(file)
        let result = try Peers.python(Self.eventsScript, [url.path])
        #expect(result.status == 0, "\(result.stderr)")
        let theirs = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let document = try TypedStream.readDocument(Data(contentsOf: url))
        #expect((theirs["header"] as? [AnyHashable]) == [4, "little", 1000] as [AnyHashable])
        let theirEvents = try #require(theirs["events"] as? [String])
        let ours = Self.events(document)
        #expect(ours.count == theirEvents.count && theirEvents.count > 1000)
        #expect(ours == theirEvents)
        // And the whole file converts to a tree without error.
        _ = try TypedStream.decodeValue(Data(contentsOf: url))
    }

    /// A real file's tree written again (`convert x.gcx x.json`, then `--to typedstream`)
    /// keeps its class values (`#`, `{"$classRef": …}` with the chain) and its `NSValue`s
    /// (`{"$class": "NSValue", "type", "value"}`): pytypedstream finds as many of each in ours
    /// as in Apple's, and no dictionary with a `$class` key. On main the Grapher files failed
    /// ("dictionary does not fit type #") and an NSValue came back as an NSDictionary.
    @Test(arguments: ["Emacs.clr", "Empty2D macOS 10.14.gcx", "Empty2D macOS 13.gcx"])
    func realAppleFilesWrittenAgainFromTheirTreeKeepClassValuesAndNSValues(_ name: String) throws {
        try Self.requirePeer()
        let url = try #require(try Self.realFiles().first { $0.lastPathComponent == name })
        let tree = try TypedStream.decodeValue(Data(contentsOf: url))
        let written = try TypedStream.encodeValue(tree)
        #expect(try TypedStream.decodeValue(written) == tree)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-ts-again-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ours = directory.appendingPathComponent("again.typedstream")
        try written.write(to: ours)
        let script = #"""
import sys, json
from typedstream import advanced_repr, archiving
def count(path):
    with open(path, "rb") as f: groups = archiving.Unarchiver.from_data(f.read()).decode_all()
    text = "\n".join("\n".join(advanced_repr.as_multiline_string(g)) for g in groups)
    return {"values": text.count("NSValue, type b'"), "classes": text.count("type b'#'"), "dollarClass": text.count("NSString('$class')")}
print(json.dumps([count(sys.argv[1]), count(sys.argv[2])]))
"""#
        let result = try Peers.python(script, [url.path, ours.path])
        #expect(result.status == 0, "\(result.stderr)")
        let counts = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Int]])
        #expect(counts.count == 2)
        #expect(counts.first == counts.last, "Apple's, then ours: \(counts)")
        #expect(counts.last?["dollarClass"] == 0)
    }

    @Test func realGrapherRootDictionaryMatchesPytypedstreamKeys() throws {
        try Self.requirePeer()
        let url = try #require(try Self.realFiles().first { $0.lastPathComponent == "Empty2D macOS 13.gcx" })
        let script = #"""
import sys, json, typedstream
root = typedstream.unarchive_from_file(sys.argv[1])
print(json.dumps([k.value for k in root.contents.keys()]))
"""#
        let result = try Peers.python(script, [url.path])
        #expect(result.status == 0, "\(result.stderr)")
        let keys = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String])
        guard case .dictionary(let members) = try TypedStream.decodeValue(Data(contentsOf: url)) else {
            Issue.record("root is not a dictionary")
            return
        }
        #expect(Array(members.keys) == keys)
        #expect(!keys.isEmpty)
    }

    /// The hostile corpus's NSString baseline was a guess; Emacs.clr, written by Apple's
    /// NSArchiver, stores NSString with exactly that layout.
    @Test func realNSStringLayoutMatchesTheCorpusGuess() throws {
        let url = try #require(try Self.realFiles().first { $0.lastPathComponent == "Emacs.clr" })
        let bytes = Array(try Data(contentsOf: url))
        let pattern: [UInt8] = [0x84, 0x84, 0x08] + Array("NSString".utf8) + [0x01]
        let found = bytes.indices.contains { i in i + pattern.count <= bytes.count && Array(bytes[i..<(i + pattern.count)]) == pattern }
        #expect(found)
        let info = try TypedStream.info(Data(bytes))
        #expect(info.classChains.contains([ClassicClassVersion("NSString", version: 1), ClassicClassVersion("NSObject")]))
        #expect(info.rootGroupCount > 1)
    }
}
