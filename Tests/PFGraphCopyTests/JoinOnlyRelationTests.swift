import Foundation
import PFGraphCopy
import PFParse
import PFStoreTestSupport
import PropertyBased
import Testing

/// Relations declared only by join rows (Parse.com's exports leave the Relation field out of
/// the rows), and relation targets inferred from the related ids.
@Suite struct JoinOnlyRelationTests {
    /// Team t1 → members p1, p2; t2 → p2, and a member id that is no object (gone).
    func set(target: String? = nil) throws -> ParseObjectSet {
        let objects = [
            try ParseObject(className: "Team", objectId: "t1", fields: ["name": .string("Reds")]),
            try ParseObject(className: "Team", objectId: "t2", fields: ["name": .string("Blues")]),
            try ParseObject(className: "Player", objectId: "p1", fields: ["name": .string("Ann")]),
            try ParseObject(className: "Player", objectId: "p2", fields: ["name": .string("Bob")]),
        ]
        let rows = [("t1", "p1"), ("t1", "p2"), ("t2", "p2"), ("t2", "gone")].map { ParseJoinRow(owningId: $0.0, relatedId: $0.1) }
        return ParseObjectSet(objects: objects, relations: [ParseRelationRows(owningClass: "Team", field: "members", rows: rows, targetClass: target)])
    }

    func copiedNodes(_ result: GraphCopyResult) -> [Int] {
        (result.originalCount..<result.graph.nodes.count).filter { if case .object = result.graph.nodes[$0] { true } else { false } }
    }

    @Test func theTargetIsInferredAndTheMissingIdListed() throws {
        let findings = ParseGraph.relationTargets(try set())
        #expect(findings.count == 1)
        #expect(findings.first?.outcome == .inferred("Player"))
        #expect(findings.first?.missingIds == ["gone"])
        #expect(findings.first?.description == "relation _Join:members:Team: target class Player inferred from 3 related ids; 1 related id is in no class: gone")
        #expect(ParseGraph.relationTargets(try set(target: "Player")).isEmpty, "a schema's target is not inferred")
    }

    @Test func inferenceOutcomes() {
        let key = ParseRelationKey(owningClass: "A", field: "f")
        let classes: [String: [String]] = ["x": ["P"], "y": ["P", "Q"], "z": ["Q"]]
        func infer(_ ids: [String]) -> RelationTargetInference { RelationTargetInference(key, relatedIds: ids) { classes[$0] ?? [] } }
        #expect(infer(["x", "y", "x"]).outcome == .inferred("P"))
        #expect(infer(["x", "y", "x"]).idCount == 2)
        #expect(infer(["y"]).outcome == .ambiguous(["P", "Q"]), "an id in two classes")
        #expect(infer(["x", "z"]).outcome == .ambiguous(["P", "Q"]), "ids of two classes")
        #expect(infer(["n1", "n2"]).outcome == .notFound)
        #expect(infer(["n1", "n2"]).missingCount == 2 && infer(["n1", "n2"]).relation.targetClass == nil)
        #expect(infer([]).description == "relation _Join:f:A: target class unknown: no schema names it and it has no rows")
    }

    @Test func deepCopyKeepsEveryRowAndAddsNoField() throws {
        let (graph, _) = try ParseGraph.graph(try set())
        let result = try GraphCopier(profile: .deep).copy(graph)
        let out = try ParseGraph.objectSet(result.graph, nodes: copiedNodes(result))
        #expect(out.objects.count == 4)
        #expect(out.objects.allSatisfy { $0.fields["members"] == nil }, "the rows had no Relation field")
        #expect(out.relations.count == 1 && out.relations.first?.targetClass == "Player")
        #expect(Set(out.relations.flatMap(\.rows)) == Set(try set().relations[0].rows))
    }

