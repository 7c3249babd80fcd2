import Foundation
import PFCore
import PFJSON
import Testing

/// The documents the scanner's tape cannot hold (keys with escapes, beyond ASCII or holding
/// U+0000, integers beyond 64 bits, lenient mode, a `maxStringBytes` budget below the input's
/// size) are read by json-c and viewed through a tape copied from its tree: each is checked
/// here through ``JSONNode`` against the values, order, counts and errors it must show.
@Suite struct NodeViewCopiedTreeTests {
    static let plain = JSONReader(options: .init(typedValues: false))
    static let lenient = JSONReader(options: .init(mode: .lenient, typedValues: false))
    static let rejecting: JSONReader = {
        var options = JSONReader.Options(typedValues: false)
        options.rejectDuplicateKeys = true
        return JSONReader(options: options)
    }()

    /// The members of the root object as (key, walked value) pairs, in the view's order.
    static func members(_ text: String, _ reader: JSONReader = plain) throws -> [(String, JSONNode.Content)] {
        try reader.withDocument(Data(text.utf8)) { root throws(PFError) in
            var out: [(String, JSONNode.Content)] = []
            root.forEachMember { key, value in out.append((key, value.content)) }
            #expect(root.count == out.count)
            return out
        }
    }

    static func int(_ content: JSONNode.Content) -> Int64? {
        if case .int(let i) = content { return i }
        return nil
    }

    @Test func escapedKeysAreDecodedAndMerged() throws {
        let text = #"{"a\"b": 1, "\u0041": 2, "t\tab": 3, "A": 4}"#
        let found = try Self.members(text)
        #expect(found.map(\.0) == ["a\"b", "A", "t\tab"])
        #expect(found.map { Self.int($0.1) } == [1, 4, 3])
        try Self.plain.withDocument(Data(text.utf8)) { root throws(PFError) in
            #expect(root.member("A")?.intValue == 4)
            #expect(root.member("a\"b")?.intValue == 1)
            #expect(root.member("t\tab")?.intValue == 3)
            #expect(root.member("\\u0041") == nil)
            #expect(try root.value() == ["a\"b": 1, "A": 4, "t\tab": 3])
        }
    }

    @Test func nonASCIIKeysInBothNormalizationsAreOneKey() throws {
        // Escaped and raw UTF-8, precomposed first and decomposed first.
        for text in [#"{"caf\u00e9": 1, "x": 0, "cafe\u0301": 2}"#, "{\"cafe\u{301}\": 1, \"x\": 0, \"caf\u{E9}\": 2}"] {
            let found = try Self.members(text)
            #expect(found.count == 2, "\(text)")
            #expect(found.first?.0 == "café" && found.first.flatMap { Self.int($0.1) } == 2, "\(text)")
            try Self.plain.withDocument(Data(text.utf8)) { root throws(PFError) in
                #expect(root.member("caf\u{E9}")?.intValue == 2)
                #expect(root.member("cafe\u{301}")?.intValue == 2)
                #expect(root.member("x")?.intValue == 0)
                #expect(root.member("cafe") == nil)
            }
        }
        // KELVIN SIGN is canonically "K": an ASCII name finds a key beyond ASCII.
        try Self.plain.withDocument(Data(#"{"\u212Aey": 1, "z": 2}"#.utf8)) { root throws(PFError) in
            #expect(root.member("Key")?.intValue == 1)
            #expect(root.member("\u{212A}ey")?.intValue == 1)
            #expect(root.member("z")?.intValue == 2)
        }
    }

    @Test func keysHoldingNULAreWhole() throws {
        let text = #"{"a\u0000b": 1, "a": 2, "\u0000": 3, "in": {"\u0000": 4, "\u0000": 5}}"#
        let found = try Self.members(text)
        #expect(found.map(\.0) == ["a\u{0}b", "a", "\u{0}", "in"])
        try Self.plain.withDocument(Data(text.utf8)) { root throws(PFError) in
            #expect(root.member("a\u{0}b")?.intValue == 1)
            #expect(root.member("a")?.intValue == 2)
            #expect(root.member("\u{0}")?.intValue == 3)
            #expect(root.member("in")?.count == 1)
            #expect(root.member("in")?.member("\u{0}")?.intValue == 5)
        }
    }

    @Test func repeatedKeysOfEachKindAreRejectedWhenAsked() {
        for text in [#"{"k": 1, "\u006b": 2}"#, #"{"caf\u00e9": 1, "cafe\u0301": 2}"#, #"{"\u0000": 1, "\u0000": 2}"#,
                     #"{"a": {"é": 1, "\u00e9": 2}}"#] {
            do {
                _ = try Self.rejecting.withDocument(Data(text.utf8)) { _ throws(PFError) in 0 }
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.failure(as: JSONFailure.self) == .duplicateKey(members: 2, distinct: 1), "\(text)")
            }
        }
    }

