import Foundation
import OrderedCollections
import PFCore
import PFPropertyList
import PFTestSupport
import PropertyBased
import Testing

/// Interop with real peers: Python's plistlib (out of process) and Foundation's
/// PropertyListSerialization (in process).
@Suite struct XMLPlistPeerTests {
    typealias Support = XMLPlistTestSupport

    func randomValues(_ count: Int, shape: ValueShape) -> [PFValue] {
        var rng = Xoshiro()
        let generator = ValueGen.tree(shape)
        return (0..<count).map { _ in Support.xmlSafe(generator.run(using: &rng)) }
    }

    // MARK: - plistlib

    /// plistlib reads each document, prints its canonical text and writes it back with
    /// `plistlib.dumps(fmt=FMT_XML, sort_keys=False)`.
    static let plistlibRoundTrip = #"""
    import json, base64
    data = sys.stdin.buffer.read()
    i, out = 0, []
    while i < len(data):
        j = data.index(b"\n", i)
        n = int(data[i:j]); doc = data[j + 1:j + 1 + n]; i = j + 1 + n
        v = plistlib.loads(doc, fmt=plistlib.FMT_XML)
        xml = plistlib.dumps(v, fmt=plistlib.FMT_XML, sort_keys=False)
        out.append({"canon": canon(v), "xml": base64.b64encode(xml).decode()})
    sys.stdout.write(json.dumps(out))
    """#

    func plistlib(_ documents: [Data]) throws -> [(canon: String, xml: Data)] {
        var input = Data()
        for doc in documents {
            input.append(Data("\(doc.count)\n".utf8))
            input.append(doc)
        }
        let output = try Support.python(Self.plistlibRoundTrip, input: input)
        let items = try #require(try JSONSerialization.jsonObject(with: output) as? [[String: String]])
        return try items.map { item in
            (try #require(item["canon"]), try #require(item["xml"].flatMap { Data(base64Encoded: $0) }))
        }
    }

    @Test func plistlibReadsOursAndWeReadPlistlibs() throws {
        // plistlib turns CR into LF in keys too, which can merge two keys into a duplicate
        // (an error for our reader); keys here carry no CR, strings still do.
        let values = randomValues(200, shape: Support.shape).map(Self.keysWithoutCR)
        let documents = try values.map { try XMLPlistWriter().write($0) }
        let results = try plistlib(documents)
        try #require(results.count == values.count)
        var sameBytes = 0
        for (i, value) in values.enumerated() {
            // Ours → plistlib: the same tree.
            #expect(results[i].canon == Support.canon(value), "\(value)")
            // plistlib → ours: the same tree, except that plistlib turns CR and CRLF into LF.
            let expected = Self.plistlibNormalized(value)
            #expect(try XMLPlistReader().read(results[i].xml) == expected, "\(value)")
            // Without carriage returns, plistlib writes exactly our bytes.
            if expected == value {
                #expect(results[i].xml == documents[i], "\(String(decoding: documents[i], as: UTF8.self))")
                sameBytes += 1
            }
        }
        #expect(sameBytes > 100)
    }

    @Test func goldenBytesEqualPlistlibs() throws {
        let values: [PFValue] = [
            ["Author": "William Shakespeare", "Lines": ["It is a tale", "told by an idiot"], "Death": 1564, "Height": 1.6],
            [1.0, 0.1, 1e21, 1e-7, 123_456.789, .double(.leastNonzeroMagnitude), -0.0, .double(.nan), .double(.infinity), 1e16, 12_345_678_901_234_567],
            ["blob": .data(Data((0..<200).map { UInt8($0) })), "deep": [[[[[[[[.data(Data(repeating: 9, count: 50))]]]]]]]]],
            [.date(Date(timeIntervalSince1970: -1_000_000_000)), .date(Date(timeIntervalSince1970: 4_102_444_800))],
            ["$archiver": "NSKeyedArchiver", "$top": ["root": .uid(1)], "$objects": ["$null", "x"], "$version": 100_000],
            ["esc": "<a href=\"x\">&amp;</a> 'q' ]]>", "": [:], "e": [], "u": .uint(UInt64.max), "m": .int(Int64.min)],
            "just a string",
        ]
        let documents = try values.map { try XMLPlistWriter().write($0) }
        let results = try plistlib(documents)
        try #require(results.count == values.count)
        for (i, document) in documents.enumerated() {
            #expect(results[i].xml == document, "\(String(decoding: document, as: UTF8.self))")
        }
    }

    static func keysWithoutCR(_ value: PFValue) -> PFValue {
        switch value {
        case .array(let items): return .array(items.map(keysWithoutCR))
        case .dictionary(let members):
            var out = OrderedDictionary<String, PFValue>()
            for (k, v) in members {
                let key = k.replacingOccurrences(of: "\r", with: "?")
                if out[key] == nil { out[key] = keysWithoutCR(v) }
            }
            return Support.xmlSafe(.dictionary(out))
        default: return value
        }
    }

    /// plistlib's writer replaces `\r\n` and `\r` with `\n` in strings and keys.
    static func plistlibNormalized(_ value: PFValue) -> PFValue {
        func fix(_ s: String) -> String {
            s.contains("\r") ? s.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") : s
        }
        switch value {
        case .string(let s): return .string(fix(s))
        case .array(let items): return .array(items.map(plistlibNormalized))
        case .dictionary(let members):
            var out = OrderedDictionary<String, PFValue>()
            for (k, v) in members { out[fix(k)] = plistlibNormalized(v) }
            return .dictionary(out)
        default: return value
        }
    }

    // MARK: - Foundation PropertyListSerialization

    /// Foundation hands UIDs back as an opaque class, so these trees have none; its
    /// dictionaries are unordered, so trees compare with sorted keys.
    var foundationShape: ValueShape {
        var s = Support.shape
        s.uid = false
        return s
    }

    @Test func foundationReadsOurs() throws {
        for value in randomValues(150, shape: foundationShape) {
            let bytes = try XMLPlistWriter().write(value)
            var format = PropertyListSerialization.PropertyListFormat.binary
            let object = try PropertyListSerialization.propertyList(from: bytes, options: [], format: &format)
            #expect(format == .xml)
            let theirs = try Self.sortedKeys(Self.fromFoundation(object))
            // Foundation drops a leading U+FEFF from every string and key it reads.
            let expected = Self.sortedKeys(Self.withoutLeadingBOM(value))
            #expect(theirs == expected, "\(Self.firstDifference(theirs, expected) ?? "")")
        }
    }

    @Test func weReadFoundations() throws {
        for value in randomValues(150, shape: foundationShape) {
            let bytes = try PropertyListSerialization.data(fromPropertyList: Self.toFoundation(value), format: .xml, options: 0)
            // Foundation writes -0.0 as 0.0.
            let expected = Self.sortedKeys(Self.positiveZeros(value))
            #expect(try Self.sortedKeys(XMLPlistReader().read(bytes)) == expected, "\(value)")
        }
    }

    /// The first differing place of two trees, for failure messages.
    static func firstDifference(_ a: PFValue, _ b: PFValue, path: String = "") -> String? {
        switch (a, b) {
        case (.array(let x), .array(let y)) where x.count == y.count:
            for i in x.indices { if let d = firstDifference(x[i], y[i], path: path + "[\(i)]") { return d } }
            return nil
        case (.dictionary(let x), .dictionary(let y)) where Array(x.keys) == Array(y.keys):
            for (k, v) in x { if let d = firstDifference(v, y[k] ?? .null, path: path + "." + k) { return d } }
            return nil
        default:
            return a == b ? nil : "\(path): \(a.scalarDescription) vs \(b.scalarDescription) \(Support.canon(a)) \(Support.canon(b))"
        }
    }

    static func toFoundation(_ value: PFValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return NSNumber(value: i)
        case .uint(let u): return NSNumber(value: u)
        case .double(let d): return d
        case .string(let s): return s
        case .data(let d): return d
        case .date(let d): return d
        case .uid(let u): return NSNumber(value: u)
        case .array(let items): return items.map(toFoundation)
        case .dictionary(let members):
            var out: [String: Any] = [:]
            for (k, v) in members { out[k] = toFoundation(v) }
            return out
        }
    }

    struct Unexpected: Error { var object: String }

    static func fromFoundation(_ object: Any) throws -> PFValue {
        if type(of: object) == Bool.self, let b = object as? Bool { return .bool(b) }
        if let n = object as? NSNumber {
            switch String(cString: n.objCType) {
            case "d", "f": return .double(n.doubleValue)
            case "Q": return PFValue.integer(n.uint64Value) ?? .null
            default: return .int(n.int64Value)
            }
        }
        if let s = object as? String { return .string(s) }
        if let d = object as? Data { return .data(d) }
        if let d = object as? Date { return .date(d) }
        if let a = object as? [Any] { return .array(try a.map(fromFoundation)) }
        if let m = object as? [String: Any] {
            var out = OrderedDictionary<String, PFValue>()
            for (k, v) in m { out[k] = try fromFoundation(v) }
            return .dictionary(out)
        }
        throw Unexpected(object: "\(type(of: object))")
    }

    static func sortedKeys(_ value: PFValue) -> PFValue {
        switch value {
        case .array(let items): return .array(items.map(sortedKeys))
        case .dictionary(let members):
            var out = OrderedDictionary<String, PFValue>()
            // By UTF-8 bytes: String's own order and NSString's differ on some scalars.
            for k in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                out[k] = members[k].map(sortedKeys)
            }
            return .dictionary(out)
        default: return value
        }
    }

    static func withoutLeadingBOM(_ value: PFValue) -> PFValue {
        func fix(_ s: String) -> String { s.unicodeScalars.first == "\u{FEFF}" ? String(s.unicodeScalars.dropFirst()) : s }
        switch value {
        case .string(let s): return .string(fix(s))
        case .array(let items): return .array(items.map(withoutLeadingBOM))
        case .dictionary(let members):
            var out = OrderedDictionary<String, PFValue>()
            for (k, v) in members { out[fix(k)] = withoutLeadingBOM(v) }
            return .dictionary(out)
        default: return value
        }
    }

    static func positiveZeros(_ value: PFValue) -> PFValue {
        switch value {
        case .double(let d) where d == 0: return .double(0)
        case .array(let items): return .array(items.map(positiveZeros))
        case .dictionary(var members):
            for (k, v) in members { members[k] = positiveZeros(v) }
            return .dictionary(members)
        default: return value
        }
    }
}
