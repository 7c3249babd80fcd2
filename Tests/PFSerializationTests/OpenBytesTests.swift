import Foundation
import PFCBOR
import PFCompression
import PFCore
import PFFormats
import PFKeyedArchive
import PFPropertyList
import PFSerialization
import PFStores
import PFTestSupport
import PFTypedStream
import PFVersioning
import Testing

/// One table of inputs and the format each holds, checked through every entry point that
/// opens bytes: the detector itself, `FormatIO.read`, the keyed-archive container, versioned
/// documents and `Serialization.open` — so no two of them can disagree about what bytes are
/// (issue 22: three JSON heuristics used to).
@Suite struct DetectionTableTests {
    struct Row: CustomStringConvertible {
        var name: String
        var bytes: Data
        /// What the bytes are; `nil` for bytes no format claims.
        var format: DataFormat?
        /// Whether the bytes are a keyed archive (then every reader of archives reads them).
        var keyed = false

        var description: String { name }
    }

    static let shape: PFValue = ["name": "pfarchive", "list": [1, 2.5, "x"], "nested": ["ok": true]]

    static func rows() throws -> [Row] {
        let graph = try KeyedGraph(json: shape)
        var rows: [Row] = []
        for container in KeyedArchiveContainer.allCases {
            let archive = try KeyedArchive.archive(graph, container: container)
            rows.append(Row(name: "keyed archive in \(container)", bytes: archive, format: DataFormat(container), keyed: true))
        }
        let json = try KeyedArchive.archive(graph, container: .json)
        rows.append(Row(name: "keyed archive in JSON after white space", bytes: Data(" \n\t".utf8) + json, format: .json, keyed: true))
        let cbor = try KeyedArchive.archive(graph, container: .cbor)
        rows.append(Row(name: "keyed archive in self-described CBOR", bytes: Data([0xD9, 0xD9, 0xF7]) + cbor, format: .cbor, keyed: true))
        rows.append(Row(name: "typedstream", bytes: try TypedStream.encodeValue(["a": 1]), format: .typedstream))
        for text in ["[1,2]", "{\"a\":[]}", "\"text\"", "-1", "80", "8000", "true", "false", "null", "  \n[]"] {
            rows.append(Row(name: "JSON \(text)", bytes: Data(text.utf8), format: .json))
        }
        rows.append(Row(name: "JSON after a byte-order mark", bytes: Data([0xEF, 0xBB, 0xBF]) + Data("{}".utf8), format: .json))
        rows.append(Row(name: "JSON with a comment", bytes: Data("/* c */ [1]".utf8), format: .json))
        rows.append(Row(name: "CBOR map", bytes: try CBORWriter().write(["a": 1]), format: .cbor))
        rows.append(Row(name: "XML plist", bytes: try XMLPlistWriter().write(["a": 1]), format: .xmlplist))
        rows.append(Row(name: "binary plist", bytes: try BinaryPlistWriter().write(["a": 1]), format: .bplist))
        for text in ["hello", "<html></html>", "x", ""] {
            rows.append(Row(name: "not a format: \(text)", bytes: Data(text.utf8), format: nil))
        }
        return rows
    }

    @Test func everyEntryPointFindsTheSameFormat() throws {
        for row in try Self.rows() {
            #expect(FormatDetector.detect(row.bytes) == row.format, "\(row)")
            #expect(FormatDetector.container(row.bytes) == row.format?.treeFormat ?? .cbor, "\(row)")
            let found = try Serialization.open(row.bytes, limits: .default) { plain, compression throws(PFError) in
                (FormatDetector.detect(plain), compression)
            }
            #expect(found.value.0 == row.format && found.value.1 == nil && found.compression == nil, "\(row)")

            // Compressed, every entry point still finds it and names the compression.
            for compression in [CompressionFormat?.none, .gzip, .zlib] {
                let bytes = try Serialization.compress(row.bytes, as: compression)
                let what = "\(row) \(compression?.rawValue ?? "plain")"
                do {
                    let result = try FormatIO.read(bytes, options: .init(jsonMode: .lenient))
                    #expect(result.format == row.format, "\(what)")
                    #expect(result.compression == compression, "\(what)")
                } catch {
                    #expect(row.format == nil, "\(what): \(error)")
                }
                if row.keyed {
                    let (table, container) = try KeyedArchive.readTable(bytes)
                    #expect(DataFormat(container) == row.format, "\(what)")
                    #expect(try KeyedGraph(table: table).jsonValue() == Self.shape, "\(what)")
                    let document = try ArchiveDocument.read(bytes)
                    #expect(document.kind == .keyed(container), "\(what)")
                    #expect(document.compression == compression, "\(what)")
                    #expect(document.tree == Self.shape, "\(what)")
                } else if row.format == .typedstream {
                    #expect(try ArchiveDocument.read(bytes).kind == .typedstream, "\(what)")
                } else if row.format == .json, row.bytes.first != 0xEF, row.bytes.first != UInt8(ascii: "/") {
                    // Versioned documents read strict JSON; whatever JSON starts with is JSON to them.
                    let document = try ArchiveDocument.read(bytes)
                    #expect(document.kind == .json, "\(what)")
                    #expect(document.compression == compression, "\(what)")
                    #expect(try FormatIO.read(bytes).value == document.tree, "\(what)")
                }
            }
        }
    }

