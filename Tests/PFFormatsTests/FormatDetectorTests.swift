import Foundation
import PFCompression
import PFCore
import PFFormats
import PFSerialization
import Testing

@Suite struct FormatDetectorTests {
    @Test(arguments: [
        ("{\"a\":1}", DataFormat.json), ("  [1]", .json), ("\"x\"", .json), ("-1", .json), ("null", .json),
        ("bplist00\u{0}", .bplist), ("<?xml version=\"1.0\"?><plist/>", .xmlplist), ("<plist version=\"1.0\"/>", .xmlplist),
    ])
    func detectsByMagic(text: String, expected: DataFormat) {
        #expect(FormatDetector.detect(Data(text.utf8)) == expected)
    }

    @Test func detectsCBORAndTypedstreamAndNothing() {
        #expect(FormatDetector.detect(Data([0xD9, 0xD9, 0xF7, 0xA0])) == .cbor)
        #expect(FormatDetector.detect(Data([0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03])) == .typedstream)
        #expect(FormatDetector.detect(Data()) == nil)
        #expect(FormatDetector.detect(Data([0x00, 0x01])) == nil)
    }

    @Test(arguments: [
        ("a.json", DataFormat?.some(.json), CompressionFormat?.none), ("a.json.gz", .json, .gzip),
        ("A.BPLIST", .bplist, nil), ("x/y.plist", .xmlplist, nil), ("c.cbor.zz", .cbor, .zlib),
        ("d.archive", .keyed, nil), ("noext", nil, nil), ("-", nil, nil), ("e.gz", nil, .gzip),
    ])
    func infersFromPaths(path: String, format: DataFormat?, compression: CompressionFormat?) {
        let inferred = FormatDetector.infer(fromPath: path)
        #expect(inferred.format == format)
        #expect(inferred.compression == compression)
    }

    @Test(arguments: [DataFormat.json, .bplist, .xmlplist, .cbor])
    func everyTreeFormatRoundTripsThroughFormatIOWithDetection(format: DataFormat) throws {
        let value: PFValue = ["name": "pfarchive", "n": 3, "list": [1.5, true, "x"], "when": .date(Date(timeIntervalSince1970: 1))]
        for compression in [CompressionFormat?.none, .gzip, .zlib] {
            let bytes = try FormatIO.write(value, as: format, options: .init(compression: compression))
            let result = try FormatIO.read(bytes)
            #expect(result.format == format)
            #expect(result.compression == compression)
            #expect(result.value == value)
        }
    }

    @Test func nullsFailInPropertyListsUnlessDropped() throws {
        let value: PFValue = ["keep": 1, "gone": nil, "nested": [nil, 2]]
        for format in [DataFormat.bplist, .xmlplist] {
            #expect(throws: PFError.self) { try FormatIO.write(value, as: format) }
            do {
                _ = try FormatIO.write(value, as: format)
            } catch {
                #expect(error.code == .unrepresentable)
                #expect(error.path == [.key("gone")])
            }
            let dropped = try FormatIO.write(value, as: format, options: .init(dropNulls: true))
            #expect(try FormatIO.read(dropped).value == ["keep": 1, "nested": [2]])
        }
    }

    @Test func unrecognisedBytesGiveAClearError() {
        do {
            _ = try FormatIO.read(Data([0xFF, 0xFE, 0x00]))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .syntax)
            #expect(error.failure(as: FormatsFailure.self) == .unrecognisedFormat)
        }
    }

    @Test func inputLimitIsEnforcedBeforeParsing() {
        var limits = PFLimits.default
        limits.maxInputBytes = 4
        do {
            _ = try FormatIO.read(Data("[1,2,3]".utf8), options: .init(limits: limits))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .limitExceeded)
        }
    }
}

