import Foundation
import PFTestSupport
import Testing

/// Shapes real Parse data comes in that the exporters' documentation does not promise (found
/// on real repositories' files): a parse-server `_SCHEMA` next to REST class files, a join
/// file whose owning class has no file, a saved REST answer with `count` before `results`,
/// `/schemas` listing the default columns, mongoexport's one-document-per-line `_SCHEMA`, and
/// one mongoexport collection file on its own.
@Suite struct ParseExportQuirkTests {
    func export(_ files: [String: String]) throws -> URL {
        try ValidateCommandTests().temporaryExport(files)
    }

    /// An export whose `_SCHEMA.json` is parse-server's documents (first key `_id`) is still an
    /// export: its class files decide, not the schema. Its `_rperm`, `_wperm`, `objectId`… are
    /// parse-server's own keys, no fields.
    @Test func anExportWithParseServerSchemaDocumentsIsAnExport() throws {
        let dir = try export([
            "Tag.json": #"{"results":[{"objectId":"t1","name":"a"},{"objectId":"t2","name":"b"}]}"#,
            "_SCHEMA.json": #"[{"_id":"Tag","objectId":"string","createdAt":"date","updatedAt":"date","_rperm":"array","_wperm":"array","name":"string"}]"#,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.sqlite").path
        let imported = try CLI.run(["import", dir.path, out])
        #expect(imported.status == 0 && imported.stdoutText.contains("imported 2 objects of 1 class"), "\(imported.stdoutText) \(imported.stderr)")
        let inspect = try CLI.run(["inspect", dir.path])
        #expect(inspect.stdoutText.contains("Class Tag — 2 objects") && !inspect.stdoutText.contains("_rperm")
            && !inspect.stdoutText.contains("objectId:"), "\(inspect.stdoutText)")
        let diff = try CLI.run(["diff", dir.path, out])
        #expect(diff.status == 0 && diff.stdoutText.hasPrefix("no differences"), "\(diff.stdoutText) \(diff.stderr)")
    }

    /// A join file whose owning class has no class file: the owner is a class without objects,
    /// and the join rows are imported (they were dropped, with exit 0).
    @Test func joinRowsWithoutTheOwningClassFileAreImported() throws {
        let dir = try export([
            "Tag.json": #"[{"objectId":"t1"},{"objectId":"t2"}]"#,
            "_Join:tags:Article.json": #"[{"owningId":"a1","relatedId":"t1"},{"owningId":"a1","relatedId":"t2"},{"owningId":"a2","relatedId":"t1"}]"#,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.sqlite").path
        let imported = try CLI.run(["import", dir.path, out])
        #expect(imported.status == 0 && imported.stdoutText.contains("and 3 relation rows"), "\(imported.stdoutText) \(imported.stderr)")
        // The import inferred the target (Tag) that the export does not name: no difference.
        let diff = try CLI.run(["diff", dir.path, out])
        #expect(diff.status == 0 && diff.stdoutText.hasPrefix("no differences"), "\(diff.stdoutText) \(diff.stderr)")
    }

    /// Rows of `{"count":…,"results":[…]}` are handed over re-written, not as byte ranges of
    /// the file: a diff reads them again instead of calling the file changed.
    @Test func aSavedRESTAnswerWithCountFirstDiffs() throws {
        let a = try export(["City.json": #"{"count":1,"results":[{"objectId":"a","n":1}]}"#])
        let b = try export(["City.json": #"{"results":[{"objectId":"a","n":2}]}"#])
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
        for (x, y) in [(a, b), (b, a)] {
            let diff = try CLI.run(["diff", x.path, y.path])
            #expect(diff.status == 1 && diff.stdoutText.contains("City/a.n:"), "\(diff.stdoutText) \(diff.stderr)")
        }
        let same = try CLI.run(["diff", a.path, a.path])
        #expect(same.status == 0, "\(same.stdoutText) \(same.stderr)")
    }

    /// `/schemas` lists `objectId`, `createdAt`, `updatedAt` and `ACL` among the fields: they
    /// are the default columns, not fields a copy should add.
    @Test func restSchemaDefaultColumnsAreNoFields() throws {
        let dir = try export([
            "Tag.json": #"[{"objectId":"t1","name":"a"}]"#,
            "_SCHEMA.json": #"{"results":[{"className":"Tag","fields":{"objectId":{"type":"String"},"createdAt":{"type":"Date"},"updatedAt":{"type":"Date"},"ACL":{"type":"ACL"},"name":{"type":"String"}}}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let mongo = dir.appendingPathComponent("mongo.jsonl").path
        #expect(try CLI.run(["import", dir.path, mongo]).status == 0)
        let schema = try String(contentsOfFile: mongo + "/_SCHEMA.json", encoding: .utf8)
        #expect(!schema.contains("pf__") && schema.contains(#""name":"string""#), "\(schema)")
        let inspect = try CLI.run(["inspect", dir.path])
        #expect(!inspect.stdoutText.contains("ACL:") && !inspect.stdoutText.contains("objectId:"), "\(inspect.stdoutText)")
    }

    /// `validate --schema` and an export's own `_SCHEMA.json` take mongoexport's default form,
    /// one `_SCHEMA` document per line.
    @Test func schemaDocumentsOnePerLine() throws {
        let dir = try export([
            "Tag.json": #"[{"objectId":"t1","name":"a","n":1}]"#,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let schema = dir.appendingPathComponent("schema.txt")
        try Data("{\"_id\":\"Tag\",\"name\":\"string\",\"n\":\"string\"}\n{\"_id\":\"Other\",\"x\":\"number\"}\n".utf8).write(to: schema)
        let run = try CLI.run(["validate", dir.path, "--schema", schema.path])
        #expect(run.status == 1 && run.stdoutText.contains("error: Tag t1 at n:"), "\(run.stdoutText) \(run.stderr)")
    }

    /// One mongoexport collection file is no Parse class file (its `_id`s are no objectIds):
    /// refused in one line with exit 1; codegen reads it as the JSON document it is.
    @Test func oneMongoexportFileIsNoClassFile() throws {
        let dir = try export(["Thing.json": #"[{"_id":"a1","name":"x"},{"_id":"a2","name":"y"}]"#])
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("Thing.json").path
        let run = try CLI.run(["import", file, dir.appendingPathComponent("out.sqlite").path])
        #expect(run.status == 1 && run.stderr.contains("holds mongoexport documents") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        let codegen = try CLI.run(["codegen", file])
        #expect(codegen.status == 0 && codegen.stdoutText.contains("public var name: String"), "\(codegen.stderr)")
    }

    /// A `mongodump` folder (`<collection>.bson` beside `<collection>.metadata.json`) was read
    /// as a Parse export and refused with "'Foo.metadata' is not a valid class name": it is
    /// refused as BSON, in one line, saying to use mongoexport; one `.bson` file too.
    @Test func aMongodumpIsRefusedAsBSON() throws {
        // One BSON document {"_id": "x1"}: an int32 length, a string element, the end byte.
        let document: [UInt8] = [0x11, 0, 0, 0, 0x02] + Array("_id".utf8) + [0, 3, 0, 0, 0] + Array("x1".utf8) + [0, 0]
        let dir = try export([
            "Foo.bson": String(decoding: document, as: UTF8.self),
            "Foo.metadata.json": #"{"options":{},"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        for arguments in [["import", dir.path, dir.appendingPathComponent("out.sqlite").path], ["inspect", dir.path],
                          ["import", dir.appendingPathComponent("Foo.bson").path, dir.appendingPathComponent("out2.sqlite").path]] {
            let run = try CLI.run(arguments)
            #expect(run.status == 1 && run.stderr.contains("a mongodump of BSON files (Foo.bson)") && run.stderr.contains("mongoexport")
                && run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out.sqlite").path))
    }
}
