import Foundation
import PFCore
import PFFormats
import PFTestSupport
import Testing

/// Two keys spelled with different code points that are one text under Unicode canonical
/// equivalence (`"caf\u{E9}"`, NFC, and `"cafe\u{301}"`, NFD; JSONTestSuite's
/// `object_key_nfc_nfd.json`): a value tree's dictionary keys by text as Swift compares it,
/// so it cannot hold both. CBOR and XML plists, which refuse a repeated key, refuse these
/// naming both spellings (they called them a repeated key, which they are not; a CBOR map of
/// over 16 keys built a dictionary holding "equal" keys twice). JSON and binary plists, which
/// read a repeated key as one (first place, last value, as json-c, CF and plistlib do for
/// repeats), read these as one key too (Docs/Formats.md, "What each format can hold").
@Suite struct EquivalentKeysTests {
    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"

    /// Bytes of each format, written by Python (json, plistlib, cbor2), with `pad` more keys.
    static func inputs(pad: Int) throws -> [(String, Data)] {
        let script = """
            import sys, json, plistlib, cbor2, base64
            d = {('k%d' % i): i for i in range(\(pad))}
            d['caf\\u00e9'] = 1
            d['cafe\\u0301'] = 2
            for blob in (json.dumps(d, ensure_ascii=False).encode(), json.dumps(d).encode(),
                         plistlib.dumps(d, fmt=plistlib.FMT_BINARY), plistlib.dumps(d), cbor2.dumps(d)):
                print(base64.b64encode(blob).decode())
            """
        let run = try Peers.python(script)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdoutText.split(separator: "\n").compactMap { Data(base64Encoded: String($0)) }
        return zip(["json", "json escaped", "bplist", "xml plist", "cbor"], lines).map { ($0, $1) }
    }

    @Test(arguments: [0, 40])
    func cborAndXMLRefuseKeysThatAreOneTextNamingBothSpellings(pad: Int) throws {
        let inputs = try Self.inputs(pad: pad)
        #expect(inputs.count == 5)
        for (kind, bytes) in inputs {
            do {
                let value = try FormatIO.read(bytes).value
                #expect(kind.hasPrefix("json") || kind == "bplist", "\(kind), \(pad) more keys: read without a word")
                // Read as one key (with the value of the spelling the file holds last).
                #expect(value.dictionaryValue?.count == pad + 1 && [1, 2].contains(value[Self.nfc]), "\(kind): \(value)")
            } catch {
                #expect(kind == "cbor" || kind == "xml plist", "\(kind): \(error)")
                let failure = error.failure(as: PFCoreFailure.self)
                #expect(failure == .equivalentKeys(first: Self.nfc, second: Self.nfd) || failure == .equivalentKeys(first: Self.nfd, second: Self.nfc),
                    "\(kind), \(pad) more keys: \(error)")
                #expect(error.message.contains(#""caf\u{E9}""#) && error.message.contains(#""cafe\u{301}""#), "\(error.message)")
            }
        }
    }

    @Test func aKeyTrulyRepeatedInJSONStillKeepsTheLastValue() throws {
        let value = try FormatIO.read(Data(#"{"café":1,"café":2}"#.utf8)).value
        #expect(value == ["café": 2])
    }
}
