import Foundation
import PFCore
import PFJSON
import Testing

/// Parse's typed dates and bytes and keyed-archive UIDs, both ways.
@Suite struct TypedValueTests {
    static let date = Date(timeIntervalSince1970: 1_307_731_022.123)

    @Test func typedObjectsReadAsTypedValues() throws {
        let text = #"""
            {"d": {"__type": "Date", "iso": "2011-06-10T18:37:02.123Z"},
             "b": {"base64": "AAEC/w==", "__type": "Bytes"},
             "u": {"CF$UID": 7}}
            """#
        let value = try JSONTest.read(text)
        #expect(value["d"] == .date(Self.date))
        #expect(value["b"] == .data(Data([0, 1, 2, 255])))
        #expect(value["u"] == .uid(7))
        let plain = try JSONTest.read(text, JSONReader(options: .init(typedValues: false)))
        #expect(plain["u"] == ["CF$UID": 7])
        #expect(plain["d"]?["iso"] == "2011-06-10T18:37:02.123Z")
    }

    @Test func typedValuesWriteInParseForm() throws {
        let value: PFValue = ["d": .date(Self.date), "b": .data(Data([0, 1, 2, 255])), "u": .uid(4_294_967_295)]
        #expect(try JSONTest.text(value)
            == #"{"d":{"__type":"Date","iso":"2011-06-10T18:37:02.123Z"},"b":{"__type":"Bytes","base64":"AAEC/w=="},"u":{"CF$UID":4294967295}}"#)
        #expect(try JSONTest.read(try JSONTest.text(value)) == value)
    }

    @Test func otherShapesStayDictionaries() throws {
        let texts = [
            #"{"__type": "Date", "iso": "2011-06-10T18:37:02.123Z", "extra": 1}"#,
            #"{"__type": "Pointer", "className": "A"}"#,
            #"{"__type": "Date", "when": "x"}"#,
            #"{"CF$UID": 1, "other": 2}"#,
        ]
        for text in texts {
            #expect(try JSONTest.read(text).dictionaryValue != nil, "\(text)")
        }
    }

    @Test func malformedTypedObjectsNameTheKeyPath() {
        let cases: [(String, PFKeyPath)] = [
            (#"{"a": [{"__type": "Date", "iso": "2011-13-10T00:00:00Z"}]}"#, PFKeyPath([.key("a"), .index(0), .key("iso")])),
            (#"{"a": {"__type": "Date", "iso": 5}}"#, PFKeyPath([.key("a"), .key("iso")])),
            (#"{"b": {"__type": "Bytes", "base64": "A*=="}}"#, PFKeyPath([.key("b"), .key("base64")])),
            (#"[{"CF$UID": -1}]"#, PFKeyPath([.index(0), .key("CF$UID")])),
            (#"[{"CF$UID": 4294967296}]"#, PFKeyPath([.index(0), .key("CF$UID")])),
        ]
        for (text, path) in cases {
            let error = JSONTest.error(text)
            #expect(error?.code == .invalidValue, "\(text)")
            #expect(error?.path == path, "\(text): \(String(describing: error))")
            // Lenient mode keeps them as dictionaries.
            #expect(JSONTest.error(text, JSONTest.lenient) == nil, "\(text)")
        }
    }

    @Test func writingTypedValuesWithTypedValuesOffIsUnrepresentable() {
        let writer = JSONWriter(options: .init(typedValues: false))
        for (value, what): (PFValue, String) in [(["x": [.date(Self.date)]], "a date"), (["x": [.data(Data([1]))]], "data"), (["x": [.uid(1)]], "a UID")] {
            #expect {
                _ = try writer.write(value)
            } throws: { error in
                let e = error as? PFError
                return e?.code == .unrepresentable && e?.path == PFKeyPath([.key("x"), .index(0)])
                    && e?.failure(as: JSONFailure.self) == .typedValuesOff(what)
            }
        }
    }

    @Test func datesRoundToMilliseconds() throws {
        let value = PFValue.date(Date(timeIntervalSince1970: -1.0006))
        let text = try JSONTest.text(value)
        #expect(text == #"{"__type":"Date","iso":"1969-12-31T23:59:58.999Z"}"#)
        #expect(try JSONTest.read(text) == .date(Date(timeIntervalSince1970: -1.001)))
    }
}
