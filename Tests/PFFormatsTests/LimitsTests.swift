import Foundation
import OrderedCollections
import PFCBOR
import PFCompression
import PFCore
import PFFormats
import PFJSON
import PFParseExport
import PFSerialization
import PFTestSupport
import PFTypedStream
import Testing

/// One ``PFLimits`` value governs every reader: each budget, set low through the API, stops
/// each format's reader with `limitExceeded` naming the budget — and a value at the depth
/// limit survives everything done with it afterwards (writing, printing, comparing, freeing).
@Suite struct LimitsTests {
    /// The formats a value tree can be written in and read back from.
    static let formats: [DataFormat] = [.json, .bplist, .xmlplist, .cbor, .keyed, .typedstream]

    static func bytes(_ value: PFValue, as format: DataFormat) throws -> Data {
        try FormatIO.write(value, as: format)
    }

    /// The error reading `bytes` as `format` under `limits` throws, or nil.
    static func readError(_ bytes: Data, as format: DataFormat?, _ limits: PFLimits) -> PFError? {
        do {
            _ = try FormatIO.read(bytes, options: .init(format: format, limits: limits))
            return nil
        } catch {
            return error
        }
    }

    static func expectLimit(
        _ name: String, _ bytes: Data, as format: DataFormat?, _ limits: PFLimits, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = readError(bytes, as: format, limits)
        #expect(error?.code == .limitExceeded, "\(format?.rawValue ?? "detected"): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.message.contains(name) == true, "\(format?.rawValue ?? "detected"): \(String(describing: error))", sourceLocation: sourceLocation)
    }

    /// `depth` levels of containers, the innermost empty (typedstream counts every object,
    /// a number or string leaf included, so a scalar leaf would be one level more there).
    static func nested(_ depth: Int) -> PFValue {
        var value: PFValue = .array([])
        for level in 1..<depth { value = level % 2 == 0 ? .array([value]) : .dictionary(["k": value]) }
        return value
    }

    // MARK: - Each budget, each format

    @Test(arguments: formats)
    func maxDepth(_ format: DataFormat) throws {
        let bytes = try Self.bytes(Self.nested(40), as: format)
        Self.expectLimit("maxDepth", bytes, as: format, PFLimits(maxDepth: 10))
        #expect(Self.readError(bytes, as: format, PFLimits(maxDepth: 60)) == nil)
    }

    @Test(arguments: formats)
    func maxCollectionCount(_ format: DataFormat) throws {
        let bytes = try Self.bytes(.array((0..<50).map { .int(Int64($0)) }), as: format)
        Self.expectLimit("maxCollectionCount", bytes, as: format, PFLimits(maxCollectionCount: 20))
        let dictionary = PFValue.dictionary(OrderedDictionary(uniqueKeysWithValues: (0..<50).map { ("k\($0)", PFValue.int(Int64($0))) }))
        Self.expectLimit("maxCollectionCount", try Self.bytes(dictionary, as: format), as: format, PFLimits(maxCollectionCount: 20))
    }

    @Test(arguments: formats)
    func maxStringBytes(_ format: DataFormat) throws {
        let bytes = try Self.bytes(.array([.string(String(repeating: "x", count: 300))]), as: format)
        Self.expectLimit("maxStringBytes", bytes, as: format, PFLimits(maxStringBytes: 100))
        let data = try Self.bytes(.array([.data(Data(count: 300))]), as: format)
        Self.expectLimit("maxStringBytes", data, as: format, PFLimits(maxStringBytes: 100))
    }

    /// Many small collections: no single one is long or deep, but together they pass maxNodes.
    @Test(arguments: formats)
    func maxNodes(_ format: DataFormat) throws {
        let rows = PFValue.array((0..<40).map { i in .array([.int(Int64(i)), .string("r"), .bool(true)]) })
        let bytes = try Self.bytes(rows, as: format)
        Self.expectLimit("maxNodes", bytes, as: format, PFLimits(maxNodes: 60))
    }

