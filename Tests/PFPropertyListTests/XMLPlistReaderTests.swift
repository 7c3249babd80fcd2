import Foundation
import PFCore
import PFPropertyList
import PFTestSupport
import Testing

@Suite struct XMLPlistReaderTests {
    let reader = XMLPlistReader()

    func read(_ text: String) throws(PFError) -> PFValue {
        try reader.read(Data(text.utf8))
    }

    /// Expects `text` to fail with `code` at `line`:`column` (and `path` and the failure case
    /// `failure`, when given; `mentions` is for errors that are not ``XMLPlistFailure``s).
    func expectFailure(
        _ text: String, _ code: PFError.Code, line: Int, column: Int, path: PFKeyPath? = nil,
        failure: XMLPlistFailure? = nil, mentions: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectFailure(Data(text.utf8), code, line: line, column: column, path: path, failure: failure, mentions: mentions,
            sourceLocation: sourceLocation)
    }

    func expectFailure(
        _ bytes: Data, _ code: PFError.Code, line: Int, column: Int, path: PFKeyPath? = nil,
        failure: XMLPlistFailure? = nil, mentions: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let value = try reader.read(bytes)
            Issue.record("expected \(code), read \(value.scalarDescription)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            #expect(error.format == .xmlPlist, sourceLocation: sourceLocation)
            #expect(error.location?.line == line, "\(error)", sourceLocation: sourceLocation)
            #expect(error.location?.column == column, "\(error)", sourceLocation: sourceLocation)
            if let path { #expect(error.path == path, "\(error)", sourceLocation: sourceLocation) }
            if let failure {
                #expect(error.failure(as: XMLPlistFailure.self) == failure, "\(error)", sourceLocation: sourceLocation)
            }
            if let mentions { #expect(error.message.contains(mentions), "\(error)", sourceLocation: sourceLocation) }
        }
    }

    // MARK: - Real files

    @Test func realXMLPlistFilesMatchPlistlib() throws {
        let folder = Fixtures.real.appendingPathComponent("xmlplist")
        let files = Fixtures.files(in: folder) { !$0.contains("-neg-") }
        #expect(files.count == 3)
        for file in files {
            let expectedURL = Fixtures.real.appendingPathComponent("EXPECTED/xmlplist/\(file.lastPathComponent).plistlib.json")
            let expected = try XMLPlistTestSupport.expectedValue(Fixtures.data(expectedURL))
            let value = try reader.read(Fixtures.data(file))
            #expect(value == expected, "\(file.lastPathComponent)")
        }
    }

    @Test func realNegativeFileFailsWhereCoreFoundationDoes() throws {
        let files = Fixtures.files(in: Fixtures.real.appendingPathComponent("xmlplist")) { $0.contains("-neg-") }
        #expect(files.count == 1)
        for file in files {
            // CF: "Close tag on line 16 does not match open tag key".
            expectFailure(try Fixtures.data(file), .syntax, line: 16, column: 11,
                failure: .mismatchedEndTag(found: "ke", element: "key", openedAt: "line 16, column 2"))
        }
    }

    @Test func xmlKeyedArchivesReadAsPlistsEqualToPlistlib() throws {
        let keyed = Fixtures.real.appendingPathComponent("keyed")
        var checked = 0
        for sub in ["", "linux-corelibs/"] {
            for file in Fixtures.files(in: keyed.appendingPathComponent(sub), where: { $0.hasSuffix(".xml") }) {
                let expectedURL = Fixtures.real.appendingPathComponent(
                    "EXPECTED/keyed/\(sub)\(file.lastPathComponent).plistlib.json")
                let expected = try XMLPlistTestSupport.expectedValue(Fixtures.data(expectedURL))
                let value = try reader.read(Fixtures.data(file))
                #expect(value == expected, "\(file.lastPathComponent)")
                checked += 1
            }
        }
        #expect(checked == 7)
    }

    @Test func uidDictionariesBecomeUIDs() throws {
        let url = Fixtures.real.appendingPathComponent("keyed/scf-UUIDTest.xml")
        let value = try reader.read(Fixtures.data(url))
        #expect(value["$top"]?["root"] == .uid(1))
        #expect(value["$objects"]?[1]?["$class"] == .uid(2))
    }

    // MARK: - Accepted input

    @Test func readsEveryElementKind() throws {
        let value = try read(
            """
            <?xml version="1.0" encoding="utf-8" standalone="yes"?>
            <!-- before the DOCTYPE -->
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <?some-pi data?>
            <plist version="1.0">
            <dict>
                <key>s</key><string>a&lt;&gt;&amp;&quot;&apos;&#65;&#x1F600;<![CDATA[<b>&amp;]]><!-- c -->z</string>
                <key>empty</key><string/>
                <key>i</key><array><integer>-9223372036854775808</integer><integer>18446744073709551615</integer>
                    <integer>0xDEADBEEF</integer><integer>-0x10</integer><integer>+5</integer><integer>-0</integer></array>
                <key>r</key><array><real>1.5</real><real>-0.0</real><real>.5</real><real>5.</real><real>1E3</real>
                    <real>nan</real><real>-inf</real><real>+infinity</real><real>INF</real><real>1e400</real></array>
                <key>b</key><array><true/><false/><true></true></array>
                <key>d</key><date>2001-01-01T00:00:00Z</date>
                <key>frac</key><date>2001-01-01T00:00:01.25Z</date>
                <key>data</key><data>
                    AAEC
                    /w==
                </data>
                <key>nodata</key><data/>
                <key></key><dict/>
                <key attr='x'>ea</key><array/>
            </dict>
            </plist>
            <!-- after -->

            """)
        let expected: PFValue = [
            "s": "a<>&\"'A😀<b>&amp;z",
            "empty": "",
            "i": [.int(Int64.min), .uint(UInt64.max), 0xDEAD_BEEF, -16, 5, 0],
            "r": [1.5, -0.0, 0.5, 5.0, 1000.0, .double(.nan), .double(-.infinity), .double(.infinity),
                .double(.infinity), .double(.infinity)],
            "b": [true, false, true],
            "d": .date(Date(timeIntervalSinceReferenceDate: 0)),
            "frac": .date(Date(timeIntervalSinceReferenceDate: 1.25)),
            "data": .data(Data([0, 1, 2, 255])),
            "nodata": .data(Data()),
            "": .dictionary([:]),
            "ea": [],
        ]
        #expect(value == expected)
    }

    @Test func bareTopLevelValueWithoutPlistElement() throws {
        #expect(try read("<dict><key>a</key><integer>1</integer></dict>") == ["a": 1])
        #expect(try read("  <string>x</string>\n") == "x")
    }

    @Test func byteOrderMarkAndCarriageReturnsAreKept() throws {
        var bytes = Data([0xEF, 0xBB, 0xBF])
        bytes.append(Data("<plist><string>a\r\nb&#13;</string></plist>".utf8))
        #expect(try reader.read(bytes) == "a\r\nb\r")
    }

    @Test func internalSubsetWithoutEntitiesIsSkipped() throws {
        let text = """
            <!DOCTYPE plist [ <!ATTLIST plist version CDATA "1.0"> <!-- ] --> <!ELEMENT x "]>"> ]>
            <plist><true/></plist>
            """
        #expect(try read(text) == true)
    }

    @Test func uidShapeIsExact() throws {
        #expect(try read("<dict><key>CF$UID</key><integer>7</integer></dict>") == .uid(7))
        #expect(try read("<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>") == .uid(UInt64.max))
        #expect(try read("<dict><key>CF$UID</key><integer>-1</integer></dict>") == ["CF$UID": -1])
        #expect(try read("<dict><key>CF$UID</key><string>7</string></dict>") == ["CF$UID": "7"])
        #expect(try read("<dict><key>CF$UID</key><real>7</real></dict>") == ["CF$UID": 7.0])
        #expect(
            try read("<dict><key>CF$UID</key><integer>7</integer><key>x</key><true/></dict>") == ["CF$UID": 7, "x": true])
    }

    @Test func hasMagic() {
        #expect(XMLPlistReader.hasMagic(Data("<?xml version=\"1.0\"?>".utf8)))
        #expect(XMLPlistReader.hasMagic(Data("\u{FEFF}  \n<plist version=\"1.0\">".utf8)))
        #expect(XMLPlistReader.hasMagic(Data("<!DOCTYPE plist PUBLIC".utf8)))
        #expect(!XMLPlistReader.hasMagic(Data("<!DOCTYPE html>".utf8)))
        #expect(!XMLPlistReader.hasMagic(Data("bplist00".utf8)))
        #expect(!XMLPlistReader.hasMagic(Data("{\"a\": 1}".utf8)))
        #expect(!XMLPlistReader.hasMagic(Data()))
    }

    // MARK: - Failures: syntax

    @Test func duplicateKeysAreAnError() {
        expectFailure(
            #"<plist version="1.0"><dict><key>a</key><string>x</string><key>a</key><string>y</string></dict></plist>"#,
            .invalidValue, line: 1, column: 58, path: [.key("a")], failure: .duplicateKey("a"))
    }

    @Test func structuralErrorsNameLineAndColumn() {
        expectFailure("<plist><array><string>x</array></plist>", .syntax, line: 1, column: 24, path: [.index(0)],
            failure: .mismatchedEndTag(found: "array", element: "string", openedAt: "line 1, column 15"))
        expectFailure("<plist>\n  <foo/>\n</plist>", .syntax, line: 2, column: 3, failure: .unknownElement("foo"))
        expectFailure("<plist><array>hello</array></plist>", .syntax, line: 1, column: 15, path: [.index(0)],
            failure: .unexpectedText(snippet: "hello", expected: "a value or </array>"))
        expectFailure("<plist><dict><string>x</string></dict></plist>", .syntax, line: 1, column: 14,
            failure: .keyExpected(found: "string"))
        expectFailure("<plist><dict><key>a</key></dict></plist>", .syntax, line: 1, column: 26, path: [.key("a")],
            failure: .keyWithoutValue("a"))
        expectFailure("<plist><true/></plist><true/>", .syntax, line: 1, column: 23, failure: .contentAfterRoot)
        expectFailure("<plist><true/></plist>\nx", .syntax, line: 2, column: 1, failure: .contentAfterRoot)
        expectFailure("<plist/>", .syntax, line: 1, column: 1, failure: .emptyPlist)
        expectFailure("<plist></plist>", .syntax, line: 1, column: 8, failure: .plistWithoutValue)
        expectFailure("<plist><true/><true/></plist>", .syntax, line: 1, column: 15, failure: .plistWithSeveralValues)
        expectFailure("<plist><key>a</key></plist>", .syntax, line: 1, column: 8, failure: .keyOutsideDict)
        expectFailure("<plist><array><plist/></array></plist>", .syntax, line: 1, column: 15, path: [.index(0)],
            failure: .nestedPlist)
        expectFailure("<plist><?xml version=\"1.0\"?><true/></plist>", .syntax, line: 1, column: 8,
            failure: .misplacedXMLDeclaration)
        expectFailure("<plist><string>a & b</string></plist>", .syntax, line: 1, column: 18, failure: .bareAmpersand)
        expectFailure("<plist><string>&nbsp;</string></plist>", .syntax, line: 1, column: 16,
            failure: .unknownEntity("nbsp"))
        expectFailure("<plist><string>a<b/></string></plist>", .syntax, line: 1, column: 17, failure: .elementInText(element: "string"))
        expectFailure("<plist><string>a\u{0}b</string></plist>", .syntax, line: 1, column: 17, failure: .nulInText)
        expectFailure("<plist><array><true/ ></array></plist>", .syntax, line: 1, column: 21,
            failure: .slashWithoutGreater(element: "true"))
        expectFailure("<plist><array x></array></plist>", .syntax, line: 1, column: 16, failure: .equalsExpected)
        expectFailure("<plist><dict><key>a</key><array><integer>1</integer><integer>x</integer></array></dict></plist>",
            .invalidValue, line: 1, column: 62, path: [.key("a"), .index(1)],
            failure: .notInteger("'x'"))
    }

    // MARK: - Failures: values

    @Test func badScalarTextIsInvalidValue() {
        expectFailure("<plist><integer>18446744073709551616</integer></plist>", .invalidValue, line: 1, column: 17,
            failure: .integerOutOfRange("'18446744073709551616'"))
        expectFailure("<plist><integer>-9223372036854775809</integer></plist>", .invalidValue, line: 1, column: 17)
        expectFailure("<plist><integer>0x1FFFFFFFFFFFFFFFF</integer></plist>", .invalidValue, line: 1, column: 17)
        expectFailure("<plist><integer>12a</integer></plist>", .invalidValue, line: 1, column: 17,
            failure: .notInteger("'12a'"))
        expectFailure("<plist><integer> 1</integer></plist>", .invalidValue, line: 1, column: 17)
        expectFailure("<plist><integer>-</integer></plist>", .invalidValue, line: 1, column: 17,
            failure: .integerWithoutDigits("'-'"))
        expectFailure("<plist><integer/></plist>", .invalidValue, line: 1, column: 8, failure: .emptyScalar(element: "integer"))
        expectFailure("<plist><integer></integer></plist>", .invalidValue, line: 1, column: 17)
        expectFailure("<plist><real>1.2.3</real></plist>", .invalidValue, line: 1, column: 14,
            failure: .notReal("'1.2.3'"))
        expectFailure("<plist><real>0x10</real></plist>", .invalidValue, line: 1, column: 14)
        expectFailure("<plist><real>nanx</real></plist>", .invalidValue, line: 1, column: 14)
        expectFailure("<plist><real>1e</real></plist>", .invalidValue, line: 1, column: 14)
        expectFailure("<plist><date>2020-13-01T00:00:00Z</date></plist>", .invalidValue, line: 1, column: 14,
            failure: .notDate("'2020-13-01T00:00:00Z'"))
        expectFailure("<plist><date>2020-01-01 00:00:00Z</date></plist>", .invalidValue, line: 1, column: 14)
        expectFailure("<plist><date>2020-01-01T00:00:00</date></plist>", .invalidValue, line: 1, column: 14)
        expectFailure("<plist><date>2020-01-01T00:00:00.Z</date></plist>", .invalidValue, line: 1, column: 14)
        expectFailure("<plist><date>2020-01-01T00:00:00+01:00</date></plist>", .invalidValue, line: 1, column: 14)
        expectFailure("<plist><data>AB$D</data></plist>", .invalidValue, line: 1, column: 16, failure: .invalidBase64(reason: "invalid character '$'"))
        expectFailure("<plist><data>\n  ABC=D</data></plist>", .invalidValue, line: 2, column: 7, failure: .invalidBase64(reason: "data after '=' padding"))
        expectFailure("<plist><data>A</data></plist>", .invalidValue, line: 1, column: 15)
        expectFailure("<plist><true>yes</true></plist>", .invalidValue, line: 1, column: 14, failure: .notEmpty(element: "true"))
        expectFailure("<plist><string>&#xD800;</string></plist>", .invalidValue, line: 1, column: 16,
            failure: .disallowedCharacterReference(0xD800))
        expectFailure("<plist><string>&#0;</string></plist>", .invalidValue, line: 1, column: 16)
        expectFailure("<plist><string>&#x110000;</string></plist>", .invalidValue, line: 1, column: 16,
            failure: .characterReferenceBeyondUnicode)
        expectFailure("<plist><string>&#12a;</string></plist>", .syntax, line: 1, column: 20,
            failure: .characterReferenceDigit)
        var invalidUTF8 = Data("<plist><string>ab".utf8)
        invalidUTF8.append(contentsOf: [0xC3, 0x28])
        invalidUTF8.append(Data("</string></plist>".utf8))
        expectFailure(invalidUTF8, .invalidValue, line: 1, column: 18, failure: .invalidUTF8(element: "string"))
    }

    // MARK: - Failures: encodings and hostile input

    @Test func otherEncodingsAreUnsupported() {
        expectFailure(
            #"<?xml version="1.0" encoding="ISO-8859-1"?><plist><true/></plist>"#, .unsupported, line: 1, column: 31,
            failure: .encoding("ISO-8859-1"))
        var utf16 = Data([0xFF, 0xFE])
        utf16.append("<plist><true/></plist>".data(using: .utf16LittleEndian) ?? Data())
        expectFailure(utf16, .unsupported, line: 1, column: 1, failure: .utf16ByteOrderMark)
        let noBOM = "<plist><true/></plist>".data(using: .utf16BigEndian) ?? Data()
        expectFailure(noBOM, .unsupported, line: 1, column: 1, failure: .utf16WithoutByteOrderMark)
    }

    /// UTF-16 and UTF-32 documents (dd-plist's test files have each) are told to be XML
    /// property lists by their first bytes, so detection hands them to the reader and its
    /// "convert it first" rather than calling them no format at all; other bytes are not.
    @Test func wideDocumentsAreDetectedAsXMLPlists() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist version=\"1.0\"><true/></plist>\n"
        let documents: [Data] = [
            Data([0xFE, 0xFF]) + (text.data(using: .utf16BigEndian) ?? Data()),
            Data([0xFF, 0xFE]) + (text.data(using: .utf16LittleEndian) ?? Data()),
            text.data(using: .utf16LittleEndian) ?? Data(), text.data(using: .utf16BigEndian) ?? Data(),
            Data([0xFF, 0xFE, 0, 0]) + (text.data(using: .utf32LittleEndian) ?? Data()),
            Data([0, 0, 0xFE, 0xFF]) + (text.data(using: .utf32BigEndian) ?? Data()),
            Data("  \n<plist><true/></plist>".data(using: .utf16LittleEndian) ?? Data()),
        ]
        for document in documents {
            #expect(XMLPlistReader.hasMagic(document), "\(Array(document.prefix(8)))")
            #expect((try? XMLPlistReader().read(document)) == nil)
        }
        for other in [Data([0xFF, 0xFE, 0x41, 0x00]), "{\"a\": 1}".data(using: .utf16LittleEndian) ?? Data(), Data([0xFE, 0xFF, 0xD8, 0x3D])] {
            #expect(!XMLPlistReader.hasMagic(other))
        }
    }

