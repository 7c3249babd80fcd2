import Foundation
import PFCore
import PFJSON
import PFParse
import PFParseAdapter
import PFParseExport
import PFTestSupport
import Testing

// MARK: - Models of the real Parse.com export (AnglishWordbook, 2016)

struct Comment: ParseModel, Equatable {
    var objectId: String?
    var createdAt: Date?
    var updatedAt: Date?
    var by: ParsePointer
    var text: String
    var downvotes: Int
    var flags: Int
    var isTopLevel: Bool
    var parentComment: ParsePointer?
    var parentWord: ParsePointer
    var upvotes: Int
    static let parseClassName = "Comment"
    static var parseKeyMap: ParseKeyMap { ["text": "data"] }
}

struct Role: ParseModel, Equatable {
    var objectId: String?
    var createdAt: Date?
    var updatedAt: Date?
    var acl: ParseACL?
    var name: String
    static let parseClassName = "_Role"
}

struct NameWord: ParseModel, Equatable {
    var objectId: String?
    var createdAt: Date?
    var updatedAt: Date?
    var acl: ParseACL?
    var meaning: String
    var modernEnglish: String
    var oldEnglish: String
    var pronounce: String
    static let parseClassName = "NameWord"
    static var parseKeyMap: ParseKeyMap { ["modernEnglish": "ne", "oldEnglish": "oe"] }
}

@Suite struct RealExportTests {
    let folder = Fixtures.real.appendingPathComponent("parse")
    let adapter = ParseAdapter()

    func load(_ name: String) throws -> (objects: [ParseObject], raw: PFValue?) {
        let bytes = try Fixtures.data(folder.appendingPathComponent(name))
        let objects = try ParseExport.objects(fromJSON: bytes, className: ParseExport.className(forFile: URL(fileURLWithPath: name)))
        var raw: PFValue?
        if !bytes.isEmpty { raw = try JSONReader(options: .init(typedValues: false)).read(bytes) }
        return (objects, raw)
    }

    /// Decodes, maps onto models, re-encodes: the same values as the file.
    func roundTrip<M: ParseModel & Equatable>(_ type: M.Type, _ file: String, count: Int) throws -> [M] {
        let (objects, raw) = try load(file)
        #expect(objects.count == count)
        let rows = raw?["results"]?.arrayValue ?? []
        var models: [M] = []
        for (object, row) in zip(objects, rows) {
            #expect(object.restValue == row, "ParseObject re-encodes the row exactly, key order included")
            let model = try adapter.decode(M.self, from: object)
            models.append(model)
            let back = try adapter.parseObject(from: model)
            #expect(back == object, "\(object.objectId ?? "")")
            #expect(sortedKeys(try adapter.restValue(of: model)) == sortedKeys(row))
        }
        // And the whole file, sorted as Parse.com wrote it.
        #expect(ParseExport.document(objects, shape: .results, sortedKeys: true) == raw)
        return models
    }

    /// A join file's name under every spelling exporters use for `:` names the join class;
    /// other names stay as they are (a space in a class file's name is not a join).
    @Test(arguments: [
        ("_Join:tags:Article.json", "_Join:tags:Article"), ("_Join\u{A789}tags\u{A789}Article.json", "_Join:tags:Article"),
        ("_Join tags Article.json", "_Join:tags:Article"), ("_Join%3Atags%3AArticle.json.gz", "_Join:tags:Article"),
        ("My Class.json", "My Class"), ("_Join tags.json", "_Join tags"), ("GameScore.json", "GameScore"),
    ])
    func joinFileSpellings(file: String, className: String) {
        #expect(ParseExport.className(forFile: URL(fileURLWithPath: file)) == className)
    }

    @Test func comments() throws {
        let comments = try roundTrip(Comment.self, "Comment.json", count: 1)
        #expect(comments.first?.parentComment == ParsePointer(className: "Comment", objectId: "null"))
        #expect(comments.first?.upvotes == 99_999_999)
        #expect(comments.first?.text == "Test Comment do not read. ")
    }

    @Test func roles() throws {
        let roles = try roundTrip(Role.self, "_Role.json", count: 5)
        #expect(roles.first?.acl?.access(for: "*") == .init(read: true, write: true))
        #expect(roles.contains { $0.acl == ParseACL() }, "an empty ACL {} is kept")
    }

    @Test func nameWords() throws {
        let words = try roundTrip(NameWord.self, "NameWord.json", count: 254)
        #expect(words.first?.oldEnglish == "Flaéd")
        #expect(words.allSatisfy { $0.acl != nil })
    }

    @Test func emptyJoinTableIsAnEmptyClass() throws {
        let (objects, raw) = try load("_Join:users:_Role.json")
        #expect(objects.isEmpty)
        #expect(raw == Optional<PFValue>.none)
        #expect(ParseRules.isJoinClassName("_Join:users:_Role"))
    }

    @Test func wholeExportValidatesWithOnlyTheDanglingPointerWarning() throws {
        var classes: [ParseValidator.ClassRows] = []
        for url in try ParseExport.classFiles(in: folder) {
            let (rows, shape) = try ParseExport.rows(fromJSON: try Fixtures.data(url))
            classes.append(.init(className: ParseExport.className(forFile: url), rows: rows, shape: shape))
        }
        let report = ParseValidator().validate(classes)
        #expect(!report.hasErrors, "\(report.issues)")
        #expect(report.issues.count == 1)
        #expect(report.issues.first?.description
            == "warning: Comment Sew2MPHk57 at parentComment: dangling Pointer: Comment/null is not in the export (Parse error 101 ObjectNotFound)")
        #expect(report.schema.classes["Comment"]?["by"] == ParseSchema.Field(.pointer, targetClass: "_User"))
        #expect(report.schema.classes["NameWord"]?["oe"] == ParseSchema.Field(.string))
    }
}