    /// Payloads in blobs take JSON from the same heuristic, objects and arrays only.
    @Test func payloadsUseTheSameJSONHeuristic() throws {
        for row in try Self.rows() where row.format == .json {
            let decoded = EmbeddedPayload.decode(row.bytes)
            let opensContainer = FormatDetector.jsonStart(row.bytes).map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") } ?? false
            if case .decoded = decoded.outcome {
                #expect(opensContainer, "\(row)")
            } else {
                #expect(!opensContainer || row.bytes.first == 0xEF, "\(row): \(decoded.outcome)")
            }
        }
    }
}

/// zlib's magic is two bytes with a 1-in-31 check: some plain inputs pass it (the JSON number
/// `80`, a CBOR text string of 94 bytes). Every entry point reads them as what they are, and
/// reports the inflate error only when they are not that either.
/// The file name is consulted only where the bytes cannot tell: a `.cbor` name makes bytes
/// without another format's magic CBOR, and nothing else changes what the bytes say.
@Suite struct NamedDetectionTests {
    @Test func aCBORNameDecidesOnlyWhatTheBytesCannot() {
        let scalar = Data([0x20])  // CBOR -1: no format's magic
        let text = Data([0x74] + Array("twenty characters ok".utf8))  // looks like JSON's `t`
        #expect(FormatDetector.detect(scalar) == nil)
        #expect(FormatDetector.detect(text) == .json)
        #expect(FormatDetector.detect(scalar, named: .cbor) == .cbor)
        #expect(FormatDetector.detect(text, named: .cbor) == .cbor)
        // Other names change nothing.
        #expect(FormatDetector.detect(scalar, named: .json) == nil)
        #expect(FormatDetector.detect(text, named: nil) == .json)
        #expect(FormatDetector.detect(Data([0x9F, 0xFF]), named: .json) == .cbor)
        // Magic wins over a `.cbor` name.
        #expect(FormatDetector.detect(Data("bplist00".utf8) + Data(count: 40), named: .cbor) == .bplist)
        #expect(FormatDetector.detect(Data("<?xml version=\"1.0\"?><plist/>".utf8), named: .cbor) == .xmlplist)
    }
}

@Suite struct ZlibLookalikeEntryPointTests {
    static let number = Data("80".utf8)

    static func cborText() throws -> Data {
        let bytes = try CBORWriter().write(.string(String(repeating: "z", count: 94)))
        #expect(Compression.detect(bytes) == .zlib, "the test needs a look-alike")
        return bytes
    }

    @Test func theLookalikesReallyLookLikeZlibAndDoNotInflate() throws {
        for bytes in [Self.number, try Self.cborText()] {
            #expect(Compression.detect(bytes) == .zlib)
            #expect(throws: PFError.self) { _ = try Compression.decompress(bytes, from: .zlib) }
        }
    }

    @Test func serializationOpenReadsThemAsTheyAre() throws {
        let opened = try Serialization.open(Self.number, limits: .default) { plain, compression throws(PFError) in
            (try Serialization.readTree(plain, as: .json), compression)
        }
        #expect(opened.value.0 == .int(80) && opened.value.1 == nil)
        #expect(opened.compression == nil && opened.plain == Self.number)
        // A reader that fails too leaves the inflate error standing: the bytes did claim zlib.
        do {
            _ = try Serialization.open(Self.number, limits: .default) { plain, _ throws(PFError) in
                try Serialization.readTree(plain, as: .bplist)
            }
            Issue.record("expected the inflate error")
        } catch {
            #expect(error.format == .zlib, "\(error)")
        }
    }

    @Test func formatIOReadsThem() throws {
        let number = try FormatIO.read(Self.number)
        #expect(number.value == .int(80) && number.format == .json && number.compression == nil)
        let text = try FormatIO.read(try Self.cborText(), options: .init(format: .cbor))
        #expect(text.value == .string(String(repeating: "z", count: 94)) && text.compression == nil)
    }

    @Test func versionedDocumentsReadThem() throws {
        let document = try ArchiveDocument.read(Self.number)
        #expect(document.kind == .json && document.tree == .int(80) && document.compression == nil)
        #expect(try document.write() == Self.number)
    }

