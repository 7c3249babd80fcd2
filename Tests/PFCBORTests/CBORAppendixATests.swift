import Foundation
import PFCBOR
import PFCore
import Testing

// RFC 8949 Appendix A: every example, decoded, and (when pfarchive writes that form) encoded
// byte for byte with the canonical writer.
@Suite("RFC 8949 Appendix A")
struct CBORAppendixATests {
    /// Examples that read to a value and that the canonical writer writes back identically.
    static let roundTrip: [(String, PFValue)] = [
        ("00", 0), ("01", 1), ("0a", 10), ("17", 23), ("1818", 24), ("1819", 25), ("1864", 100),
        ("1903e8", 1000), ("1a000f4240", 1_000_000), ("1b000000e8d4a51000", 1_000_000_000_000),
        ("1bffffffffffffffff", .uint(UInt64.max)),
        ("20", -1), ("29", -10), ("3863", -100), ("3903e7", -1000),
        ("f90000", .double(0.0)), ("f98000", .double(-0.0)), ("f93c00", 1.0), ("fb3ff199999999999a", 1.1),
        ("f93e00", 1.5), ("f97bff", 65504.0), ("fa47c35000", 100000.0), ("fa7f7fffff", 3.4028234663852886e+38),
        ("fb7e37e43c8800759c", 1.0e+300), ("f90001", 5.960464477539063e-8), ("f90400", 0.00006103515625),
        ("f9c400", -4.0), ("fbc010666666666666", -4.1),
        ("f97c00", .double(.infinity)), ("f97e00", .double(.nan)), ("f9fc00", .double(-.infinity)),
        ("f4", false), ("f5", true), ("f6", nil),
        ("c11a514b67b0", .date(Date(timeIntervalSince1970: 1_363_896_240))),
        ("c1fb41d452d9ec200000", .date(Date(timeIntervalSince1970: 1_363_896_240.5))),
        ("40", .data(Data())), ("4401020304", .data(Data([1, 2, 3, 4]))),
        ("60", ""), ("6161", "a"), ("6449455446", "IETF"), ("62225c", "\"\\"), ("62c3bc", "\u{00fc}"),
        ("63e6b0b4", "\u{6c34}"), ("64f0908591", "\u{10151}"),
        ("80", []), ("83010203", [1, 2, 3]), ("8301820203820405", [1, [2, 3], [4, 5]]),
        (
            "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
            .array((1...25).map { PFValue.int(Int64($0)) })
        ),
        ("a0", [:]), ("a26161016162820203", ["a": 1, "b": [2, 3]]), ("826161a161626163", ["a", ["b": "c"]]),
        ("a56161614161626142616361436164614461656145", ["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"]),
    ]

    /// Examples that read to a value but that pfarchive writes differently (other float
    /// widths, undefined, ignored tags, tag 0, indefinite lengths).
    static let readOnly: [(String, PFValue)] = [
        ("fa7f800000", .double(.infinity)), ("fa7fc00000", .double(.nan)), ("faff800000", .double(-.infinity)),
        ("fb7ff0000000000000", .double(.infinity)), ("fb7ff8000000000000", .double(.nan)),
        ("fbfff0000000000000", .double(-.infinity)),
        ("f7", nil),
        ("c074323031332d30332d32315432303a30343a30305a", .date(Date(timeIntervalSince1970: 1_363_896_240))),
        ("d74401020304", .data(Data([1, 2, 3, 4]))), ("d818456449455446", .data(hexBytes("6449455446"))),
        ("d82076687474703a2f2f7777772e6578616d706c652e636f6d", "http://www.example.com"),
        ("5f42010243030405ff", .data(Data([1, 2, 3, 4, 5]))), ("7f657374726561646d696e67ff", "streaming"),
        ("9fff", []), ("9f018202039f0405ffff", [1, [2, 3], [4, 5]]), ("9f01820203820405ff", [1, [2, 3], [4, 5]]),
        ("83018202039f0405ff", [1, [2, 3], [4, 5]]), ("83019f0203ff820405", [1, [2, 3], [4, 5]]),
        (
            "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
            .array((1...25).map { PFValue.int(Int64($0)) })
        ),
        ("bf61610161629f0203ffff", ["a": 1, "b": [2, 3]]), ("826161bf61626163ff", ["a", ["b": "c"]]),
        ("bf6346756ef563416d7421ff", ["Fun": true, "Amt": -2]),
    ]

    /// Examples that are valid CBOR but outside pfarchive's value model, with the error code.
    static let refused: [(String, PFError.Code, Int)] = [
        ("c249010000000000000000", .unsupported, 0),  // 2^64, a bignum wider than 64 bits
        ("3bffffffffffffffff", .invalidValue, 0),  // -2^64, below Int64.min
        ("c349010000000000000000", .unsupported, 0),  // -2^64 - 1 as a bignum
        ("f0", .unsupported, 0),  // simple(16)
        ("f8ff", .unsupported, 0),  // simple(255)
        ("a201020304", .unsupported, 1),  // integer map keys: the first key
    ]

    @Test func decodesExamples() throws {
        for (hex, expected) in Self.roundTrip + Self.readOnly {
            let value = try CBORReader().read(hexBytes(hex))
            #expect(value == expected, "\(hex)")
        }
    }

    @Test func encodesExamplesCanonically() throws {
        let writer = CBORWriter(options: .init(canonical: true))
        for (hex, value) in Self.roundTrip {
            #expect(hexString(try writer.write(value)) == hex, "\(value.scalarDescription)")
        }
    }

    @Test func refusesExamplesOutsideTheModel() {
        for (hex, code, offset) in Self.refused {
            let error = readError(hexBytes(hex))
            #expect(error?.code == code, "\(hex): \(String(describing: error))")
            #expect(error?.location?.offset == offset, "\(hex)")
        }
    }

    @Test func defaultWriterUsesFloat64AndPreferredIntegers() throws {
        let writer = CBORWriter()
        #expect(hexString(try writer.write(1.5)) == "fb3ff8000000000000")
        #expect(hexString(try writer.write(.double(.nan))) == "fb7ff8000000000000")
        #expect(hexString(try writer.write(1_000_000)) == "1a000f4240")
        #expect(hexString(try writer.write(.int(Int64.min))) == "3b7fffffffffffffff")
    }
}
