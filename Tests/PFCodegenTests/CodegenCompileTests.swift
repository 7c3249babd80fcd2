import Foundation
import PFTestSupport
import Testing

/// Code generated from each kind of source compiles against the built library; for the real
/// Parse export and a Foundation keyed archive it is linked and run, and the source data
/// round-trips through the generated types with nothing lost.
@Suite("Generated code compiles", .serialized)
struct CodegenCompileTests {
    static let comparison = """
        import Foundation
        import PFArchive

        /// Equal as JSON values, whatever the key order; a class recorded without a version
        /// (Foundation's archives) is version 0, as a class that records `$version` 0; `$id`s
        /// compared as labels (``canonical(_:)``).
        func same(_ a: PFValue, _ b: PFValue) -> Bool { equal(canonical(a), canonical(b)) }

        /// The tree with the `$id`s no `$ref` in it refers to left out (an object shared
        /// elsewhere in its stream but reached once here) and the others numbered in order.
        func canonical(_ value: PFValue) -> PFValue {
            var referenced: Set<Int64> = []
            func collect(_ v: PFValue) {
                switch v {
                case .dictionary(let m):
                    if m.count == 1, case .int(let r)? = m["$ref"] { referenced.insert(r) }
                    m.values.forEach(collect)
                case .array(let items): items.forEach(collect)
                default: break
                }
            }
            collect(value)
            var numbers: [Int64: Int64] = [:]
            func number(_ id: Int64) -> PFValue {
                if let n = numbers[id] { return .int(n) }
                numbers[id] = Int64(numbers.count + 1)
                return .int(Int64(numbers.count))
            }
            func rewrite(_ v: PFValue) -> PFValue {
                switch v {
                case .dictionary(var m):
                    if m.count == 1, case .int(let r)? = m["$ref"] { return .dictionary(["$ref": number(r)]) }
                    if case .int(let id)? = m["$id"] {
                        if referenced.contains(id) {
                            m["$id"] = number(id)
                        } else {
                            m["$id"] = nil
                            if m.count == 1, let inner = m["$value"] { return rewrite(inner) }
                        }
                    }
                    for (k, x) in m { m[k] = rewrite(x) }
                    return .dictionary(m)
                case .array(let items): return .array(items.map(rewrite))
                default: return v
                }
            }
            return rewrite(value)
        }

        func equal(_ a: PFValue, _ b: PFValue) -> Bool {
            switch (a, b) {
            case (.dictionary(var x), .dictionary(var y)):
                if x["$version"] == .int(0) { x["$version"] = nil }
                if y["$version"] == .int(0) { y["$version"] = nil }
                guard x.count == y.count else { return false }
                for (k, v) in x { guard let w = y[k], equal(v, w) else { return false } }
                return true
            case (.array(let x), .array(let y)):
                return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
            default:
                return a == b
            }
        }

        """

    func generate(_ source: URL, _ extra: [String] = []) throws -> URL {
        let out = try SwiftCompiler.scratch(source.deletingPathExtension().lastPathComponent).appendingPathComponent("Models")
        let result = try SwiftCompiler.codegen([source.path, "--out", out.path] + extra)
        #expect(result.status == 0, "\(source.lastPathComponent): \(result.output)")
        return out
    }

    func typechecks(_ source: URL, _ extra: [String] = []) throws {
        let out = try generate(source, extra)
        let files = try SwiftCompiler.swiftFiles(in: out)
        #expect(!files.isEmpty)
        let result = try SwiftCompiler.typecheck(files)
        #expect(result.status == 0, "\(source.lastPathComponent) \(extra): \(result.output)")
    }

    @Test(arguments: [["--style", "adapter"], ["--style", "codable"], ["--enums", "--single-file"], ["--access", "internal"]])
    func realParseExportTypechecks(_ extra: [String]) throws {
        try typechecks(Fixtures.real.appendingPathComponent("parse"), extra)
    }

    @Test(arguments: ["coredataplus/SampleModel2_V2.sqlite", "coredataplus/SampleModel_V1.sqlite", "restkit/RKSeedDatabase.sqlite"])
    func realCoreDataStoreTypechecks(_ path: String) throws {
        try typechecks(Fixtures.real.appendingPathComponent("coredata").appendingPathComponent(path))
    }

    @Test(arguments: ["linux-corelibs/swift-linux-misc.bplist", "scf-NSAttributedString.archive", "bpylist2-fullChangeLog.bplist"])
    func realKeyedArchiveTypechecks(_ path: String) throws {
        let source = Fixtures.real.appendingPathComponent("keyed").appendingPathComponent(path)
        try typechecks(source)
        try typechecks(source, ["--style", "codable"])
    }

    static let classic = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures/classic")

    @Test(arguments: ["employees-v1.typedstream", "employees-v2.typedstream", "employees-v3.typedstream"])
    func typedstreamTypechecks(_ name: String) throws {
        try typechecks(Self.classic.appendingPathComponent(name))
        try typechecks(Self.classic.appendingPathComponent(name), ["--style", "codable"])
    }