    /// No keyed archive can look like zlib (a table opens a map or `{`), so the keyed readers
    /// report the inflate error for a look-alike, as for any other bytes that claim zlib.
    @Test func keyedReadersAndStoresReportTheInflateError() throws {
        for bytes in [Self.number, try Self.cborText()] {
            do {
                _ = try KeyedArchive.readTable(bytes)
                Issue.record("expected an error")
            } catch {
                #expect(error.format == .zlib, "\(error)")
            }
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-lookalike-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("store.archive")
            try bytes.write(to: file)
            #expect(throws: PFError.self) { _ = try KeyedArchiveStore(url: file).classNames() }
        }
    }

    @Test func payloadsInBlobsStayBytes() throws {
        for bytes in [Self.number, try Self.cborText()] {
            let result = EmbeddedPayload.decode(bytes)
            #expect(result.outcome == .bytes)
        }
    }

    @Test func realZlibErrorsStillSurfaceEverywhere() throws {
        let truncated = try Fixtures.data(Fixtures.hostile.appendingPathComponent("zlib_truncated.zlib"))
        #expect(Compression.detect(truncated) == .zlib)
        var errors: [PFError] = []
        do { _ = try FormatIO.read(truncated) } catch { errors.append(error) }
        do { _ = try KeyedArchive.readTable(truncated) } catch { errors.append(error) }
        do { _ = try ArchiveDocument.read(truncated) } catch { errors.append(error) }
        #expect(errors.count == 3)
        for error in errors { #expect(error.format == .zlib && error.code != .limitExceeded, "\(error)") }
    }

    @Test func theCallersLimitsBoundEveryOpen() throws {
        let limits = PFLimits(maxInputBytes: 1)
        var errors: [PFError] = []
        do { _ = try FormatIO.read(Self.number, options: .init(limits: limits)) } catch { errors.append(error) }
        do { _ = try ArchiveDocument.read(Self.number, limits: limits) } catch { errors.append(error) }
        do { _ = try KeyedArchive.readTable(Self.number, limits: limits) } catch { errors.append(error) }
        #expect(errors.count == 3)
        for error in errors { #expect(error.code == .limitExceeded && error.message.contains("maxInputBytes"), "\(error)") }
    }
}

/// A caller that inflated an input to look at it (`convert`'s streamed routes) hands the plain
/// bytes on; the whole read takes them instead of inflating again, under the same checks.
@Suite struct InflatedHandOnTests {
    static let plain = Data("[1,2,3]".utf8)

    @Test func theHandedOnBytesAreReadNotInflatedAgain() throws {
        let gzip = try Compression.compress(Self.plain, as: .gzip)
        // Bytes that differ from what the input inflates to show which were read.
        let handed = Data("{\"a\":1}".utf8)
        let result = try FormatIO.read(gzip, inflated: handed)
        #expect(result.value == ["a": 1])
        #expect(result.compression == .gzip)
        #expect(result.decoded == handed)
        #expect(try FormatIO.read(gzip).value == [1, 2, 3])
    }

    @Test func theMemoryBudgetAndEmptinessAreCheckedOnTheHandedOnBytes() throws {
        let big = Data("[".utf8) + Data(repeating: 0x20, count: 4096) + Data("1]".utf8)
        let gzip = try Compression.compress(big, as: .gzip)
        var options = FormatIO.ReadOptions()
        options.memoryBudget = MemoryBudget(maxBytes: 1024)
        #expect(throws: PFError.self) { try FormatIO.read(gzip, options: options, inflated: big) }
        do {
            _ = try FormatIO.read(gzip, options: options, inflated: big)
        } catch {
            #expect(error.code == .limitExceeded)
        }
        let empty = try Compression.compress(Data(), as: .gzip)
        var errors: [String] = []
        do { _ = try FormatIO.read(empty) } catch { errors.append(error.description) }
        do { _ = try FormatIO.read(empty, inflated: Data()) } catch { errors.append(error.description) }
        #expect(errors.count == 2 && errors[0] == errors[1], "\(errors)")
    }
}

/// Files read whole by the layer are bounded before they are read.
@Suite struct ReadFileTests {
    @Test func aFileOverTheLimitIsRefusedAndOneWithinIsRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfarchive-readfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("f.json")
        try Data(repeating: 0x20, count: 100).write(to: file)
        var limits = PFLimits.default
        limits.maxInputBytes = 100
        #expect(try Serialization.readFile(file, limits: limits, format: .input).count == 100)
        limits.maxInputBytes = 99
        do {
            _ = try Serialization.readFile(file, limits: limits, format: .input)
            Issue.record("expected maxInputBytes")
        } catch {
            #expect(error.code == .limitExceeded && error.format == .input)
        }
        for missing in [dir.appendingPathComponent("none"), dir] {
            do {
                _ = try Serialization.readFile(missing, limits: .default, format: .input)
                Issue.record("expected io")
            } catch {
                #expect(error.code == .io && error.message.contains(missing.path))
            }
        }
    }
}
