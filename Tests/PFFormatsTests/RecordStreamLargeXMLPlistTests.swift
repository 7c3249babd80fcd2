import Foundation
import OrderedCollections
import PFCore
import PFFormats
import PFPropertyList
import PFSerialization
import PFTestSupport
import PropertyBased
import Testing

/// An XML property list that is not a sequence of records, converted by its large
/// containers (issue 23: an iTunes library or Photos export no longer needs its tree),
/// writes what the whole route writes — byte for byte for JSON, CBOR and XML property lists,
/// the same value for a binary property list — and fails with the same error, line, column
/// and key path, checked before anything is written: the XML the vocabulary allows between
/// and inside elements (comments, processing instructions, CDATA, references, a DOCTYPE, a
/// byte order mark), repeated keys, UIDs, and the depth and node limits. The threshold (bytes
/// of text) is made small so that small documents are walked.
@Suite struct RecordStreamLargeXMLPlistTests {
    typealias Large = RecordStreamLargeTests

    static func check(_ input: Data, label: String, threshold: Int = 32, limits: PFLimits = .default,
                      routes: [Large.Route] = Large.routes, mayDecline: Bool = false) throws {
        try Large.check(input, label: label, threshold: threshold, limits: limits, routes: routes, mayDecline: mayDecline, from: .xmlplist)
    }

    /// The document of `value` as the tree writer writes it (nulls dropped).
    static func xml(_ value: PFValue) throws -> Data {
        try XMLPlistWriter(options: .init(nullPolicy: .drop)).write(value)
    }

    /// A document around `body`, with the usual prolog.
    static func document(_ body: String, prolog: String = #"<?xml version="1.0" encoding="UTF-8"?>"#) -> Data {
        Data((prolog + "\n" + #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#
            + "\n<plist version=\"1.0\">\n" + body + "\n</plist>\n").utf8)
    }

    // MARK: - Generated documents

    /// Documents of every value type and shape, walked at every threshold from 0 (every
    /// container) to 64 bytes, and declined when the root is not larger than the threshold.
    @Test func documentsWalkAsTheyConvertWhole() throws {
        let rows = Large.records(12)
        var deep: PFValue = ["items": rows, "after": "x"]
        for k in 0..<4 { deep = ["level\(k)": deep, "n": .int(Int64(k))] }
        let shapes: [(String, PFValue)] = [
            ("records", rows),
            ("depth 1", ["type": "FeatureCollection", "features": rows, "count": 12, "uid": .uid(7), "big": .uint(UInt64.max)]),
            ("depth 5", deep),
            ("array of arrays", .array((0..<6).map { i in .array((0..<4).map { j in [.double(Double(i) + 0.5), .double(Double(j) * -1.25)] }) })),
            ("empty members", ["a": [], "b": [:], "c": .array(Array(repeating: [], count: 6)), "d": .array(Array(repeating: [:], count: 6))]),
            ("scalars", ["t": true, "f": false, "min": .int(.min), "d": .double(.infinity), "nan": .double(.nan), "z": .double(-0.0),
                         "when": .date(Date(timeIntervalSince1970: -1e9)), "bytes": .data(Data((0..<200).map { UInt8($0) }))]),
            ("keys", ["é": [1, 2, 3, 4, 5, 6, 7, 8, 9], "e\u{301}x": ["a": [1, 2, 3]], "😀 <&> \"'": .data(Data(count: 100))]),
            ("uids", ["$objects": [.uid(0), ["CF$UID": .int(-1)], ["CF$UID": 3, "x": 1], ["CF$UID": "text"]], "$top": ["root": .uid(1)]]),
        ]
        for (label, value) in shapes {
            let input = try Self.xml(value)
            for threshold in 0...64 { try Self.check(input, label: "\(label) / \(threshold)", threshold: threshold, mayDecline: threshold > 40) }
        }
        // A scalar root, or a root no larger than the threshold, is left to the whole read.
        #expect(try Large.walked(try Self.xml("text"), .init(to: .json), threshold: 0, from: .xmlplist) == nil)
        let small = Self.document("<array><integer>1</integer></array>")
        #expect(try Large.walked(small, .init(to: .json), threshold: 35, from: .xmlplist) == nil)
        #expect(try Large.walked(small, .init(to: .json), threshold: 34, from: .xmlplist) != nil)
    }