    @Test func duplicateRewritesBothSidesAndOmitEmpties() throws {
        let (graph, _) = try ParseGraph.graph(try set())
        let result = try GraphCopier(profile: .duplicate, seed: 5).copy(graph)
        let out = try ParseGraph.objectSet(result.graph, nodes: copiedNodes(result))
        var name: [String: String] = [:]
        for object in out.objects { if case .string(let n)? = object.fields["name"], let id = object.objectId { name[id] = n } }
        let rows = out.relations.flatMap(\.rows)
        #expect(rows.count == 4)
        #expect(Set(rows.map { [name[$0.owningId] ?? $0.owningId, name[$0.relatedId] ?? $0.relatedId] })
            == [["Reds", "Ann"], ["Reds", "Bob"], ["Blues", "Bob"], ["Blues", "gone"]], "the missing member keeps its id")
        #expect(!rows.contains { ["t1", "t2", "p1", "p2"].contains($0.owningId) || ["p1", "p2"].contains($0.relatedId) })

        let omit = try CopyRules(profile: CopyProfile.deep.edge("Team.members", .omit))
        let omitted = try GraphCopier(rules: omit).copy(graph)
        let none = try ParseGraph.objectSet(omitted.graph, nodes: copiedNodes(omitted))
        #expect(none.relations.flatMap(\.rows).isEmpty)
        #expect(none.objects.count == 4)
    }
}

/// Over generated stores written Parse.com's way (no Relation field in the rows, no schema
/// naming the targets), a deep copy keeps every join row whose owner is in the set, and a
/// duplicate keeps as many, with both sides renamed where the objects were copied.
@Suite struct JoinOnlyRelationPropertyTests {
    @Test func everyJoinRowSurvivesDeepAndDuplicate() async {
        await propertyCheck(count: 60, input: StoreGen.store()) { generated in
            do {
                var objects: [ParseObject] = []
                for object in generated.objects {
                    objects.append(try object.replacingFields(object.fields.filter { if case .relation = $0.value { false } else { true } }))
                }
                var owners: [String: Set<String>] = [:]
                for object in objects { if let id = object.objectId { owners[object.className, default: []].insert(id) } }
                var relations: [ParseRelationRows] = []
                var kept: [String: Set<ParseJoinRow>] = [:]
                for (key, rows) in generated.joinRows.sorted(by: { $0.key < $1.key }) {
                    relations.append(ParseRelationRows(owningClass: key.owningClass, field: key.field, rows: rows))
                    kept[key.joinClassName] = Set(rows.filter { owners[key.owningClass]?.contains($0.owningId) == true })
                }
                let set = ParseObjectSet(objects: objects, relations: relations)
                for finding in ParseGraph.relationTargets(set) {
                    if let target = finding.relation.targetClass {
                        let declared = generated.schema.classes[finding.relation.owningClass]?[finding.relation.field]?.targetClass
                        #expect(declared == nil || declared == target, "\(finding)\n\(generated)")
                    }
                }
                let (graph, _) = try ParseGraph.graph(set)
                for profile in [CopyProfile.deep, .duplicate] {
                    let result = try GraphCopier(profile: profile, seed: 9).copy(graph)
                    let nodes = (result.originalCount..<result.graph.nodes.count).filter { if case .object = result.graph.nodes[$0] { true } else { false } }
                    let out = try ParseGraph.objectSet(result.graph, nodes: nodes)
                    #expect(out.objects.allSatisfy { o in !o.fields.values.contains { if case .relation = $0 { true } else { false } } }, "no Relation field added")
                    var rows: [String: [ParseJoinRow]] = [:]
                    for relation in out.relations { rows[relation.joinClassName, default: []] += relation.rows }
                    for (name, expected) in kept where !expected.isEmpty {
                        if profile.name == "deep" {
                            #expect(Set(rows[name] ?? []) == expected, "\(name)\n\(generated)")
                        } else {
                            #expect(Set(rows[name] ?? []).count == expected.count, "\(name)\n\(generated)")
                            #expect((rows[name] ?? []).allSatisfy { row in owners.values.allSatisfy { !$0.contains(row.owningId) } }, "owners renamed")
                        }
                    }
                }
            } catch {
                Issue.record("\(error)\n\(generated)")
            }
        }
    }
}
