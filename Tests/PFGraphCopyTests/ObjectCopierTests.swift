import Foundation
import PFGraphCopy
import PFKeyedArchive
import PropertyBased
import Testing

/// A Swift class for object-graph copies: labelled to-one edges and a to-many list.
final class CopyNode: ArchiveCoding {
    static let archiveClassName = "CopyNode"
    var id: Int
    var edges: [String: CopyNode] = [:]
    var list: [CopyNode] = []

    init(id: Int) { self.id = id }

    func encode(with coder: KeyedArchiver) throws {
        coder.encode(id, forKey: "id")
        let keys = edges.keys.sorted()
        try coder.encode(keys, forKey: "edgeKeys")
        for key in keys { try coder.encode(edges[key], forKey: key) }
        try coder.encode(list, forKey: "list")
    }

    init(from coder: KeyedUnarchiver) throws {
        id = try coder.decode(Int.self, forKey: "id")
        for key in try coder.decode([String].self, forKey: "edgeKeys") {
            try coder.decodeReference(CopyNode.self, forKey: key) { [unowned self] in self.edges[key] = $0 }
        }
        try coder.decodeReference([CopyNode].self, forKey: "list") { [unowned self] in self.list = $0 ?? [] }
    }
}

@Suite struct ObjectCopierTests {
    static let registry = ArchiveClassRegistry([CopyNode.self])

    func build(_ c: CopyGraphCase) -> [CopyNode] {
        let nodes = (0..<c.count).map(CopyNode.init)
        for e in c.edges { nodes[e.from].edges[e.label] = nodes[e.to] }
        for m in c.many { nodes[m.from].list = m.to.map { nodes[$0] } }
        return nodes
    }

    func unlink(_ nodes: some Sequence<CopyNode>) {
        for n in nodes {
            n.edges = [:]
            n.list = []
        }
    }

    /// Every node reachable from a root.
    func reachable(_ root: CopyNode) -> [ObjectIdentifier: CopyNode] {
        var seen: [ObjectIdentifier: CopyNode] = [:]
        var stack = [root]
        while let n = stack.popLast() {
            guard seen.updateValue(n, forKey: ObjectIdentifier(n)) == nil else { continue }
            stack.append(contentsOf: n.edges.values)
            stack.append(contentsOf: n.list)
        }
        return seen
    }

    @Test func randomGraphsFollowTheirActions() async {
        await propertyCheck(count: 150, input: CopyGraphCase.generator) { c in
            let originals = build(c)
            var copies: [CopyNode] = []
            defer {
                unlink(originals)
                unlink(copies)
            }
            do {
                var profile = CopyProfile.deep
                for label in CopyGraphCase.labels + ["list"] {
                    profile = try profile.edge("CopyNode.\(label)", c.actions[label == "list" ? "many" : label] ?? .copy)
                }
                let rules = try CopyRules(profile: profile)
                let result = try ObjectCopier.copy(originals[0], rules: rules, registry: Self.registry)
                let originalIDs = Set(originals.map(ObjectIdentifier.init))
                copies = result.map.values.compactMap { $0 as? CopyNode }
                // Copied objects are new instances, one per original (identity kept).
                #expect(copies.allSatisfy { !originalIDs.contains(ObjectIdentifier($0)) }, "\(c)")
                #expect(result.map[ObjectIdentifier(originals[0])] === result.copy)
                let copyLabels = Set(c.actions.filter { $0.value == .copy }.map(\.key))
                #expect(Set(result.map.keys) == Set(c.distances(through: copyLabels).keys.map { ObjectIdentifier(originals[$0]) }), "\(c)")
                for (original, copy) in result.map {
                    guard let o = originals.first(where: { ObjectIdentifier($0) == original }), let n = copy as? CopyNode else { continue }
                    #expect(n.id == o.id)
                    for (label, target) in o.edges {
                        let got = n.edges[label]
                        switch c.actions[label] ?? .copy {
                        case .copy: #expect(got === result.map[ObjectIdentifier(target)], "\(c)")
                        case .share: #expect(got === target, "share keeps the original: \(c)")
                        case .omit: #expect(got == nil, "\(c)")
                        case .conditional: #expect(got === result.map[ObjectIdentifier(target)], "nil exactly when not copied: \(c)")
                        case .reference: break
                        }
                    }
                    let expectedList: [AnyObject?] =
                        switch c.actions["many"] ?? .copy {
                        case .copy: o.list.map { result.map[ObjectIdentifier($0)] }
                        case .share: o.list
                        case .omit: []
                        case .conditional: o.list.compactMap { (n: CopyNode) -> AnyObject? in result.map[ObjectIdentifier(n)] }.map { Optional($0) }
                        case .reference: []
                        }
                    #expect(n.list.count == expectedList.count && zip(n.list, expectedList).allSatisfy { $0 === $1 }, "node \(o.id): \(n.list.map(\.id)) vs \(expectedList.count) in \(c)")
                }
            } catch {
                Issue.record("\(error) for \(c)")
            }
        }
    }

    @Test func deepCopySeparatesTheGraphs() async {
        await propertyCheck(count: 100, input: CopyGraphCase.generator) { c in
            let originals = build(c)
            defer { unlink(originals) }
            do {
                let result = try ObjectCopier.copy(originals[0], rules: try CopyRules(profile: .deep), registry: Self.registry)
                let copied = reachable(result.copy)
                defer { unlink(copied.values) }
                let originalIDs = Set(reachable(originals[0]).keys)
                #expect(copied.keys.allSatisfy { !originalIDs.contains($0) }, "\(c)")
                #expect(copied.count == originalIDs.count, "\(c)")
            } catch {
                Issue.record("\(error) for \(c)")
            }
        }
    }

    @Test func pasteboardAndPersistenceArchivesDifferOnlyInProfile() throws {
        // A root owning one child and referring to a neighbour the archive should not drag in.
        let root = CopyNode(id: 0)
        let child = CopyNode(id: 1)
        let neighbour = CopyNode(id: 2)
        let far = CopyNode(id: 3)
        root.edges = ["a": child, "b": neighbour]
        neighbour.edges = ["a": far]
        child.edges = ["c": root]
        defer { unlink([root, child, neighbour, far]) }
        let schema = CopySchema(types: [
            "CopyNode": .init(attributes: ["id", "edgeKeys"], edges: ["a": .init(ownership: .owns), "b": .init(ownership: .refers), "c": .init(ownership: .back), "list": .init(ownership: .owns)])
        ])
        var pasteboard = CopyProfile.pasteboard
        pasteboard.ownershipActions[.refers] = .conditional
        let paste = try ObjectCopier.archive(root, rules: CopyRules(profile: pasteboard, schema: schema))
        let persist = try ObjectCopier.archive(root, rules: CopyRules(profile: .persistence, schema: schema))
        func ids(_ data: Data) throws -> Set<Int> {
            let copy = try KeyedUnarchiver.unarchivedObject(ofType: CopyNode.self, from: data, registry: Self.registry)
            let all = reachable(copy)
            defer { unlink(all.values) }
            return Set(all.values.map(\.id))
        }
        #expect(try ids(paste.data) == [0, 1])
        #expect(try ids(persist.data) == [0, 1, 2, 3])
        #expect(paste.report.droppedConditionalCount == 1)
        #expect(persist.report.copiedObjects["CopyNode"] == 4)
    }
}