    /// A versioning schema file is a source: its types with their class names, keys, field
    /// types and current class versions, in both styles that fit it.
    @Test(arguments: [[], ["--style", "codable"]])
    func versioningSchemaTypechecks(_ extra: [String]) throws {
        let schema = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures/schema.json")
        try typechecks(schema, extra)
        let code = try SwiftCompiler.swiftFiles(in: try generate(schema, extra)).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains("var fullName: String\n"))
        #expect(code.contains("var salary: Int64\n"))
        #expect(code.contains("var floor: Int32\n"))
        #expect(code.contains("var department: Department?\n"))
        if extra.isEmpty {
            #expect(code.contains("final class Employee: ArchiveCoding {"))
            #expect(code.contains("static let archiveClassName = \"Employee\""))
            #expect(code.contains("static var archiveVersion: Int { 3 }"))
            #expect(code.contains("static var archiveVersion: Int { 2 }"))
            #expect(code.contains("coder.encode(salary, forKey: \"salary\")"))
        } else {
            #expect(code.contains("struct Employee: Codable"))
        }
    }

    /// Every typedstream (an NSArray of employees) decodes into the generated
    /// `ClassicArchiveCoding` classes (the shared Department stays one object), re-encodes with the classic archiver, and the re-encoded
    /// stream reads back as the same graph: class names, versions, value groups and references.
    @Test(arguments: [("employees-v1.typedstream", "Staff", 1), ("employees-v2.typedstream", "Employee", 2), ("employees-v3.typedstream", "Employee", 3)])
    func typedstreamRoundTripsThroughGeneratedClasses(_ name: String, _ typeName: String, _ version: Int) throws {
        let source = Self.classic.appendingPathComponent(name)
        let out = try generate(source)
        let code = try SwiftCompiler.swiftFiles(in: out).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains("final class \(typeName): ClassicArchiveCoding {"))
        #expect(code.contains("static var classicClassName: String { \"\(typeName)\" }\n    public static var classicVersion: Int { \(version) }"))
        #expect(code.contains("static var registry: ClassicClassRegistry"))
        let main = out.deletingLastPathComponent().appendingPathComponent("main.swift")
        try (Self.comparison + """
            let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
            // The root is an NSArray of the employees.
            let roots = try ClassicUnarchiver.unarchivedObject(ofType: [\(typeName)].self, from: data, registry: GeneratedModels.registry)
            let again = try ClassicArchiver.archivedData(withRootObject: roots)
            let a = try TypedStream.decodeValue(data)
            let b = try TypedStream.decodeValue(again)
            guard same(a, b) else { print("MISMATCH\\n\\(a)\\n\\(b)"); exit(1) }
            print("round-trip \\(roots.count) \\(roots.map { $0.value0 ?? "-" }.joined(separator: ","))")
            """).write(to: main, atomically: true, encoding: .utf8)
        let result = try SwiftCompiler.buildAndRun(
            try SwiftCompiler.swiftFiles(in: out) + [main], in: out.deletingLastPathComponent(), arguments: [source.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("round-trip 3 "), "\(result.output)")
    }

    static let classicObjectDecode = """
        let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
        let document = try TypedStream.readDocument(data)
        let unarchiver = ClassicUnarchiver(document: document, registry: GeneratedModels.registry)
        func read<T: ClassicArchiveCoding>(_ type: T.Type, at index: Int) throws -> any ClassicArchiveCoding {
            try unarchiver.decodeObject(T.self, at: index)
        }
        // Every object of a generated class, through its generated class (one unarchiver: shared
        // objects stay shared, and a reference back to an object still being read closes a cycle).
        var decoded: [(index: Int, object: any ClassicArchiveCoding)] = []
        var classes: Set<String> = []
        for index in document.entries.indices where document.objectEntry(index) != nil {
            guard let name = unarchiver.classChain(ofObject: index).first?.name,
                  let type = GeneratedModels.registry.type(forClassName: name) else { continue }
            decoded.append((index, try read(type, at: index)))
            classes.insert(name)
        }
        try unarchiver.finish()
        print("decoded \\(decoded.count) objects of \\(classes.count) classes")

        """

    static let classicObjectReencode = """
        var cycles = 0
        for (index, object) in decoded {
            // Each object alone as the root of a new stream reads back as the same graph as the
            // original object's (classes, versions, groups, shared objects and cycles as $id/$ref).
            let again = try ClassicArchiver.archivedData(withRootObject: object)
            let original = try PFValue.classicRead(from: unarchiver, objectAt: index)
            let back = try TypedStream.decodeValue(again)
            guard same(original, back) else { print("MISMATCH at object \\(index) (\\(type(of: object)))\\n\\(original)\\n\\(back)"); exit(1) }
            if case .dictionary(let members) = original, members["$id"] != nil { cycles += 1 }
        }
        print("round-trip \\(decoded.count) objects of \\(classes.count) classes, \\(cycles) shared or cyclic")
        // Every decoded object as a root group of one new stream, in table order (an object
        // written inside an earlier one is referred back to), and their table indices: for
        // pytypedstream to compare with the original's objects.
        let all = ClassicArchiver()
        for (_, object) in decoded { try all.encodeGroup([.object(object)]) }
        try all.encodedData.write(to: URL(fileURLWithPath: CommandLine.arguments[2]))
        try decoded.map { String($0.index) }.joined(separator: " ").write(toFile: CommandLine.arguments[3], atomically: true, encoding: .utf8)

        """

    /// The whole stream written again root group by root group (several values in a group,
    /// such as a color list's `@@` entries, with ``ClassicArchiver/encodeGroup(_:)``):
    /// objects of a generated class through it, others (Foundation values) as value trees,
    /// other values as read. It reads back as the same graph.
    static let classicStreamReencode = """
        let root = ClassicUnarchiver(document: document, registry: GeneratedModels.registry)
        func read<T: ClassicArchiveCoding>(_ type: T.Type, at index: Int, in unarchiver: ClassicUnarchiver) throws -> any ClassicArchiveCoding {
            try unarchiver.decodeObject(T.self, at: index)
        }
        let whole = ClassicArchiver()
        var rootGroups = 0
        while root.hasMoreValues {
            let group = try root.decodeNextGroup()
            var values: [ClassicGroupValue] = []
            for (encoding, value) in zip(group.encodings, group.values) {
                guard encoding == .object else { values.append(.value(encoding, value)); continue }
                guard case .object(let index) = value else { values.append(.object(nil)); continue }
                if let name = root.classChain(ofObject: index).first?.name, let type = GeneratedModels.registry.type(forClassName: name) {
                    values.append(.object(try read(type, at: index, in: root)))
                } else {
                    values.append(.object(try ClassicExactValue.classicRead(from: root, objectAt: index)))
                }
            }
            try whole.encodeGroup(values)
            rootGroups += 1
        }
        try root.finish()
        guard same(try TypedStream.decodeValue(data), try TypedStream.decodeValue(whole.encodedData)) else { print("MISMATCH in the whole stream"); exit(1) }
        try whole.encodedData.write(to: URL(fileURLWithPath: CommandLine.arguments[4]))
        print("whole stream \\(rootGroups) root groups")

        """

    /// Reads the original stream and pfarchive's re-encodings with pytypedstream: each object
    /// written again as a root group (argument 2, their indices in the original's table in
    /// argument 3) renders as the original's object at that index, the whole graph below it
    /// (classes with versions and superclasses, class values, shared objects and cycles)
    /// included; with argument 4, the whole re-encoded stream renders as the original.
    static let peerComparison = #"""