    @Test(arguments: formats + [.parse])
    func maxInputBytes(_ format: DataFormat) throws {
        let bytes = format == .parse ? Data(#"{"results":[{"objectId":"a1","score":1}]}"#.utf8) : try Self.bytes(.array([1, 2, 3]), as: format)
        Self.expectLimit("maxInputBytes", bytes, as: format, PFLimits(maxInputBytes: bytes.count - 1))
        #expect(Self.readError(bytes, as: format, PFLimits(maxInputBytes: bytes.count)) == nil)
    }

    @Test func parseExportsHonourDepthAndCounts() throws {
        let deep = Data((#"{"results":[{"objectId":"a1","v":"# + String(repeating: "[", count: 30) + String(repeating: "]", count: 30) + "}]}").utf8)
        Self.expectLimit("maxDepth", deep, as: .parse, PFLimits(maxDepth: 10))
        let many = Data((#"{"results":["# + (0..<30).map { #"{"objectId":"o\#($0)"}"# }.joined(separator: ",") + "]}").utf8)
        Self.expectLimit("maxCollectionCount", many, as: .parse, PFLimits(maxCollectionCount: 10))
        #expect(throws: PFError.self) { _ = try ParseExport.rows(fromJSON: deep, limits: PFLimits(maxDepth: 10)) }
    }

    // MARK: - Compression

    @Test func decompressedSizeAndRatioAreBounded() throws {
        let text = Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919 % 251) })
        for format in [CompressionFormat.gzip, .zlib] {
            let packed = try Compression.compress(try Self.bytes(.data(text), as: .json), as: format)
            Self.expectLimit("maxDecompressedBytes", packed, as: .json, PFLimits(maxDecompressedBytes: 2000))
            #expect(Self.readError(packed, as: .json, .default) == nil)
            // 3 MiB of one repeated byte: past the first MiB, the ratio check fires.
            let bomb = try Compression.compress(Data(repeating: 0x20, count: 3 << 20) + Data("1".utf8), as: format)
            Self.expectLimit("maxCompressionRatio", bomb, as: .json, PFLimits(maxCompressionRatio: 50))
        }
    }

    // MARK: - The deepest value the limits allow

    /// Every format reads a value exactly `maxDepth` deep (the default, 512) and refuses one
    /// level more; the value read is then written in every format, printed, hashed, compared
    /// and freed without running out of stack.
    @Test(arguments: [DataFormat.json, .bplist, .xmlplist, .cbor, .typedstream])
    func valueAtTheDefaultDepthLimitSurvivesEverything(_ format: DataFormat) throws {
        let depth = PFLimits.default.maxDepth
        let atLimit = Self.nested(depth)
        let bytes = try Self.bytes(atLimit, as: format)
        let value = try FormatIO.read(bytes, options: .init(format: format)).value
        #expect(value == atLimit)
        #expect(value.hashValue == atLimit.hashValue)
        #expect(value.description.count > depth)
        for other in Self.formats where other != .keyed {
            _ = try FormatIO.write(value, as: other, options: .init(pretty: true))
        }
        // One level more (the writers refuse to make it, so wrap the JSON text by hand).
        let tooDeep = Data("[".utf8) + (try Self.bytes(atLimit, as: .json)) + Data("]".utf8)
        Self.expectLimit("maxDepth", tooDeep, as: .json, .default)
    }

    /// 100,000 levels are refused by every reader before the tree is built: the error comes
    /// from the depth budget, so nothing that deep ever reaches a recursive release.
    @Test(arguments: [DataFormat.json, .xmlplist, .cbor, .parse])
    func hundredThousandLevelsAreRefusedBeforeTheyAreBuilt(_ format: DataFormat) throws {
        let n = 100_000
        let bytes: Data
        switch format {
        case .json: bytes = Data((String(repeating: "[", count: n) + String(repeating: "]", count: n)).utf8)
        case .parse: bytes = Data((#"{"results":[{"objectId":"a","v":"# + String(repeating: "[", count: n) + String(repeating: "]", count: n) + "}]}").utf8)
        case .xmlplist:
            bytes = Data((#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
                + String(repeating: "<array>", count: n) + String(repeating: "</array>", count: n) + "</plist>").utf8)
        default: bytes = Data(repeating: 0x81, count: n) + Data([0x01])
        }
        Self.expectLimit("maxDepth", bytes, as: format, .default)
        Self.expectLimit("maxDepth", try Compression.compress(bytes, as: .gzip), as: format, .default)
    }

    /// (ts_deep_nesting_100k.typedstream is 100,000 NEW tags where a class name belongs: a
    /// syntax error at byte 22, before any nesting; the typedstream case is made below.)
    @Test(arguments: ["bplist_deep_nesting_100k.bplist", "ka_deep_nesting_20k.bplist"])
    func deepHostileArchivesAreRefusedBeforeTheyAreBuilt(_ name: String) throws {
        let bytes = try Fixtures.data(Fixtures.hostile.appendingPathComponent(name))
        let format: DataFormat = name.hasPrefix("ka_") ? .keyed : name.hasPrefix("ts_") ? .typedstream : .bplist
        Self.expectLimit("maxDepth", bytes, as: format, .default)
    }

    @Test func deepTypedStreamIsRefusedBeforeItIsBuilt() throws {
        // Just past the limit: the writer recurses per level, so a test cannot build much deeper.
        let bytes = try TypedStream.encodeValue(Self.nested(600), limits: PFLimits(maxDepth: 1_000))
        Self.expectLimit("maxDepth", bytes, as: .typedstream, .default)
    }

    /// An exponentially shared keyed graph (each level holds the next twice) is rendered
    /// with `$ref`s, in linear size; a budget on nodes still bounds it.
    @Test func sharedKeyedGraphIsBoundedWhenExpanded() throws {
        let bytes = try Fixtures.data(Fixtures.hostile.appendingPathComponent("ka_dag_exponential.bplist"))
        let value = try FormatIO.read(bytes, options: .init(format: .keyed)).value
        let json = try JSONWriter().write(value)
        #expect(json.count < 10_000)
        Self.expectLimit("maxNodes", bytes, as: .keyed, PFLimits(maxNodes: 20))
    }
}

/// Found by DifferentialTests: a top-level CBOR scalar whose first two bytes pass zlib's
/// header check (a text string of 63 bytes starts 78 3F) was inflated — and failed — instead
/// of being read as CBOR.
@Suite struct ZlibLookalikeTests {
    @Test(arguments: [63, 94, 125])
    func cborTextThatLooksLikeZlibReadsAsCBOR(_ length: Int) throws {
        let value = PFValue.string(String(repeating: "z", count: length))
        let bytes = try CBORWriter().write(value)
        #expect(Compression.detect(bytes) == .zlib, "the test needs a look-alike")
        let result = try FormatIO.read(bytes, options: .init(format: .cbor))
        #expect(result.value == value)
        #expect(result.compression == nil)
    }

    @Test func realZlibErrorsStillSurface() throws {
        let truncated = try Fixtures.data(Fixtures.hostile.appendingPathComponent("zlib_truncated.zlib"))
        #expect(throws: PFError.self) { _ = try FormatIO.read(truncated, options: .init(format: .cbor)) }
        #expect(throws: PFError.self) { _ = try FormatIO.read(truncated) }
    }
}
