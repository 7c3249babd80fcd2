import Foundation
import OrderedCollections
import PFCore
import PFGraphCopy
import PFParse
import PropertyBased
import Testing

/// Parse object sets as graphs: identity is className + objectId; Pointers and Relations are edges.
@Suite struct ParseGraphTests {
    /// The random case as Parse objects: labelled Pointers, `many` as a Relation (join rows).
    func objectSet(_ c: CopyGraphCase) throws -> ParseObjectSet {
        var objects: [ParseObject] = []
        var rows: [ParseJoinRow] = []
        for i in 0..<c.count {
            var fields: OrderedDictionary<String, ParseValue> = ["id": .int(Int64(i))]
            for e in c.edges where e.from == i { fields[e.label] = .pointer(ParsePointer(className: "Node", objectId: "obj\(e.to)")) }
            if let m = c.many.first(where: { $0.from == i }) {
                fields["many"] = .relation(className: "Node")
                for t in Set(m.to) { rows.append(ParseJoinRow(owningId: "obj\(i)", relatedId: "obj\(t)")) }
            }
            objects.append(try ParseObject(className: "Node", objectId: "obj\(i)", fields: fields))
        }
        return ParseObjectSet(objects: objects, relations: [ParseRelationRows(owningClass: "Node", field: "many", rows: rows)])
    }

    @Test func duplicateRewritesEveryPointerAndJoinRowIntoTheCopiedSet() async {
        await propertyCheck(count: 150, input: CopyGraphCase.generator) { c in
            do {
                let (graph, nodes) = try ParseGraph.graph(objectSet(c))
                guard let root = nodes[ParsePointer(className: "Node", objectId: "obj0")] else { return }
                let result = try GraphCopier(profile: .duplicate, seed: 3).copy(graph, roots: ["Node/obj0": .node(root)])
                let copied = (result.originalCount..<result.graph.nodes.count).filter { if case .object = result.graph.nodes[$0] { true } else { false } }
                let set = try ParseGraph.objectSet(result.graph, nodes: copied)
                let reached = c.distances(through: Set(CopyGraphCase.labels + ["many"]))
                #expect(set.objects.count == reached.count, "\(c)")
                let ids = Set(set.objects.compactMap(\.objectId))
                #expect(ids.count == set.objects.count && ids.isDisjoint(with: (0..<c.count).map { "obj\($0)" }), "\(c)")
                // Every Pointer and every join row of the copy stays inside the copy.
                for object in set.objects {
                    for case .pointer(let p) in object.fields.values { #expect(ids.contains(p.objectId), "\(c)") }
                }
                for relation in set.relations {
                    for row in relation.rows { #expect(ids.contains(row.owningId) && ids.contains(row.relatedId), "\(c)") }
                }
                #expect(set.relations.reduce(0) { $0 + $1.rows.count } == c.many.filter { reached[$0.from] != nil }.reduce(0) { $0 + Set($1.to).count }, "\(c)")
            } catch {
                Issue.record("\(error) for \(c)")
            }
        }
    }

    @Test func aDeepCopyOfAWholeSetIsTheSameSet() throws {
        let c = CopyGraphCase(count: 3, edges: [(0, "a", 1), (1, "b", 2), (2, "a", 0)], many: [(0, [1, 2])], sharedArrayOwners: [], pointers: [], actions: [:], maxDepth: 9)
        let original = try objectSet(c)
        let (graph, _) = try ParseGraph.graph(original)
        let result = try GraphCopier(profile: .deep).copy(graph)
        let copied = (result.originalCount..<result.graph.nodes.count).filter { if case .object = result.graph.nodes[$0] { true } else { false } }
        let set = try ParseGraph.objectSet(result.graph, nodes: copied)
        #expect(set.objects.map(\.restValue) == original.objects.map(\.restValue))
        #expect(set.relations.first?.rows == original.relations.first?.rows)
    }

    @Test func sharedPointersKeepTheOriginalIdentity() throws {
        let c = CopyGraphCase(count: 2, edges: [(0, "a", 1)], many: [], sharedArrayOwners: [], pointers: [], actions: [:], maxDepth: 9)
        let (graph, _) = try ParseGraph.graph(objectSet(c))
        let result = try GraphCopier(profile: CopyProfile.duplicate.edge("Node.a", .share)).copy(graph, roots: ["r": .node(0)])
        let set = try ParseGraph.objectSet(result.graph, nodes: [result.map[0] ?? -1])
        #expect(set.objects.count == 1)
        #expect(set.objects.first?.fields["a"] == .pointer(ParsePointer(className: "Node", objectId: "obj1")))
        #expect(set.objects.first?.objectId != "obj0")
    }
}

/// Value trees in the keyed JSON shape.
@Suite struct ValueTreeCopyTests {
    @Test func sharedValuesStaySharedAndRulesApplyToUntypedDictionaries() throws {
        let tree: PFValue = ["a": ["$id": 1, "$value": ["x": 1, "notes": "n"]], "b": ["$ref": 1], "list": [["notes": "m", "y": 2]]]
        let (deep, report) = try GraphCopier(profile: .deep).copy(json: tree)
        #expect(deep == tree)
        #expect(report.copiedObjects["(value)"] == 3)
        let (trimmed, _) = try GraphCopier(profile: CopyProfile.deep.attribute("*.notes", .omit)).copy(json: tree)
        #expect(trimmed == ["a": ["$id": 1, "$value": ["x": 1]], "b": ["$ref": 1], "list": [["y": 2]]])
        let (shallow, _) = try GraphCopier(profile: .shallow).copy(json: tree)
        #expect(shallow == tree, "shared values render the same")
    }
}
