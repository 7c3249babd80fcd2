import Foundation
import PFCore
import PFPropertyList
import Testing

@Suite struct XMLPlistWriterTests {
    let writer = XMLPlistWriter()
    let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    func text(_ value: PFValue, _ w: XMLPlistWriter? = nil) throws(PFError) -> String {
        String(decoding: try (w ?? writer).write(value), as: UTF8.self)
    }

    func expectUnrepresentable(
        _ value: PFValue, path: PFKeyPath, failure: XMLPlistFailure, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try writer.write(value)
            Issue.record("expected an error", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .unrepresentable, "\(error)", sourceLocation: sourceLocation)
            #expect(error.path == path, "\(error)", sourceLocation: sourceLocation)
            #expect(error.failure(as: XMLPlistFailure.self) == failure, "\(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - Golden text

    @Test func goldenLayout() throws {
        let value: PFValue = [
            "name": "a & b <c> \"d\" 'e'\r",
            "n": [1, -2, .uint(UInt64.max), 1.0, 0.1, -0.0, .double(.nan), .double(.infinity), .double(-.infinity)],
            "flags": [true, false],
            "empty": [:],
            "none": [],
            "when": .date(Date(timeIntervalSince1970: 1_577_934_245.75)),
            "blob": .data(Data("hello".utf8)),
            "ref": .uid(3),
        ]
        let expected = header + """
            <dict>
            \t<key>name</key>
            \t<string>a &amp; b &lt;c&gt; "d" 'e'&#13;</string>
            \t<key>n</key>
            \t<array>
            \t\t<integer>1</integer>
            \t\t<integer>-2</integer>
            \t\t<integer>18446744073709551615</integer>
            \t\t<real>1.0</real>
            \t\t<real>0.1</real>
            \t\t<real>-0.0</real>
            \t\t<real>nan</real>
            \t\t<real>inf</real>
            \t\t<real>-inf</real>
            \t</array>
            \t<key>flags</key>
            \t<array>
            \t\t<true/>
            \t\t<false/>
            \t</array>
            \t<key>empty</key>
            \t<dict/>
            \t<key>none</key>
            \t<array/>
            \t<key>when</key>
            \t<date>2020-01-02T03:04:05Z</date>
            \t<key>blob</key>
            \t<data>
            \taGVsbG8=
            \t</data>
            \t<key>ref</key>
            \t<dict>
            \t\t<key>CF$UID</key>
            \t\t<integer>3</integer>
            \t</dict>
            </dict>
            </plist>

            """
        #expect(try text(value) == expected)
    }

    @Test func scalarRootsAndEmptyData() throws {
        #expect(try text("x") == header + "<string>x</string>\n</plist>\n")
        #expect(try text(.data(Data())) == header + "<data>\n</data>\n</plist>\n")
        #expect(try text(.int(Int64.min)) == header + "<integer>-9223372036854775808</integer>\n</plist>\n")
        #expect(try text(0) == header + "<integer>0</integer>\n</plist>\n")
    }

    @Test func dataLinesWrapLikePlistlib() throws {
        // At depth 1, 76 - 8 = 68 characters (51 bytes) per line.
        let shallow = try text(["d": .data(Data(repeating: 0x78, count: 100))])
        let lines = shallow.split(separator: "\n").filter { $0.hasPrefix("\teHh4") }
        #expect(lines.map(\.count) == [69, 69])
        // At depth 8 the width bottoms out at 16 characters.
        var deep: PFValue = .data(Data(repeating: 0x79, count: 13))
        for _ in 0..<8 { deep = [deep] }
        let deepLines = try text(deep).split(separator: "\n").filter { $0.hasPrefix(String(repeating: "\t", count: 8) + "e") }
        #expect(deepLines.map { $0.count } == [8 + 16, 8 + 4])
    }

    @Test func datesAreWholeSecondsRoundedTowardThePast() throws {
        #expect(try text(.date(Date(timeIntervalSince1970: 0.999))).contains("<date>1970-01-01T00:00:00Z</date>"))
        #expect(try text(.date(Date(timeIntervalSince1970: -0.5))).contains("<date>1969-12-31T23:59:59Z</date>"))
        expectUnrepresentable(["a": [.date(Date(timeIntervalSince1970: -70_000_000_000))]], path: [.key("a"), .index(0)],
            failure: .dateOutOfRange(secondsSince2001: -70_000_000_000 - Date.timeIntervalBetween1970AndReferenceDate))
        expectUnrepresentable(.date(Date(timeIntervalSince1970: .infinity)), path: .root, failure: .dateOutOfRange(secondsSince2001: .infinity))
    }

    // MARK: - Policies

    @Test func nullIsAnErrorNamingItsPath() {
        expectUnrepresentable(["a": ["b": [1, nil]]], path: [.key("a"), .key("b"), .index(1)], failure: .nullValue)
        expectUnrepresentable(nil, path: .root, failure: .nullRoot)
    }

    @Test func nullDropPolicyLeavesNullsOut() throws {
        let dropping = XMLPlistWriter(options: .init(nullPolicy: .drop))
        let value: PFValue = ["a": nil, "b": [nil, 1, nil], "c": ["x": nil], "d": [nil]]
        let expected: PFValue = ["b": [1], "c": [:], "d": []]
        #expect(try XMLPlistReader().read(dropping.write(value)) == expected)
        #expect(throws: PFError.self) { try dropping.write(nil) }
    }

    @Test func controlCharactersAreRefusedWithTheirPath() throws {
        expectUnrepresentable(["k": ["ok", "bell\u{7}"]], path: [.key("k"), .index(1)], failure: .uncarriableCharacter("U+0007"))
        expectUnrepresentable(["bad\u{1}key": 1], path: [.key("bad\u{1}key")], failure: .uncarriableCharacter("U+0001"))
        expectUnrepresentable(["x": "\u{FFFF}"], path: [.key("x")], failure: .uncarriableCharacter("U+FFFF"))
        expectUnrepresentable(["x": "a\u{FFFE}"], path: [.key("x")], failure: .uncarriableCharacter("U+FFFE"))
        // Tab, line feed and carriage return are fine; U+FFFD and astral characters too.
        let fine: PFValue = "\t\n\r\u{FFFD}\u{1F600}\u{10FFFF}"
        #expect(try XMLPlistReader().read(writer.write(fine)) == fine)
    }

    @Test func nestingBeyondTheReadersDepthIsRefused() throws {
        var value: PFValue = 1
        for _ in 0..<512 { value = [value] }
        #expect(throws: Never.self) { try writer.write(value) }
        value = [value]
        do {
            _ = try writer.write(value)
            Issue.record("expected an error")
        } catch {
            #expect(error.failure(as: XMLPlistFailure.self) == .tooDeep(maxDepth: 512), "\(error)")
        }
    }

    @Test func cfUIDShapedDictionaryReadsBackAsUID() throws {
        // The XML spelling of a UID and of this dictionary is the same; documented.
        let bytes = try writer.write(["CF$UID": 5])
        #expect(bytes == (try writer.write(.uid(5))))
        #expect(try XMLPlistReader().read(bytes) == .uid(5))
    }
}
