import Foundation
import PFCore
import PFPropertyList
import Testing

@Suite struct BinaryPlistWriterTests {
    let writer = BinaryPlistWriter()

    // MARK: - Golden bytes (identical to Python 3.11 plistlib.dumps(fmt=FMT_BINARY, sort_keys=False))

    static let goldens: [(PFValue, String)] = [
        (
            ["b": 1, "a": "x"] as PFValue,
            "62706c6973743030d2010203045162516110015178080d0f11130000000000000101000000000000000500000000000000000000000000000015"
        ),
        (
            [1, 1.0, true, "1", 1] as PFValue,
            "62706c6973743030a501020304011001233ff0000000000000095131080e10191a000000000000010100000000000000050000000000000000000000000000001c"
        ),
        (
            ["é😀", -1, PFValue.uint(UInt64.max), 3_000_000_000, PFValue.data(Data([0, 1]))] as PFValue,
            "62706c6973743030a501020304056300e9d83dde0013ffffffffffffffff140000000000000000ffffffffffffffff12b2d05e00420001080e151e2f340000000000000101000000000000000600000000000000000000000000000037"
        ),
        (
            PFValue.array((0..<15).map { PFValue.int($0) }),
            "62706c6973743030af100f0102030405060708090a0b0c0d0e0f1000100110021003100410051006100710081009100a100b100c100d100e081a1c1e20222426282a2c2e303234360000000000000101000000000000001000000000000000000000000000000038"
        ),
        (
            ["k": [PFValue.date(Date(timeIntervalSinceReferenceDate: -100))], "u": PFValue.uid(300)] as PFValue,
            "62706c6973743030d201020305516b5175a10433c05900000000000081012c080d0f11131c000000000000010100000000000000060000000000000000000000000000001f"
        ),
    ]

    @Test(arguments: goldens)
    func writesWhatPlistlibWrites(value: PFValue, hex: String) throws {
        #expect(BPlist.hex(try writer.write(value)) == hex)
    }

    @Test func integersUseTheSmallestWidthCFUses() throws {
        // Object 1 is the integer; its marker says the width.
        let cases: [(Int64, UInt8)] = [
            (0, 0x10), (255, 0x10), (256, 0x11), (65535, 0x11), (65536, 0x12), (4_294_967_295, 0x12),
            (4_294_967_296, 0x13), (Int64.max, 0x13), (-1, 0x13), (Int64.min, 0x13),
        ]
        for (v, marker) in cases {
            let data = try writer.write([.int(v)])
            #expect(data[10] == marker, "\(v)")
            #expect(try BinaryPlistReader().read(data) == [.int(v)])
        }
    }

    @Test func widthsGrowWithTheObjectCountAndTheFileSize() throws {
        let small = try BinaryPlistReader.info(writer.write(.array((0..<254).map { .int($0) })))
        #expect(small.numObjects == 255)
        #expect(small.objectRefSize == 1)
        let wide = try BinaryPlistReader.info(writer.write(.array((0..<255).map { .int($0) })))
        #expect(wide.numObjects == 256)
        #expect(wide.objectRefSize == 2)
        #expect(wide.offsetIntSize == 2)
        let many = try BinaryPlistReader.info(writer.write(.array((0..<70_000).map { .int($0) })))
        #expect(many.objectRefSize == 4)
        #expect(many.offsetIntSize == 4)
    }

    @Test func internsEqualScalarsByValueOnly() throws {
        let value: PFValue = [
            "a", "a", 1, 1, 1.0, 1.0, true, true, .double(0.0), .double(-0.0), .data(Data([1])), .data(Data([1])),
            .uid(1), .uid(1), .date(Date(timeIntervalSinceReferenceDate: 1)), .date(Date(timeIntervalSinceReferenceDate: 1)),
            [], [],
        ]
        // The root, 7 distinct scalars plus -0.0, two UIDs and two arrays (never shared).
        #expect(try BinaryPlistReader.info(writer.write(value)).numObjects == 1 + 8 + 2 + 2)
        #expect(try BinaryPlistReader().read(writer.write(value)) == value)
    }

    @Test func canonicallyEquivalentStringsStayDistinct() throws {
        // Swift's String == says these are equal; their scalars differ and must survive.
        let data = try writer.write(["\u{E9}", "e\u{301}"])
        #expect(try BinaryPlistReader.info(data).numObjects == 3)
        let back = try BinaryPlistReader().read(data).arrayValue ?? []
        #expect(back.map { $0.stringValue.map { Array($0.unicodeScalars) } } == [["\u{E9}"], ["e", "\u{301}"]])
    }

    @Test func keepsDictionaryKeyOrder() throws {
        let value: PFValue = .dictionary(["z": 1, "a": 2, "m": ["y": 1, "b": 2]])
        let back = try BinaryPlistReader().read(writer.write(value))
        #expect(back == value)
        #expect(back.dictionaryValue?.keys.elementsEqual(["z", "a", "m"]) == true)
    }

    // MARK: - Null policy and unrepresentable values

    @Test func nullIsAnErrorByDefaultNamingItsPath() {
        let value: PFValue = ["a": [1, ["b": nil]]]
        #expect(throws: PFError.self) { try writer.write(value) }
        do {
            _ = try writer.write(value)
        } catch {
            #expect(error.code == .unrepresentable)
            #expect(error.path?.description == "a[1].b")
            #expect(error.failure(as: BinaryPlistFailure.self) == .unwritableNull)
        }
    }

    @Test func nullPolicyDropLeavesNullsOut() throws {
        let dropping = BinaryPlistWriter(options: .init(nullPolicy: .drop))
        let value: PFValue = ["a": nil, "b": [1, nil, 2], "c": "x"]
        #expect(try BinaryPlistReader().read(dropping.write(value)) == ["b": [1, 2], "c": "x"])
        #expect(throws: PFError.self) { try dropping.write(nil) }
    }

    @Test func nullPolicyMarkerWritesZeroByte() throws {
        let marking = BinaryPlistWriter(options: .init(nullPolicy: .writeNullMarker))
        let data = try marking.write([nil, nil])
        #expect(BPlist.hex(data.prefix(12)) == "62706c6973743030a2010100")
        #expect(try BinaryPlistReader().read(data) == [nil, nil])
    }

    @Test func rejectsValuesCFCannotRead() {
        func failure(_ value: PFValue, _ writer: BinaryPlistWriter = BinaryPlistWriter()) -> PFError? {
            do {
                _ = try writer.write(value)
                return nil
            } catch { return error }
        }
        let uid = failure(["x": [.uid(UInt64(UInt32.max) + 1)]])
        #expect(uid?.code == .unrepresentable)
        #expect(uid?.path?.description == "x[0]")
        let date = failure([.date(Date(timeIntervalSinceReferenceDate: .nan))])
        #expect(date?.code == .unrepresentable)
        #expect(date?.path?.description == "[0]")
        let deep = failure([[[[1]]]], BinaryPlistWriter(options: .init(maxDepth: 3)))
        #expect(deep?.code == .limitExceeded)
        #expect(deep?.path?.description == "[0][0][0]")
        #expect(failure([[[1]]], BinaryPlistWriter(options: .init(maxDepth: 3))) == nil)
    }
}
