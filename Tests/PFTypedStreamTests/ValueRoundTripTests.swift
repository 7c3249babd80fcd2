import Foundation
import PFCore
import PFTestSupport
import PFTypedStream
import PropertyBased
import Testing

/// Value trees through `TypedStream.encodeValue` and `decodeValue`, plus the limits.
@Suite struct ValueRoundTripTests {
    /// What a typedstream of Foundation objects carries: everything but UIDs.
    static var shape: ValueShape {
        var s = ValueShape()
        s.uid = false
        s.nonFiniteDoubles = true
        return s
    }

    @Test func randomTreesRoundTrip() async {
        await propertyCheck(count: 200, input: ValueGen.tree(Self.shape)) { value in
            let data = try TypedStream.encodeValue(value)
            #expect(TypedStream.hasMagic(data))
            #expect(try TypedStream.decodeValue(data) == value)
        }
    }

    @Test func headerIsVersion4StreamtypedSystem1000() throws {
        let data = try TypedStream.encodeValue(.string("hello"))
        // The same bytes as the corpus baseline and Apple's NSString layout.
        #expect(data == (try Fixtures.data(Fixtures.hostile.appendingPathComponent("ts_valid_nsstring_guess.typedstream"))))
        let info = try TypedStream.info(data)
        #expect(info.header == .current)
        #expect(info.classChains == [[ClassicClassVersion("NSString", version: 1), ClassicClassVersion("NSObject")]])
    }

    @Test func bigEndianStreamsAreRead() throws {
        // "typedstream" signature: multi-byte integers are big-endian (system version 1000 = 03 E8).
        var bytes: [UInt8] = [4, 11] + Array("typedstream".utf8) + [0x81, 0x03, 0xE8]
        bytes += [0x84, 0x01, UInt8(ascii: "i"), 0x81, 0x01, 0x02]  // i = 258
        bytes += [0x84, 0x01, UInt8(ascii: "d"), 0x83] + withUnsafeBytes(of: (1.5).bitPattern.bigEndian, Array.init)
        let info = try TypedStream.info(Data(bytes))
        #expect(info.header == TypedStreamHeader(streamerVersion: 4, bigEndian: true, systemVersion: 1000))
        #expect(try TypedStream.decodeValue(Data(bytes)) == [258, 1.5])
    }

    @Test func eightByteIntegersAndUnsignedRoundTrip() throws {
        let value: PFValue = [.int(-9_000_000_000), .uint(UInt64.max), .int(Int64.min), .bool(false), .double(-0.0)]
        let data = try TypedStream.encodeValue(value)
        #expect(data.contains(0x87))
        #expect(try TypedStream.decodeValue(data) == value)
    }

    @Test func depthLimitOnARealDeepStream() throws {
        var value: PFValue = .string("leaf")
        for _ in 0..<40 { value = .array([value]) }
        let data = try TypedStream.encodeValue(value)
        #expect(throws: PFError.self) { _ = try TypedStream.decodeValue(data, limits: PFLimits(maxDepth: 20)) }
        do {
            _ = try TypedStream.decodeValue(data, limits: PFLimits(maxDepth: 20))
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("maxDepth"))
        }
        #expect(try TypedStream.decodeValue(data) == value)
        // Writing is bounded too.
        #expect(throws: PFError.self) { _ = try TypedStream.encodeValue(value, limits: PFLimits(maxDepth: 10)) }
    }

    @Test func claimedArrayCountsAreCheckedBeforeAllocating() throws {
        // A group of type [2000000000c] with 3 bytes present.
        let enc = Array("[2000000000c]".utf8)
        let bytes: [UInt8] = [4, 11] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03, 0x84, UInt8(enc.count)] + enc + [1, 2, 3]
        do {
            _ = try TypedStream.decodeValue(Data(bytes))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .truncated || error.code == .limitExceeded)
        }
        let many = Array("[9000000i]".utf8)
        let bytes2: [UInt8] = [4, 11] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03, 0x84, UInt8(many.count)] + many + [1]
        do {
            _ = try TypedStream.decodeValue(Data(bytes2))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .truncated)
            #expect(error.location?.offset == 28)
        }
    }

    @Test func uidIsUnrepresentable() {
        #expect(throws: PFError.self) { _ = try TypedStream.encodeValue(.uid(3)) }
    }

    @Test func everyTruncationOfAValidStreamFailsCleanly() throws {
        let data = try TypedStream.encodeValue(["k": [1, "two", 3.5, .null, .data(Data([1, 2])), .date(Date(timeIntervalSince1970: 0))]])
        for length in 0..<data.count {
            #expect(throws: PFError.self) { _ = try TypedStream.decodeValue(data.prefix(length)) }
        }
    }
}
