import Foundation
import PFCore
import PFKeyedArchive
import PFTestSupport
import Testing

/// Counts instances created, so a test can show that secure decoding refused a class
/// before anything was instantiated.
final class CreationCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}

/// A registered class that hostile archives try to make us instantiate in place of theirs.
final class HostileProbe: ArchiveCoding {
    static let archiveClassName = "HostileProbe"
    static let created = CreationCounter()
    init() {}
    func encode(with coder: KeyedArchiver) throws {}
    init(from coder: KeyedUnarchiver) throws { Self.created.increment() }
}

/// The `ka_*` rows of Tests/Fixtures/conformance/hostile/MANIFEST.md, through the generic
/// graph decoder and through the typed unarchiver.
@Suite struct KeyedHostileTests {
    static let files = Fixtures.files(in: Fixtures.hostile) { $0.hasPrefix("ka_") }.map(\.lastPathComponent)

    /// The outcome MANIFEST.md names, per file: a PFError code and the path it names, or acceptance.
    enum Outcome: Sendable { case accept, error(PFError.Code, PFKeyPath?) }

    static let graphOutcomes: [String: Outcome] = [
        "ka_valid_baseline.bplist": .accept,
        "ka_top_uid_out_of_range.bplist": .error(.invalidValue, [.key("$top"), .key("root")]),
        "ka_class_uid_out_of_range.bplist": .error(.invalidValue, [.key("$objects"), .index(1), .key("$class")]),
        "ka_class_uid_points_to_string.bplist": .error(.invalidValue, [.key("$objects"), .index(2)]),
        // Not allowlisted: refused by name, at the object that names it.
        "ka_class_not_allowlisted.bplist": .error(.disallowed, [.key("$objects"), .index(1)]),
        // $classname "NSString"-like spoofing: the chain must start with $classname.
        "ka_classname_mismatch_classes.bplist": .error(.invalidValue, nil),
        // The graph keeps the cycle: accepted (checked below).
        "ka_self_referencing_array.bplist": .accept,
        "ka_dict_keys_objects_count_mismatch.bplist": .error(.invalidValue, [.key("$objects"), .index(1)]),
        "ka_missing_top.bplist": .error(.invalidValue, .root),
        "ka_wrong_archiver_version.bplist": .error(.invalidValue, [.key("$archiver")]),
        "ka_objects_not_array.bplist": .error(.invalidValue, [.key("$objects")]),
        "ka_uid_huge_value.bplist": .error(.invalidValue, [.key("$top"), .key("root")]),
        "ka_deep_nesting_20k.bplist": .error(.limitExceeded, nil),
        // Memoised: 40 nodes, not 2^39 leaves.
        "ka_dag_exponential.bplist": .accept,
    ]

    @Test func everyKeyedHostileFileHasAnOutcome() {
        #expect(Set(Self.files) == Set(Self.graphOutcomes.keys))
        #expect(Self.files.count == 14)
    }

    @Test(arguments: files)
    func graphDecoderGivesTheManifestOutcome(_ name: String) throws {
        let bytes = try KeyedFixtures.hostile(name)
        // An allowlist with no custom classes: only Foundation's are decoded.
        let options = KeyedGraph.DecodingOptions(allowedClasses: [])
        switch try #require(Self.graphOutcomes[name]) {
        case .accept:
            _ = try KeyedArchive.decodeGraph(bytes, options: options)
        case .error(let code, let path):
            let error = expectPFError(code) { _ = try KeyedArchive.decodeGraph(bytes, options: options) }
            if let path { #expect(error?.path == path, "\(String(describing: error))") }
            #expect(error?.message.isEmpty == false)
        }
    }

    @Test func baselineIsHello() throws {
        let bytes = try KeyedFixtures.hostile("ka_valid_baseline.bplist")
        #expect(try KeyedArchive.decodeGraph(bytes).root == .string("hello"))
        #expect(try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: bytes) == "hello")
    }