    /// What XML has and JSON has not, between and inside elements, at every threshold.
    @Test func xmlBetweenAndInsideElements() throws {
        let bodies = [
            // Comments and processing instructions between elements, attributes, odd spacing.
            """
            <dict>  <!-- a comment --> <key>a</key> <?pi data?>
            <array   ><integer>1</integer><!-- <dict> --><integer >0x1F</integer><integer>-5</integer><real>2.5e3</real></array  >
            <key>b</key><dict></dict><key>c</key><array></array><key>d</key><array/><key>e</key><dict/>
            <key></key><string></string><key/><string/>\n</dict>
            """,
            // References and CDATA in keys, strings and data; base64 with white space; dates.
            """
            <dict><key>&lt;k&gt; &amp; &#233;&#x1F600;</key><string>x <![CDATA[<not> & markup]]> y&quot;&apos;</string>
            <key><![CDATA[cdata key]]></key><array><string>a<!-- inner -->b</string><data>
              AAEC
              AwQF\tBg==
            </data><date>2011-06-10T18:33:42Z</date><date>1999-12-31T23:59:59.25Z</date><true/><false></false><true>  </true></array></dict>
            """,
            // A UID (one value) inside a large dictionary, and a dictionary that only looks like one.
            "<dict><key>u</key><dict><key>CF$UID</key><integer>5</integer></dict><key>v</key><dict><key>CF$UID</key><integer>-5</integer></dict><key>w</key><dict><key>CF$UID</key><integer>18446744073709551615</integer></dict></dict>",
        ]
        for (k, body) in bodies.enumerated() {
            for (p, prolog) in ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "\u{FEFF}<?xml version='1.0'?><!-- before -->", ""].enumerated() {
                let input = Self.document(body, prolog: prolog)
                for threshold in 0...64 { try Self.check(input, label: "body \(k) prolog \(p) / \(threshold)", threshold: threshold) }
            }
            // No <plist> around the root, as CF and plistlib accept.
            try Self.check(Data(body.utf8), label: "bare \(k)", threshold: 0)
        }
        // UTF-16 is refused by both routes, nothing is transcoded.
        let utf16 = Data([0xFF, 0xFE]) + Self.document("<array><string>x</string></array>").map { $0 }.flatMap { [$0, 0] }
        try Self.check(Data(utf16), label: "utf-16", threshold: 0)
    }

    /// The real property lists and hostile and regression files convert alike, or fail alike.
    @Test func fixturesWalkAsTheyConvertWhole() throws {
        var seen = 0
        for folder in [Fixtures.real.appendingPathComponent("xmlplist"), Fixtures.root.appendingPathComponent("regressions/xmlplist"),
                       Fixtures.real.appendingPathComponent("keyed"), Fixtures.hostile] {
            for url in Fixtures.files(in: folder) {
                guard let input = try? Data(contentsOf: url), XMLPlistReader.hasMagic(input) else { continue }
                seen += 1
                for threshold in [0, 16, 64, 512] {
                    try Self.check(input, label: "\(url.lastPathComponent) / \(threshold)", threshold: threshold, mayDecline: true)
                }
            }
        }
        #expect(seen >= 6)
    }

    // MARK: - Errors

    /// Every reading error is the whole read's (message, line, column, key path), before
    /// anything is written, even where a writer would fail earlier in the document.
    @Test func errorsAreTheWholeReadsBeforeAnyOutput() throws {
        let pad = "<array><integer>1</integer><integer>2</integer><integer>3</integer></array>"
        let bodies: [(String, String)] = [
            ("repeated key", "<dict><key>a</key>\(pad)<key>b</key>\(pad)<key>a</key><true/></dict>"),
            ("repeated key, equivalent", "<dict><key>é</key>\(pad)<key>e\u{301}</key><true/></dict>"),
            ("repeated key, deep", "<array>\(pad)<dict><key>x</key><dict><key>k</key><false/><key>k</key>\(pad)</dict></dict></array>"),
            ("repeated key, referenced", "<dict><key>a&amp;b</key>\(pad)<key><![CDATA[a&b]]></key><true/></dict>"),
            ("NaN before a bad date", "<array><real>nan</real>\(pad)<date>yesterday</date></array>"),
            ("bad integer", "<dict><key>a</key>\(pad)<key>n</key><integer>12x</integer></dict>"),
            ("integer out of range", "<array>\(pad)<integer>-9223372036854775809</integer></array>"),
            ("bad base64", "<array>\(pad)<data>AA=A</data></array>"),
            ("unknown entity", "<array>\(pad)<string>&nbsp;</string></array>"),
            ("key without value", "<dict><key>a</key>\(pad)<key>b</key></dict>"),
            ("value without key", "<dict><key>a</key>\(pad)<string>x</string></dict>"),
            ("mismatched end tag", "<array>\(pad)<dict></array></dict>"),
            ("unknown element", "<array>\(pad)<null/></array>"),
            ("key outside dict", "<array>\(pad)<key>k</key></array>"),
            ("text between elements", "<array>\(pad) stray </array>"),
            ("truncated", "<array>\(pad)<array><integer>1</integer>"),
        ]
        var cases = bodies.map { ($0.0, Self.document($0.1)) }
        cases.append(("entity declaration", Data(("<?xml version=\"1.0\"?><!DOCTYPE plist [<!ENTITY x \"y\">]><plist>" + pad + "</plist>").utf8)))
        cases.append(("content after root", Data(("<plist>" + pad + "</plist><plist/>").utf8)))
        var bad = Array(Self.document("<array>\(pad)<string>ab</string></array>"))
        if let at = bad.firstIndex(of: UInt8(ascii: "b")) { bad[at] = 0xC3 }  // a lone lead byte
        cases.append(("lone lead byte", Data(bad)))
        for (label, input) in cases {
            for threshold in [0, 20, 64] { try Self.check(input, label: "\(label) / \(threshold)", threshold: threshold, mayDecline: true) }
            Large.expectNothingWrittenBeforeAReadingError(input, label: label, from: .xmlplist)
        }
    }

    /// The depth limit at each depth, the node limit at the document's total and one below,
    /// the collection and string limits.
    @Test func limitsAsTheWholeRead() throws {
        var value: PFValue = [1, 2, 3]
        for k in 0..<8 { value = ["k\(k)": value, "pad": [1, 2, 3, 4, 5]] }
        let chain = try Self.xml(value)
        for depth in 1...10 {
            var limits = PFLimits.default
            limits.maxDepth = depth
            for threshold in [0, 40] { try Self.check(chain, label: "depth \(depth) / \(threshold)", threshold: threshold, limits: limits) }
        }
        let total = value.nodeCount
        for maxNodes in [total - 1, total] {
            var limits = PFLimits.default
            limits.maxNodes = maxNodes
            for threshold in [0, 40] { try Self.check(chain, label: "maxNodes \(maxNodes) / \(threshold)", threshold: threshold, limits: limits) }
        }
        var limits = PFLimits.default
        limits.maxCollectionCount = 4
        try Self.check(chain, label: "maxCollectionCount", threshold: 0, limits: limits)
        limits = .default
        limits.maxStringBytes = 3
        try Self.check(try Self.xml(["a": [1, 2, 3], "long": "abcd"]), label: "maxStringBytes", threshold: 0, limits: limits)
        limits = .default
        // Past the input limit the walk declines: the whole route reports the input's error.
        limits.maxInputBytes = chain.count - 1
        #expect(try Large.walked(chain, .init(to: .json), threshold: 0, limits: limits, from: .xmlplist) == nil)
    }

    // MARK: - Random documents

    /// Random trees, as XML property lists, walk as they convert whole at every threshold
    /// from 0 to 64 bytes.
    @Test func randomDocumentsWalkAsTheyConvertWhole() async throws {
        var shape = ValueShape()
        shape.null = false
        shape.uid = true
        shape.nulInStrings = false
        shape.nonFiniteDoubles = true
        var documents: [Data] = []
        await propertyCheck(count: 100, input: ValueGen.tree(shape)) { value in
            do {
                documents.append(try Self.xml(.array([value, ["v": value, "w": [value]]])))
            } catch {
                // Only what XML 1.0 or a plist cannot carry is refused (a control character, a
                // date outside years 1-9999, nesting past the limit once wrapped); such trees are
                // skipped, and how many a seed draws varies from run to run.
                switch (error as? PFError)?.failure(as: XMLPlistFailure.self) {
                case .uncarriableCharacter?, .dateOutOfRange?, .tooDeep?: break
                default: Issue.record("the writer refused a random tree: \(error)")
                }
            }
        }
        #expect(documents.count >= 50)
        for (k, input) in documents.enumerated() {
            for threshold in 0...64 { try Self.check(input, label: "random \(k) / \(threshold)", threshold: threshold, mayDecline: threshold > 40) }
        }
    }
}