    @Test func billionLaughsIsRejectedBeforeExpansion() {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n <!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            text += " <!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1 == 0 ? "" : String(level - 1));", count: 10)
                + "\">\n"
        }
        text += "]>\n<plist><string>&lol9;</string></plist>\n"
        expectFailure(text, .unsupported, line: 3, column: 2, failure: .entityDeclaration)
        expectFailure("<!DOCTYPE plist [ %pe; ]><plist/>", .unsupported, line: 1, column: 19, failure: .parameterEntity)
    }

    @Test func deepNestingStopsAtTheDepthLimit() {
        let depth = 100_000
        let text = "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            + "</plist>"
        // The 513th <array> starts after "<plist>" and 512 arrays.
        expectFailure(text, .limitExceeded, line: 1, column: 7 + 512 * 7 + 1, mentions: "maxDepth")
        let ok = "<plist>" + String(repeating: "<array>", count: 512) + String(repeating: "</array>", count: 512) + "</plist>"
        #expect(throws: Never.self) { try read(ok) }
        let unclosed = String(repeating: "<dict><key>k</key>", count: 200)
        expectFailure(unclosed, .truncated, line: 1, column: 3601,
            failure: .endsInsideElement(element: "dict", openedAt: "line 1, column 3583"))
    }

    @Test func unterminatedEverythingIsTruncated() {
        let cases: [(String, Int, XMLPlistFailure)] = [
            ("", 1, .endsBeforeRoot),
            ("   ", 4, .endsBeforeRoot),
            ("<?xml version=\"1.0", 15, .endsInsideAttributeValue),
            ("<!DOCTYPE plist PUBLIC \"-//Apple", 24, .endsInsideQuotedLiteral),
            ("<!DOCTYPE plist [ <!ATTLIST x>", 18, .endsInsideInternalSubset),
            ("<!-- never closed", 1, .endsInsideComment),
            ("<?pi never closed", 1, .endsInsideProcessingInstruction),
            ("<plist", 1, .endsInsideTag),
            ("<plist version=\"1.0", 16, .endsInsideAttributeValue),
            ("<plist>", 8, .endsBeforePlistValue),
            ("<plist><true/>", 15, .endsBeforePlistEnd),
            ("<plist><array>", 15, .endsInsideElement(element: "array", openedAt: "line 1, column 8")),
            ("<plist><dict><key>a", 20, .endsInsideElement(element: "key", openedAt: "line 1, column 14")),
            ("<plist><dict><key>a</key><string>abc", 37, .endsInsideElement(element: "string", openedAt: "line 1, column 26")),
            ("<plist><string>a&amp", 17, .endsInsideEntityReference),
            ("<plist><string>&#x41", 16, .endsInsideCharacterReference),
            ("<plist><string><![CDATA[abc", 16, .endsInsideCDATA),
            ("<plist><string>a</string", 17, .endsInsideEndTag(element: "string")),
            ("<plist><data>AAAA", 18, .endsInsideElement(element: "data", openedAt: "line 1, column 8")),
        ]
        for (text, column, failure) in cases {
            expectFailure(text, .truncated, line: 1, column: column, failure: failure)
        }
    }

    @Test func limitsAreEnforced() {
        func reader(_ limits: PFLimits) -> XMLPlistReader { XMLPlistReader(options: .init(limits: limits)) }
        let strings = Data("<plist><array><string>abcdef</string></array></plist>".utf8)
        #expect(throws: PFError.self) { try reader(PFLimits(maxStringBytes: 5)).read(strings) }
        #expect(throws: Never.self) { try reader(PFLimits(maxStringBytes: 6)).read(strings) }
        let data = Data("<plist><data>AAAAAAAA</data></plist>".utf8)
        #expect(throws: PFError.self) { try reader(PFLimits(maxStringBytes: 5)).read(data) }
        let items = Data("<plist><array><true/><true/><true/></array></plist>".utf8)
        #expect(throws: PFError.self) { try reader(PFLimits(maxCollectionCount: 2)).read(items) }
        #expect(throws: PFError.self) { try reader(PFLimits(maxNodes: 3)).read(items) }
        #expect(throws: Never.self) { try reader(PFLimits(maxNodes: 4)).read(items) }
        #expect(throws: PFError.self) { try reader(PFLimits(maxInputBytes: 10)).read(items) }
        do {
            _ = try reader(PFLimits(maxCollectionCount: 2)).read(items)
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("maxCollectionCount"))
        }
    }

    @Test func errorDescriptionIsOneLineWithPlaceAndPath() {
        do {
            _ = try read("<plist><dict><key>a b</key><array><real>x</real></array></dict></plist>")
            Issue.record("expected an error")
        } catch {
            #expect(
                error.description
                    == #"XML plist: 'x' is not a real number; expected decimal text such as -1.5e3, nan, inf or -inf at line 1, column 41 (byte 40) (at ["a b"][0])"#
            )
        }
    }
}