import sys
from typedstream import advanced_repr, archiving
def read(path):
    with open(path, "rb") as f: unarchiver = archiving.Unarchiver.from_data(f.read())
    return unarchiver, unarchiver.decode_all()
def text(value): return "\n".join(advanced_repr.as_multiline_string(value))
original, roots = read(sys.argv[1])
_, ours = read(sys.argv[2])
with open(sys.argv[3]) as f: indices = [int(i) for i in f.read().split()]
if len(ours) != len(indices): sys.exit("%d root groups for %d objects" % (len(ours), len(indices)))
for index, group in zip(indices, ours):
    if text(original.shared_object_table[index][1]) != text(group.value): sys.exit("object %d differs:\n%s\n%s" % (index, text(original.shared_object_table[index][1]), text(group.value)))
if len(sys.argv) > 4:
    _, whole = read(sys.argv[4])
    if [text(g) for g in roots] != [text(g) for g in whole]: sys.exit("the whole stream differs")
    print("pytypedstream: whole stream of %d root groups the same" % len(whole))
print("pytypedstream: %d objects the same" % len(ours))
"""#

    /// Links the generated classes of a typedstream with ``classicObjectDecode`` (every object
    /// of a generated class decoded through it), ``classicObjectReencode`` (each re-encoded
    /// and compared) and, with `wholeStream`, ``classicStreamReencode``, and runs it; then
    /// pytypedstream reads what it wrote (``peerComparison``), and its output is appended.
    func classicObjectsRoundTrip(_ source: URL, reencode: Bool = true, wholeStream: Bool = false, peer: Bool = true) throws -> SwiftCompiler.Result {
        let out = try generate(source)
        let dir = out.deletingLastPathComponent()
        let main = dir.appendingPathComponent("main.swift")
        try (Self.comparison + Self.classicObjectDecode + (reencode ? Self.classicObjectReencode : "") + (wholeStream ? Self.classicStreamReencode : ""))
            .write(to: main, atomically: true, encoding: .utf8)
        let written = ["objects.typedstream", "objects.txt", "stream.typedstream"].map { dir.appendingPathComponent($0).path }
        var result = try SwiftCompiler.buildAndRun(
            try SwiftCompiler.swiftFiles(in: out) + [main], in: dir, arguments: [source.path] + written)
        guard result.status == 0, reencode, peer else { return result }
        let peer = try Peers.python(Self.peerComparison, [source.path] + written.prefix(wholeStream ? 3 : 2))
        result.status = peer.status
        result.output += peer.stdoutText + peer.stderr
        return result
    }

    /// Real typedstreams written by Apple's `NSArchiver`, from pytypedstream's source
    /// distribution (`scripts/setup.sh` downloads it; its licence keeps the files out of
    /// this repository).
    static let appleTypedstreams = Fixtures.repoRoot.appendingPathComponent(".venv/pytypedstream-sdist/pytypedstream-0.1.0/tests/data")

    static func appleTypedstream(_ name: String) throws -> URL {
        let url = appleTypedstreams.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("pytypedstream's real sample \(name) is missing from \(appleTypedstreams.path): run scripts/setup.sh")
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }

    /// An Apple color list (`Emacs.clr`, 742 `NSColor`s in groups of several objects at the
    /// root): every `NSColor` decodes through the generated class and re-encodes to the same graph.
    @Test func appleColorListRoundTripsThroughGeneratedClasses() throws {
        let result = try classicObjectsRoundTrip(try Self.appleTypedstream("Emacs.clr"), wholeStream: true)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("round-trip 742 objects of 1 classes"), "\(result.output)")
        // 2 + 752 root groups: `i`, `@i`, then one `@@` (a color and its name) per entry.
        #expect(result.output.contains("whole stream 754 root groups"), "\(result.output)")
        #expect(result.output.contains("pytypedstream: whole stream of 754 root groups the same"), "\(result.output)")
        #expect(result.output.contains("pytypedstream: 742 objects the same"), "\(result.output)")
    }

    /// Grapher documents (a root `NSMutableDictionary` holding the application's own classes,
    /// with back-references from children to their parents): the classes inside Foundation
    /// containers are found, typed from what their groups held (a back-reference by the class
    /// it refers to, read with `decodeReference`; an array of one class as `[Class]`), and
    /// the code compiles.
    @Test(arguments: ["Empty2D macOS 10.14.gcx", "Empty2D macOS 13.gcx"])
    func appleGrapherDocumentTypechecks(_ name: String) throws {
        let source = try Self.appleTypedstream(name)
        try typechecks(source)
        let code = try SwiftCompiler.swiftFiles(in: try generate(source)).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains("public final class CPDefinitionTree: ClassicArchiveCoding {"))
        #expect(code.contains(": CPDefinitionTree?\n"))
        #expect(code.contains("try coder.decodeReference(CPDefinitionTree.self) { assignValue"))
        if name.hasSuffix("13.gcx") { #expect(code.contains("public var value2: ClassicArray<CPDefinitionEquation>?\n")) }
        #expect(code.contains("ClassicClassVersion(\"CPTreeNode\", version: 0)"))
        // `NSBezierPath` writes one group per point, as many as the path has (1,628 groups in
        // 10.14's longest): the groups objects end before are one `[TypedStreamGroup]` read
        // until the object ends, not one property each (a class of 1,628 properties took
        // minutes to compile into the decode test's executable on main).
        let path = code.components(separatedBy: "public final class NSBezierPath: ClassicArchiveCoding {").dropFirst().first?
            .components(separatedBy: "\n}\n").first ?? ""
        #expect(path.contains("while coder.hasMoreValues { value"), "\(path.prefix(2000))")
        #expect(path.components(separatedBy: "\n").filter { $0.hasPrefix("    public var ") && $0.hasSuffix(": [TypedStreamGroup]") }.count == 1, "one folded property")
        #expect(path.components(separatedBy: "    public var value").count < 100, "\(path.components(separatedBy: "    public var value").count - 1) properties")
    }

    /// Grapher documents decode through the generated classes: a position holding objects of
    /// sibling classes (`GSpace`'s view, a `GView2D` or a `GView3D`; an axis list of
    /// `GAbscissa2D`s and `GOrdinate2D`s) is typed as their nearest common superclass, a
    /// generated base they inherit from, so an object decoded as its own class before is
    /// shared there rather than read again as a `PFValue` (which failed on main); a class
    /// whose objects end after different numbers of groups (`NSBezierPath`) reads its last
    /// groups only when present. Every object of a generated class decodes, the graph
    /// completes (`finish`), and each re-encodes to the same graph, read back by pfarchive and
    /// rendered by pytypedstream as the original object.
    @Test(arguments: [("Empty2D macOS 10.14.gcx", 940), ("Empty2D macOS 13.gcx", 655)])
    func appleGrapherDocumentDecodesThroughGeneratedClasses(_ name: String, _ objects: Int) throws {
        let source = try Self.appleTypedstream(name)
        let code = try SwiftCompiler.swiftFiles(in: try generate(source)).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains("public class GView: ClassicArchiveCoding {"))
        #expect(code.contains("public final class GView2D: GView {"))
        #expect(code.contains("public var value0: GView?\n"))
        #expect(code.contains("override public class var classicClassName: String { \"GView2D\" }"))
        #expect(code.contains("while coder.hasMoreValues { value"))
        #expect(!code.contains("GView.self,") && !code.contains(", GView.self"), "a base is not in the registry")
        #expect(code.contains("public var value0: TypedStreamGroup\n"), "CPClassValue keeps its `#` group")
        // A group holding an object (a catalog NSColor's `@@@`) keeps it as its value tree
        // (`decodeDetachedGroup`), not as an index into this stream's table, which the
        // archiver could not write ("value object(493) does not fit type @" on main).
        // pytypedstream renders every re-encoded object as the original's: the Foundation
        // values (Grapher's attribute dictionaries) are `ClassicExactValue`s and the arrays
        // `ClassicArray`s, which write `NSMutableArray`/`NSMutableDictionary` and `i`/`f`
        // NSNumbers back as they were (as `PFValue` and `[Model]`, they came back as
        // `NSArray`/`NSDictionary` and `q`/`d`, which pytypedstream renders differently).
        #expect(code.contains("public var value5: ClassicArray<GDrawingObject>?\n"))
        #expect(code.contains(": ClassicExactValue?\n") && !code.contains("PFValue"))
        let result = try classicObjectsRoundTrip(source)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("decoded \(objects) objects of "), "\(result.output)")
        #expect(result.output.contains("round-trip \(objects) objects of "), "\(result.output)")
        #expect(result.output.contains("pytypedstream: \(objects) objects the same"), "\(result.output)")
    }

    /// A typedstream whose objects refer back to themselves and to their parent (a cycle
    /// through an array of children) decodes through the generated classes: references are
    /// read once every object exists. Every object, the root included, re-encodes to the
    /// same graph, the `$id`/`$ref` sharing included.
    @Test func typedstreamWithCycleRoundTripsThroughGeneratedClasses() throws {
        let dir = try SwiftCompiler.scratch("cycle")
        let tree = dir.appendingPathComponent("folders.json")
        try Data(Self.cyclicFolders.utf8).write(to: tree)
        let stream = dir.appendingPathComponent("folders.typedstream")
        let converted = try SwiftCompiler.run(
            SwiftCompiler.buildDirectory.appendingPathComponent("pfarchive").path, ["convert", tree.path, stream.path])
        #expect(converted.status == 0, "\(converted.output)")
        let code = try SwiftCompiler.swiftFiles(in: try generate(stream)).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains("public var value1: Folder?\n"))
        #expect(code.contains("public var value2: ClassicArray<Folder>?\n"))
        #expect(code.contains("public var value3: Int32\n"))
        let result = try classicObjectsRoundTrip(stream)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("round-trip 3 objects of 1 classes, 3 shared or cyclic"), "\(result.output)")
    }

    /// A folder (name, parent, children, child count, itself) with two children whose parent
    /// is the root: in the tree shape `pfarchive convert` writes as a typedstream.
    static let cyclicFolders = #"""
        {"$class": "Folder", "$version": 2, "$id": 1, "$values": [
          {"types": "@", "values": ["root"]},
          {"types": "@", "values": [null]},
          {"types": "@", "values": [[
            {"$class": "Folder", "$version": 2, "$id": 2, "$values": [
              {"types": "@", "values": ["docs"]}, {"types": "@", "values": [{"$ref": 1}]}, {"types": "@", "values": [[]]},
              {"types": "i", "values": [0]}, {"types": "@", "values": [{"$ref": 2}]}]},
            {"$class": "Folder", "$version": 2, "$id": 3, "$values": [
              {"types": "@", "values": ["photos"]}, {"types": "@", "values": [{"$ref": 1}]}, {"types": "@", "values": [[]]},
              {"types": "i", "values": [0]}, {"types": "@", "values": [{"$ref": 3}]}]}]]},
          {"types": "i", "values": [2]},
          {"types": "@", "values": [{"$ref": 1}]}]}
        """#

    @Test(arguments: ["Samples/data/scores.json", "Benchmarks/data/twitter.json", "Benchmarks/data/citm_catalog.json"])
    func jsonTypechecks(_ path: String) throws {
        try typechecks(Fixtures.repoRoot.appendingPathComponent(path))
    }

    /// The real export's rows decode through the generated models and encode back equal,
    /// `_Role`'s `users` Relation (its pairs in `_Join:users:_Role.json`) included, through
    /// its typed `ParseRelation` property rather than `preservingUnmappedFrom:`.
    @Test func realParseExportRoundTripsThroughGeneratedModels() throws {
        let export = Fixtures.real.appendingPathComponent("parse")
        let out = try generate(export)
        let code = try SwiftCompiler.swiftFiles(in: out).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains("public var users: ParseRelation<ParseObject>?\n"))
        let main = out.deletingLastPathComponent().appendingPathComponent("main.swift")
        try (Self.comparison + """
            let dir = CommandLine.arguments[1]
            var checked = 0
            /// `relations`: the Relation fields of the class (their pairs are in `_Join:` files),
            /// set in each row as Parse's REST API returns them with a fetched object.
            func check<M: ParseModel>(_ type: M.Type, file: String, relations: [String: String] = [:]) throws {
                let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + file))
                guard !data.isEmpty else { return }
                let adapter = ParseAdapter()
                for var row in try ParseExport.rows(fromJSON: data).rows {
                    for (field, target) in relations.sorted(by: { $0.key < $1.key }) {
                        guard case .dictionary(var members) = row else { exit(1) }
                        members[field] = ["__type": "Relation", "className": .string(target)]
                        row = .dictionary(members)
                    }
                    let object = try ParseObject(rest: row, className: M.parseClassName)
                    guard GeneratedModels.dispatch.types.contains(where: { $0 == M.self }),
                          try GeneratedModels.dispatch.modelType(for: object) == M.self else {
                        print("dispatch failed for \\(file)"); exit(1)
                    }
                    let model = try adapter.decode(M.self, fromREST: row)
                    let back = try adapter.restValue(of: model)
                    guard same(row, back) else { print("MISMATCH in \\(file):\\n\\(row)\\n\\(back)"); exit(1) }
                    checked += 1
                }
            }
            try check(Comment.self, file: "Comment.json")
            try check(NameWord.self, file: "NameWord.json")
            try check(Role.self, file: "_Role.json", relations: ["users": "_User"])
            print("round-trip \\(checked)")
            """).write(to: main, atomically: true, encoding: .utf8)
        let result = try SwiftCompiler.buildAndRun(
            try SwiftCompiler.swiftFiles(in: out) + [main], in: out.deletingLastPathComponent(), arguments: [export.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("round-trip 260"), "\(result.output)")
    }

    /// Every object of a real store (Core Data stores, whose models are recovered from the
    /// files, and a Realm file) is read by the store reader codegen reads, decoded through the
    /// generated models (picked by the dispatch table) and written back to the same Parse
    /// dictionary: every attribute, every to-one relationship (a Pointer) and every to-many
    /// relationship (a Relation, typed `ParseRelation<Target>`) of every object. Every join
    /// pair of every to-many relationship links two objects that were read. A Realm file's
    /// `Parent.child`, a Pointer no object sets, is typed from its schema.
    @Test(arguments: [
        ("coredata/coredataplus/SampleModel2_V2.sqlite", "public var pages: ParseRelation<Page>\n"),
        ("coredata/coredataplus/SampleModel_V1.sqlite", "public var cars: ParseRelation<Car>\n"),
        ("coredata/coredataplus/SampleModel_V2.sqlite", "public var cars: ParseRelation<Car>\n"),
        ("coredata/coredataplus/SampleModel3_V1.sqlite", "public struct User: ParseModel"),
        ("coredata/restkit/RKSeedDatabase.sqlite", "public var user: ParseReference<User>\n"),
        ("realm/kotlin-asset.realm", "public var child: ParseReference<Child>??\n"),
    ])
    func realStoreRoundTripsThroughGeneratedModels(_ path: String, _ expected: String) throws {
        let store = Fixtures.real.appendingPathComponent(path)
        let out = try generate(store)
        let code = try SwiftCompiler.swiftFiles(in: out).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains(expected), "\(path)")
        let main = out.deletingLastPathComponent().appendingPathComponent("main.swift")
        try (Self.comparison + """
            let location = try StoreLocation.resolve(CommandLine.arguments[1])
            let reader = try StoreOpeners.standard(readerThreads: 1).reader(for: location)
            defer { reader.close() }
            let adapter = ParseAdapter()
            var objects = 0, pointers = 0, relations = 0
            var ids: [String: Set<String>] = [:]
            func roundTrip<M: ParseModel>(_ type: M.Type, _ object: ParseObject) throws(PFError) {
                guard case .dictionary(var members) = object.restValue else { exit(1) }
                // The class is the model's type; nothing else may differ (a null field comes
                // back as null, through its double optional).
                guard members.removeValue(forKey: "className") ?? .string(M.parseClassName) == .string(M.parseClassName) else { exit(1) }
                let row = PFValue.dictionary(members)
                let model = try adapter.decode(M.self, fromREST: row)
                // Nothing is left to preservingUnmappedFrom: the generated properties hold it all.
                let back = try adapter.restValue(of: model)
                guard same(row, back) else { print("MISMATCH in \\(object.className):\\n\\(row)\\n\\(back)"); exit(1) }
            }
            for className in try reader.classNames() {
                try reader.forEachObject(in: className) { (object: ParseObject) throws(PFError) in
                    let type = try GeneratedModels.dispatch.modelType(for: object)
                    guard type.parseClassName == className else { print("dispatch failed for \\(className)"); exit(1) }
                    try roundTrip(type, object)
                    objects += 1
                    for value in object.fields.values {
                        if case .pointer = value { pointers += 1 }
                        if case .relation = value { relations += 1 }
                    }
                    if let id = object.objectId { ids[className, default: []].insert(id) }
                }
            }
            var pairs = 0
            for relation in try reader.relations() {
                try reader.forEachJoinRow(of: relation) { (row: ParseJoinRow) throws(PFError) in
                    let owners = ids[relation.owningClass] ?? []
                    // The target may be an entity with sub-entities (a Book relation holds GraphicNovels).
                    let related = ids.values.reduce(into: Set<String>()) { $0.formUnion($1) }
                    guard owners.contains(row.owningId), related.contains(row.relatedId) else {
                        print("join pair \\(row) of \\(relation) links an object not read"); exit(1)
                    }
                    pairs += 1
                }
            }
            print("round-trip \\(objects) objects, \\(pointers) pointers, \\(relations) relations, \\(pairs) join pairs")
            """).write(to: main, atomically: true, encoding: .utf8)
        let result = try SwiftCompiler.buildAndRun(
            try SwiftCompiler.swiftFiles(in: out) + [main], in: out.deletingLastPathComponent(), arguments: [store.path])
        #expect(result.status == 0, "\(path): \(result.output)")
        let counts = try #require(result.output.firstMatch(of: /round-trip (\d+) objects/)?.1, "\(result.output)")
        #expect((Int(counts) ?? 0) > 0, "\(result.output)")
    }

    /// A Parse export whose `_SCHEMA.json` declares Pointers no row sets (`team`: null or
    /// missing in every row; `coach`: in no row) types them from their declared target, as
    /// optional references to the target's generated model (`team`, which holds null, a
    /// double optional), and the code compiles.
    @Test func pointerNoRowSetsIsTypedFromTheExportSchema() throws {
        let export = try SwiftCompiler.scratch("schema-export").appendingPathComponent("export")
        try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
        let dates = #""createdAt": "2020-01-01T00:00:00.000Z", "updatedAt": "2020-01-01T00:00:00.000Z""#
        let files = [
            "Team.json": #"{"results": [{"objectId": "t1", "name": "Lions", \#(dates)}]}"#,
            "Player.json": #"{"results": [{"objectId": "p1", "name": "Ada", \#(dates)}, {"objectId": "p2", "name": "Grace", "team": null, \#(dates)}]}"#,
            "_SCHEMA.json": #"""
                {"results": [
                  {"className": "Team", "fields": {"objectId": {"type": "String"}, "createdAt": {"type": "Date"},
                    "updatedAt": {"type": "Date"}, "ACL": {"type": "ACL"}, "name": {"type": "String"}}},
                  {"className": "Player", "fields": {"objectId": {"type": "String"}, "createdAt": {"type": "Date"},
                    "updatedAt": {"type": "Date"}, "ACL": {"type": "ACL"}, "name": {"type": "String"},
                    "team": {"type": "Pointer", "targetClass": "Team"}, "coach": {"type": "Pointer", "targetClass": "Team"}}}]}
                """#,
        ]
        for (name, text) in files { try Data(text.utf8).write(to: export.appendingPathComponent(name)) }
        try typechecks(export)
        let code = try SwiftCompiler.swiftFiles(in: try generate(export)).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        // Null in one row and missing in the other: a double optional keeps them apart.
        #expect(code.contains("public var team: ParseReference<Team>??\n"))
        #expect(code.contains("public var coach: ParseReference<Team>?\n"))
        #expect(!code.contains("Not declared"))
    }

    @Test func foundationKeyedArchiveRoundTripsThroughGeneratedClasses() throws {
        let dir = try SwiftCompiler.scratch("keyed")
        let archive = dir.appendingPathComponent("staff.bplist")
        try FoundationStaff.archive().write(to: archive)
        let out = try generate(archive)
        let code = try SwiftCompiler.swiftFiles(in: out).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        // Foundation on Linux archives the class under its module-qualified name.
        let typeName = try #require(code.firstMatch(of: /final class (\w+): ArchiveCoding/)?.1).description
        #expect(code.contains("FoundationStaff\""))
        let main = dir.appendingPathComponent("main.swift")
        try (Self.comparison + """
            let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
            let root = try KeyedUnarchiver.unarchivedObject(ofType: \(typeName).self, from: data, registry: GeneratedModels.registry)
            let again = try KeyedArchiver.archivedData(withRootObject: root)
            let a = try KeyedGraph(table: KeyedArchive.readTable(data).table).jsonValue()
            let b = try KeyedGraph(table: KeyedArchive.readTable(again).table).jsonValue()
            guard same(a, b) else { print("MISMATCH\\n\\(a)\\n\\(b)"); exit(1) }
            print("round-trip \\(root.name) manager \\(root.manager?.name ?? "-")")
            """).write(to: main, atomically: true, encoding: .utf8)
        let result = try SwiftCompiler.buildAndRun(try SwiftCompiler.swiftFiles(in: out) + [main], in: dir, arguments: [archive.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("round-trip Ada manager Grace"), "\(result.output)")
    }
}

extension CodegenCompileTests {
    /// A key holding objects of several classes (bpylist2's `JNStreamTable.columns`: five
    /// column classes) is typed as their nearest common superclass from the archive's
    /// `$classes` (`JNStreamTableColumn`, generated as an open base with no keys of its own),
    /// and the archive decodes into the generated classes and re-encodes with every object's
    /// class, chain, version and keys (was `[PFValue]`, "objects of several classes").
    /// A program that unarchives the file named by its argument as `root` with the generated
    /// registry, archives it again, fails unless both graphs are the same, and prints
    /// "round-trip " and the archived class names of the objects in the array `classesOf`.
    static func roundTripProgram(root: String, classesOf array: String) -> String {
        comparison + """
            let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
            let root = try KeyedUnarchiver.unarchivedObject(ofType: \(root).self, from: data, registry: GeneratedModels.registry)
            let again = try KeyedArchiver.archivedData(withRootObject: root)
            let a = try KeyedGraph(table: KeyedArchive.readTable(data).table).jsonValue()
            let b = try KeyedGraph(table: KeyedArchive.readTable(again).table).jsonValue()
            guard same(a, b) else { print("MISMATCH\\n\\(a)\\n\\(b)"); exit(1) }
            print("round-trip " + root.\(array).map { type(of: $0).archiveClassName }.joined(separator: ","))
            """
    }

    /// A base under another base, as a nib's `NSControl` under `NSResponder` (one key holds
    /// controls only, another any view): the inner base overrides `encode(with:)` (it did
    /// not, and the code did not compile), and an optional number or Boolean is encoded
    /// without a `try` that warned. Built with plistlib, as a nib's classes are laid out.
    @Test func aBaseUnderABaseCompilesWithoutWarningsAndRoundTrips() throws {
        let dir = try SwiftCompiler.scratch("nested-bases")
        let source = dir.appendingPathComponent("views.archive")
        let made = try Peers.python(
            """
            import plistlib, sys
            U = plistlib.UID
            objs = ["$null", {}]
            def add(o, name=None, chain=None):
                objs.append(o)
                ref = U(len(objs) - 1)
                if name:
                    objs.append({"$classname": name, "$classes": chain})
                    o["$class"] = U(len(objs) - 1)
                return ref
            control = lambda n: [n, "Control", "View", "Responder", "NSObject"]
            iv = add({"image": "pic", "alpha": 0.5, "hidden": True}, "ImageView", control("ImageView"))
            iv2 = add({"image": "pic2"}, "ImageView", control("ImageView"))
            bt = add({"title": "OK"}, "Button", control("Button"))
            vw = add({"frame": "{{0, 0}, {1, 1}}"}, "View", ["View", "Responder", "NSObject"])
            st = add({"value": 3, "alpha": 1.0}, "Stepper", control("Stepper"))
            items = add({"NS.objects": [iv, bt, vw, st]}, "NSArray", ["NSArray", "NSObject"])
            controls = add({"NS.objects": [iv, iv2, bt, st]}, "NSArray", ["NSArray", "NSObject"])
            objs[1] = {"items": items, "controls": controls}
            objs.append({"$classname": "Holder", "$classes": ["Holder", "NSObject"]})
            objs[1]["$class"] = U(len(objs) - 1)
            top = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": U(1)}, "$objects": objs}
            plistlib.dump(top, open(sys.argv[1], "wb"), fmt=plistlib.FMT_BINARY)
            """, [source.path])
        #expect(made.status == 0, "\(made.stderr)")
        let out = try generate(source)
        let files = try SwiftCompiler.swiftFiles(in: out)
        let code = try files.map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains("public class Control: Responder {"), "\(code)")
        #expect(code.contains("public final class ImageView: Control {"), "\(code)")
        #expect(code.contains("if let hidden { coder.encode(hidden, forKey: \"hidden\") }"), "\(code)")
        let checked = try SwiftCompiler.typecheck(files)
        #expect(checked.status == 0, "\(checked.output)")
        #expect(!checked.output.contains("warning:"), "\(checked.output)")
        let main = out.deletingLastPathComponent().appendingPathComponent("main.swift")
        try Self.roundTripProgram(root: "Holder", classesOf: "controls").write(to: main, atomically: true, encoding: .utf8)
        let result = try SwiftCompiler.buildAndRun(files + [main], in: out.deletingLastPathComponent(), arguments: [source.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("round-trip ImageView,ImageView,Button,Stepper"), "\(result.output)")
    }

    @Test func keyedArchiveWithSeveralClassesRoundTripsThroughTheirSuperclass() throws {
        let source = Fixtures.real.appendingPathComponent("keyed/bpylist2-fullChangeLog.bplist")
        let out = try generate(source)
        let code = try SwiftCompiler.swiftFiles(in: out).map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(code.contains("public var columns: [JNStreamTableColumn]\n"))
        #expect(code.contains("public class JNStreamTableColumn: ArchiveCoding {"))
        #expect(code.contains("public final class JNStreamTablePackedValueColumn: JNStreamTableColumn {"))
        #expect(!code.contains("several classes: kept as"))
        let dir = out.deletingLastPathComponent()
        let main = dir.appendingPathComponent("main.swift")
        try Self.roundTripProgram(root: "JNStreamTable", classesOf: "columns").write(to: main, atomically: true, encoding: .utf8)
        let result = try SwiftCompiler.buildAndRun(try SwiftCompiler.swiftFiles(in: out) + [main], in: dir, arguments: [source.path])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("round-trip JNStreamTableUInt8Column,JNStreamTableUInt64Column,"), "\(result.output)")
        #expect(result.output.contains(",JNStreamTableDictionaryColumn"), "\(result.output)")
    }
}

/// Objects archived by Foundation's own NSKeyedArchiver.
final class FoundationStaff: NSObject, NSCoding {
    var name: String
    var salary: Int
    var hired: Date
    var tags: [String]
    var manager: FoundationStaff?

    init(name: String, salary: Int, hired: Date, tags: [String], manager: FoundationStaff?) {
        self.name = name
        self.salary = salary
        self.hired = hired
        self.tags = tags
        self.manager = manager
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(salary, forKey: "salary")
        coder.encode(hired, forKey: "hired")
        coder.encode(tags, forKey: "tags")
        coder.encode(manager, forKey: "manager")
    }

    init?(coder: NSCoder) { nil }

    static func archive() throws -> Data {
        NSKeyedArchiver.setClassName("Employee", for: FoundationStaff.self)
        let boss = FoundationStaff(name: "Grace", salary: 200, hired: Date(timeIntervalSince1970: 1_000_000), tags: ["lead"], manager: nil)
        let worker = FoundationStaff(name: "Ada", salary: 150, hired: Date(timeIntervalSince1970: 2_000_000), tags: ["eng", "math"], manager: boss)
        return try NSKeyedArchiver.archivedData(withRootObject: worker, requiringSecureCoding: false)
    }
}

/// The generated code for two real sources, reviewed as a Swift engineer would review it and
/// kept as golden files: any change to the generator shows up as a diff here. Regenerate with
/// `PFCODEGEN_UPDATE_GOLDEN=1` and review the diff.
@Suite("Golden generated code")
struct CodegenGoldenTests {
    static let golden = Fixtures.repoRoot.appendingPathComponent("Tests/PFCodegenTests/Golden")

    @Test(arguments: [
        ("parse-export.swift.golden", "Tests/Fixtures/real/parse", ["--enums"]),
        ("fullChangeLog.swift.golden", "Tests/Fixtures/real/keyed/bpylist2-fullChangeLog.bplist", []),
    ])
    func matchesGolden(_ name: String, _ source: String, _ extra: [String]) throws {
        let out = try SwiftCompiler.scratch("golden").appendingPathComponent("Models")
        let result = try SwiftCompiler.codegen([Fixtures.repoRoot.appendingPathComponent(source).path, "--out", out.path, "--single-file"] + extra)
        #expect(result.status == 0, "\(result.output)")
        let generated = try String(contentsOf: out.appendingPathComponent("GeneratedModels.swift"), encoding: .utf8)
        let golden = Self.golden.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["PFCODEGEN_UPDATE_GOLDEN"] == "1" {
            try generated.write(to: golden, atomically: true, encoding: .utf8)
        }
        #expect(generated == (try String(contentsOf: golden, encoding: .utf8)))
    }
}

/// The sample's committed types are what `pfarchive codegen` writes for the sample export today.
@Test func sampleModelsAreCurrent() throws {
    let out = try SwiftCompiler.scratch("sample").appendingPathComponent("Models")
    let result = try SwiftCompiler.codegen([
        Fixtures.repoRoot.appendingPathComponent("Samples/data/scores.json").path, "--out", out.path, "--single-file",
    ])
    #expect(result.status == 0, "\(result.output)")
    let fresh = try String(contentsOf: out.appendingPathComponent("GeneratedModels.swift"), encoding: .utf8)
    let committed = try String(
        contentsOf: Fixtures.repoRoot.appendingPathComponent("Samples/codegen/Models/GeneratedModels.swift"), encoding: .utf8)
    #expect(fresh == committed)
}

@Suite("pfarchive codegen errors")
struct CodegenCommandErrorTests {
    @Test func unknownClassIsOneLineExitOne() throws {
        let result = try SwiftCompiler.codegen([Fixtures.real.appendingPathComponent("parse").path, "--classes", "Nope"])
        #expect(result.status == 1)
        #expect(result.output.contains("no class Nope"))
        #expect(result.output.split(separator: "\n").count == 1)
    }

    @Test func styleThatDoesNotFitTheSourceIsAUsageError() throws {
        let result = try SwiftCompiler.codegen([Fixtures.real.appendingPathComponent("parse").path, "--style", "archive"])
        #expect(result.status == 2)
    }

    @Test func schemaFileTakesNoAdapterStyleAndABrokenOneIsOneLine() throws {
        let schema = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures/schema.json")
        #expect(try SwiftCompiler.codegen([schema.path, "--style", "adapter"]).status == 2)
        let broken = try SwiftCompiler.scratch("schema").appendingPathComponent("broken.json")
        try Data(#"{"schemaVersion": 1, "types": {"A": {"version": "two", "fields": []}}}"#.utf8).write(to: broken)
        let result = try SwiftCompiler.codegen([broken.path])
        #expect(result.status == 1)
        #expect(result.output.contains("broken.json"))
        #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
    }

    @Test func destinationHoldingOtherFilesIsRefusedAndLeftAlone() throws {
        let out = try SwiftCompiler.scratch("foreign")
        let mine = out.appendingPathComponent("Notes.txt")
        try Data("keep".utf8).write(to: mine)
        let result = try SwiftCompiler.codegen([Fixtures.real.appendingPathComponent("parse").path, "--out", out.path])
        #expect(result.status == 1)
        #expect(try String(contentsOf: mine, encoding: .utf8) == "keep")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["Notes.txt"])
    }
}
