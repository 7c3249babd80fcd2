import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFTestSupport
import PropertyBased
import Testing

/// ``JSONNode`` views (``JSONReader/withDocument(_:_:)-(Data,_)``) show exactly what
/// ``JSONReader/read(_:)-(Data)`` returns with `typedValues` off, and fail exactly where it fails.
@Suite struct NodeViewTests {
    static let untyped = JSONReader(options: .init(typedValues: false))
    static let lenient = JSONReader(options: .init(mode: .lenient, typedValues: false))
    static let rejecting: JSONReader = {
        var options = JSONReader.Options(typedValues: false)
        options.rejectDuplicateKeys = true
        return JSONReader(options: options)
    }()
    static let shortStrings: JSONReader = {
        var options = JSONReader.Options(typedValues: false)
        options.limits.maxStringBytes = 8
        return JSONReader(options: options)
    }()
    static let readers = [untyped, lenient, rejecting, shortStrings]

    /// Builds a value through the public node API only (no `value()`), checking on the way
    /// that `count`, `member(_:)` and `element(at:)` agree with the iteration.
    static func walk(_ node: JSONNode) -> PFValue {
        switch node.content {
        case .null:
            #expect(node.isNull && node.kind == .null)
            return .null
        case .bool(let b):
            #expect(node.boolValue == b && node.kind == .bool)
            return .bool(b)
        case .int(let i):
            #expect(node.intValue == i && node.doubleValue == Double(i) && node.uintValue == nil)
            return .int(i)
        case .uint(let u):
            #expect(node.uintValue == u && node.intValue == nil && node.kind == .uint)
            return .uint(u)
        case .double(let d):
            #expect(node.doubleValue.map { $0.bitPattern } == d.bitPattern || d.isNaN)
            return .double(d)
        case .string(let s):
            #expect(node.stringValue == s)
            #expect(node.withStringBytes { Array($0) } == Array(s.utf8) || s.contains("\u{FFFD}"))
            return .string(s)
        case .array:
            var items: [PFValue] = []
            node.forEachElement { index, element in
                #expect(index == items.count)
                let value = walk(element)
                // `value()` (one linear copy), not another walk: walking twice per level would
                // be exponential in the depth.
                #expect((try? node.element(at: index)?.value()) == value)
                items.append(value)
            }
            #expect(node.count == items.count && node.element(at: items.count) == nil && node.element(at: -1) == nil)
            return .array(items)
        case .object:
            var keys: [String] = []
            var values: [PFValue] = []
            node.forEachMember { key, value in
                keys.append(key)
                values.append(walk(value))
            }
            #expect(Set(keys).count == keys.count, "a key comes once: \(keys)")
            #expect(node.count == keys.count)
            for (key, value) in zip(keys, values) { #expect((try? node.member(key)?.value()) == value, "member \(key)") }
            #expect(node.member("no such key \u{1F600}") == nil)
            // A non-ASCII name that is canonically an ASCII key (KELVIN SIGN is "K") finds it.
            for key in keys where key.first == "K" {
                #expect((try? node.member("\u{212A}" + key.dropFirst())?.value()) == values[keys.firstIndex(of: key) ?? 0])
            }
            return .dictionary(OrderedDictionary(uniqueKeysWithValues: zip(keys, values)))
        }
    }

    enum Outcome: Equatable, CustomStringConvertible {
        case value(PFValue)
        case error(PFError)
        var description: String {
            switch self {
            case .value(let v): "value \(v)"
            case .error(let e): "error \(e) at \(e.path.map { "\($0)" } ?? "-")"
            }
        }
    }

    static func outcomes(_ bytes: Data, _ reader: JSONReader, session: JSONReader.Session? = nil)
        -> (read: Outcome, walked: Outcome, copied: Outcome)
    {
        func run(_ body: () throws(PFError) -> PFValue) -> Outcome {
            do { return .value(try body()) } catch { return .error(error) }
        }
        let read = run { () throws(PFError) in try reader.read(bytes) }
        let walked = run { () throws(PFError) in
            if let session { return try session.withDocument(bytes) { root throws(PFError) in walk(root) } }
            return try reader.withDocument(bytes) { root throws(PFError) in walk(root) }
        }
        let copied = run { () throws(PFError) in try reader.withDocument(bytes) { root throws(PFError) in try root.value() } }
        return (read, walked, copied)
    }

    static func expectAgreement(_ bytes: Data, _ reader: JSONReader, session: JSONReader.Session? = nil,
                                _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let (read, walked, copied) = outcomes(bytes, reader, session: session)
        #expect(walked == read, "\(label)", sourceLocation: sourceLocation)
        #expect(copied == read, "\(label)", sourceLocation: sourceLocation)
    }

    /// Documents on every edge the view must get right.
    static let documents: [String] = [
        #"{"objectId":"a1","score":1,"tags":["x","y"],"stats":{"kills":2,"ratio":0.5}}"#,
        #"{"dup": 1, "dup": 2, "z": 0}"#,  // last value, first position (or an error)
        #"{"a": {"x": 1}, "b": {"y": 1, "y": 2}}"#,  // the second object repeats a key
        #"{"\u00e9": 1, "e\u0301": 2, "k": 3}"#,  // equal Swift strings, distinct bytes
        #"{"\u212Aey": 1, "Key": 2}"#,  // KELVIN SIGN: canonically "K"
        #"{"Key": 1, "other": {"Kx": [2]}}"#,  // ASCII keys only (the tape), asked for with KELVIN SIGN
        #"{"a\u0000b": 1, "ab": 2, "a": {"\u0000": 3}}"#,  // U+0000 in keys
        #"{"s": "a\u0000b", "n": null, "t": true, "f": false}"#,
        #"[18446744073709551615, 9223372036854775807, 9223372036854775808, -9223372036854775808, 1e400]"#,
        #"[1.5, -0.0, 1e-320, 123456789012345678901234567890]"#,
        #"{"long": "0123456789abcdef", "short": "abc"}"#,  // beyond maxStringBytes 8
        #"{"a": [{"b": "0123456789abcdef"}], "c": {"d": 1, "d": 2}}"#,  // which error comes first
        #"{"c": {"d": 1, "d": 2}, "a": [{"b": "0123456789abcdef"}]}"#,
        #"{"é": {"s": "0123456789abcdef"}, "e\u0301": 1}"#,
        "[]", "{}", "null", "42", "\"text\"", " [1] ",
        #"{"a": [1, 2"#, #"{"a": 1} x"#, "\u{FEFF}{}", "{'a': 1, /* c */ \"b\": [1,],}",
        #"{"__type": "Date", "iso": "2011-06-10T18:33:42.123Z"}"#,
        "[\"\u{FF}\"]",  // invalid UTF-8 (lenient repairs it)
        #"{"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "t": "\u0000", "k": ["\t", "plain"]}"#,  // escapes in values
        #"{"a\u0062": 1, "ab": 2, "q\"": 3}"#,  // escapes in keys: the same key twice
        #"{"x": [1, {"y": [[], {}, [{"z": {"z": 1, "z": 2}}]]}]}"#,  // a repeated key deep in arrays
        "[0, -0, 1E2, 2e-2, -1.25E+3, 9007199254740993, 4.9406564584124654e-324, 1.7976931348623157e308]",
        NodeViewTests.wideObject(members: 40, repeating: false),
        NodeViewTests.wideObject(members: 40, repeating: true),  // a repeated key among many
    ]

    /// An object of `members` distinct keys, with the first key once more at the end when
    /// `repeating` (large objects are checked for repeated keys by a sort, not pairwise).
    static func wideObject(members: Int, repeating: Bool) -> String {
        var parts = (0..<members).map { #""key\#($0)": \#($0)"# }
        if repeating { parts.append(#""key0": "again""#) }
        return "{" + parts.joined(separator: ", ") + "}"
    }

    @Test(arguments: 0..<4)
    func agreesWithReadOnEdgeDocuments(_ which: Int) {
        let reader = Self.readers[which]
        let session = JSONReader.Session(reader: reader)
        for text in Self.documents {
            Self.expectAgreement(Data(text.utf8), reader, text)
            Self.expectAgreement(Data(text.utf8), reader, session: session, "session: " + text)
        }
    }

    @Test(arguments: 0..<3)
    func agreesWithReadOnTheJSONTestSuite(_ which: Int) throws {
        let reader = Self.readers[which]
        let session = JSONReader.Session(reader: reader)
        let files = Fixtures.files(in: Fixtures.jsonTestSuite) { $0.hasSuffix(".json") }
        #expect(files.count > 300)
        for file in files {
            let bytes = try Fixtures.data(file)
            Self.expectAgreement(bytes, reader, session: session, file.lastPathComponent)
        }
    }

    @Test func agreesWithReadOnRandomDocuments() async {
        var shape = ValueShape.json
        shape.date = false
        shape.data = false
        let session = JSONReader.Session(reader: Self.rejecting)
        await propertyCheck(count: 100, input: ValueGen.document(shape)) { value in
            guard let bytes = try? JSONWriter().write(value) else { return }
            Self.expectAgreement(bytes, Self.rejecting, session: session, "\(value)")
            Self.expectAgreement(bytes, Self.untyped, "\(value)")
        }
    }

    /// With typed values on, `value()` of any node equals what `read` makes of the document
    /// (typed objects, malformed ones with their error path), on every edge document.
    @Test func valueFollowsTheTypedReader() {
        let typed = JSONReader()
        let documents = Self.documents + [
            #"{"x": [{"__type": "Bytes", "base64": "AAE="}, {"CF$UID": 3}, {"__type": "Date", "iso": "2011-06-10T18:33:42.123Z"}]}"#,
            #"{"x": [1, {"y": {"__type": "Date", "iso": "not a date"}}]}"#,
            #"{"x": {"CF$UID": -1}}"#,
            #"{"__type": "Pointer", "className": "A", "objectId": "b"}"#,
        ]
        for text in documents {
            let bytes = Data(text.utf8)
            let read: Outcome
            do { read = .value(try typed.read(bytes)) } catch { read = .error(error) }
            let copied: Outcome
            do {
                copied = .value(try typed.withDocument(bytes) { root throws(PFError) in try root.value() })
            } catch {
                copied = .error(error)
            }
            #expect(copied == read, "\(text)")
        }
    }

    /// Doubles read in place equal json-c's `strtod` conversion bit for bit, on decimal texts
    /// around the fast path's edges (2^53 mantissas, 10^±22, 19 and 20 digits, signs, zeros).
    @Test func doublesMatchJSONCBitForBit() async {
        let text = Generator(run: { rng -> String in
            let digits = Int.random(in: 1...21, using: &rng)
            var mantissa = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
            if Bool.random(using: &rng), mantissa.count > 1 {
                let point = Int.random(in: 1..<mantissa.count, using: &rng)
                mantissa.insert(".", at: mantissa.index(mantissa.startIndex, offsetBy: point))
            } else if !mantissa.contains(".") {
                mantissa += ".5"
            }
            if mantissa.first == "0", mantissa.dropFirst().first != "." { mantissa = "0." + mantissa.dropFirst().filter { $0 != "." } }
            let sign = Bool.random(using: &rng) ? "-" : ""
            let exponent = Bool.random(using: &rng) ? "e\(Int.random(in: -30...30, using: &rng))" : ""
            return sign + mantissa + exponent
        }, shrink: { _ in [] })
        let reader = JSONReader()
        let edges = ["9007199254740993.0", "9007199254740992.5", "1e22", "1e23", "1.5e-22", "4.9406564584124654e-324",
                     "0.1", "-0.0", "123456789012345678.9", "1234567890123456789e-5", "17976931348623157e292"]
        for edge in edges {
            let bytes = Data("[\(edge)]".utf8)
            let viaJSONC = (try? reader.read(bytes))?[0]?.doubleValue
            let inPlace = try? reader.withDocument(bytes) { root throws(PFError) in root.element(at: 0)?.doubleValue }
            #expect(viaJSONC?.bitPattern == inPlace?.bitPattern, "\(edge)")
        }
        await propertyCheck(count: 2000, input: text) { number in
            let bytes = Data("[\(number)]".utf8)
            guard let viaJSONC = (try? reader.read(bytes))?[0]?.doubleValue else { return }
            let inPlace = try? reader.withDocument(bytes) { root throws(PFError) in root.element(at: 0)?.doubleValue }
            #expect(viaJSONC.bitPattern == inPlace?.bitPattern, "\(number)")
        }
    }

    /// Strings with every kind of escape (short forms, `\/`, `\u` for any scalar, surrogate
    /// pairs for astral ones) decode in place as json-c decodes them, through both
    /// `stringValue` and `withStringBytes`.
    @Test func escapedStringsMatchJSONC() async {
        let text = Generator(run: { rng -> String in
            let pool: [Unicode.Scalar] = ["a", "Z", "/", "\"", "\\", "\n", "\t", "\u{08}", "\u{0C}", "\r", "\u{01}", "\u{00}",
                                          "é", "€", "楽", "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}"]
            var out = "\""
            for _ in 0..<Int.random(in: 0...24, using: &rng) {
                guard let scalar = pool.randomElement(using: &rng) else { continue }
                let forced = scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where !forced:
                    out.unicodeScalars.append(scalar)
                case 1 where ["/", "\"", "\\", "\n", "\t", "\r", "\u{08}", "\u{0C}"].contains(scalar):
                    let short: [Unicode.Scalar: String] = ["/": "\\/", "\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\t": "\\t",
                                                           "\r": "\\r", "\u{08}": "\\b", "\u{0C}": "\\f"]
                    out += short[scalar] ?? ""
                default:
                    for unit in String(scalar).utf16 { out += String(format: "\\u%04X", unit) }
                }
            }
            return out + "\""
        }, shrink: { _ in [] })
        let reader = JSONReader()
        await propertyCheck(count: 1000, input: text) { literal in
            let bytes = Data("[\(literal)]".utf8)
            guard case .array(let items)? = try? reader.read(bytes), case .string(let expected)? = items.first else {
                Issue.record("json-c did not read \(literal)")
                return
            }
            let got = try? reader.withDocument(bytes) { root throws(PFError) in
                (root.element(at: 0)?.stringValue, root.element(at: 0)?.withStringBytes { Array($0) })
            }
            #expect(got?.0 == expected, "\(literal)")
            #expect(got?.1 == Array(expected.utf8), "\(literal)")
        }
    }

    /// A wide object with all keys distinct is checked in n log n (a pairwise check of
    /// 100,000 keys would not finish), and a repeated key among them is still found.
    @Test func wideObjectsAreCheckedForRepeatedKeys() throws {
        let text = Data(Self.wideObject(members: 100_000, repeating: false).utf8)
        let count = try Self.rejecting.withDocument(text) { root throws(PFError) in root.count }
        #expect(count == 100_000)
        let repeated = Data(Self.wideObject(members: 100_000, repeating: true).utf8)
        #expect(throws: PFError.self) { try Self.rejecting.withDocument(repeated) { root throws(PFError) in root.count } }
        let merged = try Self.untyped.withDocument(repeated) { root throws(PFError) in
            (root.count, root.member("key0")?.stringValue)
        }
        #expect(merged.0 == 100_000 && merged.1 == "again")
    }

    /// A typed object stays a plain object in the view; `value()` follows the reader's setting.
    @Test func typedObjectsAreObjectsAndValueFollowsTheReader() throws {
        let text = Data(#"{"d": {"__type": "Date", "iso": "2011-06-10T18:33:42.123Z"}}"#.utf8)
        let typed = JSONReader()
        try typed.withDocument(text) { root throws(PFError) in
            #expect(root.member("d")?.kind == .object)
            #expect(root.member("d")?.member("__type")?.stringValue == "Date")
            #expect(try root.value() == (try typed.read(text)))
        }
    }

    /// Nested views on one session (a node view inside another's closure) each see their own
    /// document; a read inside a view works too.
    @Test func nestedUseOfOneSession() throws {
        let session = JSONReader.Session(reader: Self.untyped)
        let outer = Data(#"{"a": 1, "b": [2]}"#.utf8)
        let inner = Data(#"{"a": "x"}"#.utf8)
        let got = try session.withDocument(outer) { root throws(PFError) -> [PFValue] in
            let nested = try session.withDocument(inner) { node throws(PFError) in try node.value() }
            let read = try session.read(inner)
            return [try root.value(), nested, read, try root.member("b")!.value()]
        }
        #expect(got == [["a": 1, "b": [2]], ["a": "x"], ["a": "x"], [2]])
        // And the session still works afterwards, with its cache.
        #expect(try session.read(outer) == ["a": 1, "b": [2]])
    }

    /// Errors thrown by the closure come out unchanged.
    @Test func closureErrorsPassThrough() {
        let mine = PFError(.invalidValue, format: .json, "mine")
        #expect(throws: mine) {
            try JSONReader.Session().withDocument(Data("[]".utf8)) { _ throws(PFError) in throw mine }
        }
    }

    /// A node kept past its closure stops the program instead of reading freed memory.
    @Test func aNodeUsedAfterItsClosureTraps() async {
        await #expect(processExitsWith: .failure) {
            let session = JSONReader.Session()
            let escaped = try? session.withDocument(Data(#"{"a": 1}"#.utf8)) { root throws(PFError) in root }
            _ = escaped?.member("a")
        }
    }
}
