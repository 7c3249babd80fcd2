import Foundation
import PFCore
import PFTestSupport
import Testing

/// The typed error vocabulary: format names, failure cases, the one path prefixer, the one
/// coding key and the Codable bridges' error policy.
@Suite struct PFErrorTests {
    @Test func formatNamesAreTheOnesMessagesHaveAlwaysUsed() {
        // The CLI prints `<format>: <message>`; these names must not change.
        let names: [PFError.Format: String] = [
            .json: "JSON", .bplist: "bplist", .xmlPlist: "XML plist", .cbor: "CBOR", .typedstream: "typedstream",
            .keyedArchive: "keyed archive", .keyedJSON: "keyed JSON", .zip: "zip", .zlib: "zlib", .gzip: "gzip",
            .deflate: "deflate", .input: "input", .output: "output", .keyPath: "key path", .jsonPointer: "JSON Pointer",
            .jsonPatch: "JSON Patch", .diff: "diff", .migration: "migration", .schema: "schema",
            .coreData: "Core Data", .coreDataModel: "Core Data model", .parse: "Parse", .parseGraph: "parse",
            .graphCopy: "graph copy", .copyRules: "copy rules", .store: "store", .storeArchive: "store archive",
            .parseExport: "Parse export", .mongoShape: "Mongo shape", .sqlite: "SQLite", .postgres: "postgres", .realm: "Realm",
        ]
        #expect(Set(names.keys) == Set(PFError.Format.allCases))
        for (format, name) in names { #expect(format.description == name) }
        let error = PFError(.syntax, format: .xmlPlist, "bad", offset: 3)
        #expect(error.description == "XML plist: bad at byte 3")
    }

    @Test func anErrorMadeFromAFailureCarriesTheCase() {
        let error = PFLimits.exceeded("maxDepth", 7, format: .json, offset: 2)
        #expect(error.code == .limitExceeded)
        #expect(error.failure(as: PFCoreFailure.self) == .limitExceeded(limit: "maxDepth", value: 7))
        #expect(error.description == "JSON: input exceeds maxDepth (7); raise the limit only for trusted input at byte 2")
        // At the deepest nesting supported there is no limit left to raise (--max-depth past it is refused).
        #expect(PFLimits.exceeded("maxDepth", 512, format: .json).message == "input exceeds maxDepth (512), the deepest nesting pfarchive supports")
        // Same text without the case is a different error; a different case is too.
        #expect(error != PFError(.limitExceeded, format: .json, error.message, offset: 2))
        #expect(error != PFLimits.exceeded("maxDepth", 8, format: .json, offset: 2))
        #expect(error == PFLimits.exceeded("maxDepth", 7, format: .json, offset: 2))
        do {
            _ = try PFKeyPath(parsing: "a..b")
            Issue.record("parsed")
        } catch {
            #expect(error.failure(as: PFCoreFailure.self) == .badKeyPath("empty key", text: "a..b"))
            #expect(error.format == .keyPath)
        }
    }

    @Test func prefixingBuildsThePathOutermostFirst() {
        let inner = PFError(.invalidValue, format: .cbor, "bad", path: [.key("c")])
        let error = inner.prefixed(.index(2)).prefixed(.key("a"))
        #expect(error.path?.description == "a[2].c")
        #expect(PFError(.invalidValue, format: .cbor, "bad").prefixed(by: [.key("x"), .index(0)]).path?.description == "x[0]")
    }

    @Test func oneCodingKeySpellsIndicesAsSwiftFoundationDoes() {
        let path: PFKeyPath = [.key("results"), .index(3), .key("score")]
        let keys = path.codingKeys
        #expect(keys.map(\.stringValue) == ["results", "Index 3", "score"])
        #expect(keys.map(\.intValue) == [nil, 3, nil])
        #expect(PFKeyPath(codingPath: keys) == path)
        #expect(PFCodingPath.root.appending(key: "a").appending(index: 1).codingKeys.map(\.stringValue) == ["a", "Index 1"])
    }

    @Test func codableBridgesCarryThePFErrorAsTheUnderlyingError() {
        let error = PFError(.invalidValue, format: .keyedArchive, "bad", path: [.key("a"), .index(1)])
        let decoding = error.decodingError()
        guard case .dataCorrupted(let context) = decoding else {
            Issue.record("not dataCorrupted: \(decoding)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["a", "Index 1"])
        #expect(context.debugDescription == error.description)
        #expect(PFError(unwrapping: decoding) == error)
        #expect(PFError(unwrapping: error.typeMismatch(Int.self)) == error)
        #expect(PFError(unwrapping: error.encodingError(1)) == error)
        #expect(PFError(unwrapping: error) == error)
        #expect(PFError(unwrapping: CocoaError(.fileNoSuchFile)) == nil)
    }
}