    @Test func notAllowlistedClassIsRefusedBeforeAnythingIsCreated() throws {
        let bytes = try KeyedFixtures.hostile("ka_class_not_allowlisted.bplist")
        let before = HostileProbe.created.count
        let error = expectPFError(.disallowed) {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: HostileProbe.self, from: bytes, registry: ArchiveClassRegistry([HostileProbe.self]))
        }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .classNotRegistered("NSTask"))
        #expect(error?.path == [.key("$objects"), .index(1)])
        #expect(HostileProbe.created.count == before, "no instance was created")
        // Without an allowlist the graph keeps the object as data; nothing is instantiated.
        let graph = try KeyedArchive.decodeGraph(bytes)
        guard case .object(let object)? = graph.root.flatMap(graph.node) else {
            Issue.record("root should stay a generic object")
            return
        }
        #expect(object.archivedClass.name == "NSTask")
    }

    @Test func selfReferencingArrayIsACycleInTheGraphAndAnErrorOrValueWhenTyped() throws {
        let bytes = try KeyedFixtures.hostile("ka_self_referencing_array.bplist")
        let graph = try KeyedArchive.decodeGraph(bytes)
        guard case .node(let root)? = graph.root, case .array(_, let items) = graph.nodes[root] else {
            Issue.record("root should be an array")
            return
        }
        #expect(items.contains(.node(root)), "the array contains itself")
        #expect(try graph.jsonValue()["$id"] == 1)
        // Typed: [String] cannot hold an array: a clean mismatch, not a recursion.
        let error = expectPFError(.invalidValue) { _ = try KeyedUnarchiver.unarchivedObject(ofType: [String].self, from: bytes) }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .expected("String", found: "dictionary (object 1)"))
    }

    @Test func exponentialDAGIsMemoised() throws {
        let bytes = try KeyedFixtures.hostile("ka_dag_exponential.bplist")
        let graph = try KeyedArchive.decodeGraph(bytes)
        #expect(graph.nodes.count == 40)
        // Rendering keeps the sharing: each level once, then $ref.
        let json = try graph.jsonValue()
        #expect(json["$id"] == nil, "the root is referenced once")
        // Typed decoding of nested arrays: values are cached by object, so also linear.
        _ = try KeyedUnarchiver.unarchivedObject(ofType: PFValue.self, from: bytes)
    }

    @Test func deepNestingHitsTheDepthLimitNotTheStack() throws {
        let bytes = try KeyedFixtures.hostile("ka_deep_nesting_20k.bplist")
        let error = expectPFError(.limitExceeded) { _ = try KeyedArchive.decodeGraph(bytes) }
        #expect(error?.failure(as: KeyedArchiveFailure.self) == .referencesTooDeep(maxDepth: PFLimits.default.maxDepth))
        expectPFError(.limitExceeded) { _ = try KeyedUnarchiver.unarchivedObject(ofType: PFValue.self, from: bytes) }
    }

    /// Through the typed API, every hostile file but the baseline fails with a PFError (never
    /// a trap); the baseline is "hello".
    @Test(arguments: files)
    func typedUnarchiverFailsCleanly(_ name: String) throws {
        let bytes = try KeyedFixtures.hostile(name)
        let registry = ArchiveClassRegistry([HostileProbe.self])
        if name == "ka_valid_baseline.bplist" {
            #expect(try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: bytes, registry: registry) == "hello")
            return
        }
        if name == "ka_dag_exponential.bplist" {
            // A well-formed archive of nested arrays: decodes as nested arrays, not as a String.
            let error = expectPFError(.invalidValue) { _ = try KeyedUnarchiver.unarchivedObject(ofType: String.self, from: bytes, registry: registry) }
            #expect(error?.failure(as: KeyedArchiveFailure.self) == .expected("String", found: "dictionary (object 2)"))
            return
        }
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofType: HostileProbe.self, from: bytes, registry: registry)
            Issue.record("\(name) decoded")
        } catch let error as PFError {
            #expect([.invalidValue, .disallowed, .limitExceeded].contains(error.code), "\(error)")
            #expect(!error.message.isEmpty)
        }
    }
}