/// Old-style (OpenStep) property lists and `.strings` files are not JSON: they were taken
/// for JSON and failed with "JSON: unexpected character 'I'" (an old nib's classes.nib).
@Suite struct OldStylePlistTests {
    @Test func oldStylePlistsAreNamedNotTakenForJSON() throws {
        let utf16 = Data([0xFE, 0xFF]) + Data("/* Localized */\n\"CFBundleName\" = \"App\";\n".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        let oldStyle: [Data] = [
            Data("{\n    IBClasses = (\n        {CLASS = Controller; SUPERCLASS = NSObject; }\n    );\n    IBVersion = 1;\n}\n".utf8),
            Data("( a, b, \"c d\" )".utf8),
            Data("// comment\n{ \"quoted key\" = <0fbd77>; }".utf8),
            Data("\"greeting\" = \"Hello\";".utf8),
            utf16,
        ]
        for bytes in oldStyle {
            #expect(FormatDetector.looksLikeOldStylePlist(bytes), "\(String(decoding: bytes, as: UTF8.self))")
            #expect(FormatDetector.detect(bytes) == nil)
            #expect { try FormatIO.read(bytes) } throws: { ($0 as? PFError)?.failure(as: FormatsFailure.self) == .oldStylePlist }
        }
        for json in [#"{"a": 1}"#, "{ }", #"["x"]"#, #""text""#, "  {\n \"k\" : [1] }", "\u{FEFF}{\"a\":1}", "null", "12"] {
            #expect(!FormatDetector.looksLikeOldStylePlist(Data(json.utf8)), "\(json)")
            #expect(FormatDetector.detect(Data(json.utf8)) == .json, "\(json)")
        }
    }
}

/// Binary property lists of another version than 00 (Apple's private `bplist15`/`bplist16`)
/// are named with their version; they were "unrecognised format".
@Suite struct BinaryPlistVersionTests {
    @Test func otherVersionsAreNamed() throws {
        for version in ["15", "16", "01"] {
            let bytes = Data("bplist\(version)".utf8) + Data(repeating: 0, count: 40)
            #expect(FormatDetector.detect(bytes) == nil)
            #expect(FormatDetector.binaryPlistVersion(bytes) == version)
            #expect { try FormatIO.read(bytes) } throws: {
                ($0 as? PFError)?.failure(as: FormatsFailure.self) == .binaryPlistVersion(version)
                    && ($0 as? PFError)?.message.contains("version \(version) (\"bplist\(version)\")") == true
            }
        }
        #expect(FormatDetector.binaryPlistVersion(Data("bplist00".utf8) + Data(repeating: 0, count: 40)) == nil)
        #expect(FormatDetector.binaryPlistVersion(Data("bplist0".utf8)) == nil)
        #expect(FormatDetector.binaryPlistVersion(Data("bplist\u{1}\u{2}xx".utf8)) == nil)
        // A damaged magic (a fuzzer's "bplist0t") is no version.
        #expect(FormatDetector.binaryPlistVersion(Data("bplist0teXunsigned".utf8)) == nil)
    }
}

/// ASN.1 data — a signed `.mobileconfig` (CMS/PKCS#7 signed data in DER or BER), a
/// certificate — is named with the way to take the property list out; its leading `0x30` was
/// taken for the JSON number 0 ("JSON: unexpected byte 0x82 after the top-level value").
@Suite struct DERDataTests {
    @Test func signedDataIsNamedNotTakenForJSON() throws {
        let signed = Data([0x30, 0x82, 0x2F, 0x1A, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0])
        let ber = Data([0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0, 0x80])
        for bytes in [signed, ber] {
            #expect(FormatDetector.looksLikeDER(bytes))
            #expect(FormatDetector.detect(bytes) == nil)
            #expect(FormatDetector.undetectedKind(bytes) == .der)
            #expect { try FormatIO.read(bytes) } throws: { error in
                guard let error = error as? PFError, error.failure(as: FormatsFailure.self) == .der else { return false }
                return error.message.contains("signed .mobileconfig") && error.message.contains("openssl smime")
            }
        }
        for json in ["0", "0 ", "0.5", "[0]", "0\n"] {
            #expect(!FormatDetector.looksLikeDER(Data(json.utf8)), "\(json)")
            #expect(FormatDetector.detect(Data(json.utf8)) == .json, "\(json)")
        }
    }
}

/// JSON saved as UTF-16 (Windows tools write it, with or without a byte-order mark) is named
/// with the way to make it UTF-8; it was "unrecognised format" (with a BOM) or "JSON:
/// unexpected byte 0x00" (without).
@Suite struct UTF16JSONTests {
    @Test func utf16JSONIsNamedNotReadAsBrokenUTF8() throws {
        let text = " {\"a\": [1, \"é\"]}"
        var inputs: [Data] = []
        for (encoding, bom) in [(String.Encoding.utf16LittleEndian, [UInt8]()), (.utf16BigEndian, []), (.utf16LittleEndian, [0xFF, 0xFE]), (.utf16BigEndian, [0xFE, 0xFF])] {
            inputs.append(Data(bom) + (text.data(using: encoding) ?? Data()))
        }
        inputs.append(Data("[1]".data(using: .utf16LittleEndian) ?? Data()))
        for bytes in inputs {
            #expect(FormatDetector.looksLikeUTF16JSON(bytes), "\(Array(bytes.prefix(6)))")
            #expect(FormatDetector.detect(bytes) == nil)
            #expect(FormatDetector.undetectedKind(bytes) == .utf16JSON)
            #expect { try FormatIO.read(bytes) } throws: { error in
                guard let error = error as? PFError, error.failure(as: FormatsFailure.self) == .utf16JSON else { return false }
                return error.message.contains("iconv -f UTF-16 -t UTF-8")
            }
        }
        // UTF-8 JSON, CBOR and an empty input are not UTF-16.
        for bytes in [Data("{\"a\":1}".utf8), Data([0xA1, 0x61, 0x61, 0x01]), Data(), Data([0x7B])] {
            #expect(!FormatDetector.looksLikeUTF16JSON(bytes), "\(Array(bytes))")
        }
    }
}