    @Test func wideIntegersAreDoublesAndUIntsStayUInts() throws {
        let text = "[18446744073709551615, 18446744073709551616, -9223372036854775809, 9223372036854775808, -1, 0.5]"
        // Refused by default, as a read refuses them.
        do {
            _ = try Self.plain.withDocument(Data(text.utf8)) { _ throws(PFError) in 0 }
            Issue.record("accepted an integer beyond 64 bits")
        } catch {
            #expect(error.code == .invalidValue && error.location?.offset == 23)
        }
        // Read as doubles (the option the PostgreSQL store reads jsonb with).
        var options = JSONReader.Options(typedValues: false)
        options.wideIntegersAsDoubles = true
        try JSONReader(options: options).withDocument(Data(text.utf8)) { root throws(PFError) in
            #expect(root.count == 6)
            #expect(root.element(at: 0)?.uintValue == UInt64.max && root.element(at: 0)?.kind == .uint)
            #expect(root.element(at: 1)?.kind == .double && root.element(at: 1)?.doubleValue == 18446744073709551616.0)
            #expect(root.element(at: 2)?.kind == .double && root.element(at: 2)?.doubleValue == -9223372036854775809.0)
            #expect(root.element(at: 3)?.uintValue == 9223372036854775808)
            #expect(root.element(at: 4)?.intValue == -1 && root.element(at: 4)?.doubleValue == -1)
            #expect(root.element(at: 5)?.doubleValue == 0.5 && root.element(at: 5)?.intValue == nil)
            #expect(try root.value() == [.uint(UInt64.max), 18446744073709551616.0, -9223372036854775809.0,
                                         .uint(9223372036854775808), -1, 0.5])
        }
    }

    @Test func lenientDocumentsAreViewed() throws {
        let text = "{'a': [1, 2,], /* note */ \"b\": 'x\\ty', \"c\": {\"d\": true, \"d\": null}, \"s\": \"caf\u{E9}\",}"
        try Self.lenient.withDocument(Data(text.utf8)) { root throws(PFError) in
            #expect(root.count == 4)
            #expect(root.member("a")?.count == 2 && root.member("a")?.element(at: 1)?.intValue == 2)
            #expect(root.member("b")?.stringValue == "x\ty")
            #expect(root.member("c")?.count == 1 && root.member("c")?.member("d")?.isNull == true)
            #expect(root.member("s")?.withStringBytes { Array($0) } == Array("café".utf8))
            #expect(try root.value() == (try Self.lenient.read(Data(text.utf8))))
        }
        // Invalid UTF-8 (lenient only): the bytes as they are, the string repaired.
        try Self.lenient.withDocument(Data([0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D])) { root throws(PFError) in
            #expect(root.element(at: 0)?.withStringBytes { Array($0) } == [0x61, 0xFF])
            #expect(root.element(at: 0)?.stringValue == "a\u{FFFD}")
        }
    }

    @Test func aStringBudgetBelowTheInputIsEnforcedBeforeTheView() throws {
        var options = JSONReader.Options(typedValues: false)
        options.limits.maxStringBytes = 8
        let reader = JSONReader(options: options)
        #expect(try reader.withDocument(Data(#"{"s": "12345678", "t": "a\"b"}"#.utf8)) { root throws(PFError) in
            root.member("s")?.stringValue == "12345678" && root.member("t")?.stringValue == "a\"b"
        })
        var opened = false
        do {
            _ = try reader.withDocument(Data(#"{"s": "123456789"}"#.utf8)) { _ throws(PFError) in opened = true }
            Issue.record("accepted a string above the budget")
        } catch {
            #expect(error.code == .limitExceeded)
        }
        #expect(!opened)
    }

    /// Nodes of a copied document and of a scanned one, read in turn through one session,
    /// each show their own document (the side buffer and the tape are reused).
    @Test func aSessionAlternatesCopiedAndScannedDocuments() throws {
        let session = JSONReader.Session(reader: Self.plain)
        for round in 0..<3 {
            let copied = #"{"k\u00e9y": "v\#(round)", "n": \#(round)}"#
            let scanned = #"{"key": "w\#(round)", "n": \#(round + 10)}"#
            try session.withDocument(Data(copied.utf8)) { root throws(PFError) in
                #expect(root.member("kéy")?.stringValue == "v\(round)" && root.member("n")?.intValue == Int64(round))
                #expect(root.memberShape("__type", "className", tag: 0) == nil)
            }
            try session.withDocument(Data(scanned.utf8)) { root throws(PFError) in
                #expect(root.member("key")?.stringValue == "w\(round)" && root.member("n")?.intValue == Int64(round + 10))
                #expect(root.memberShape("__type", "className", tag: 0) != nil)
            }
        }
    }
}
