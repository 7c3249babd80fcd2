import Foundation
import PFCore
import PFGraphCopy
import PropertyBased
import Testing

/// Properties of ``GraphCopier`` on random graphs with sharing and cycles.
@Suite struct GraphCopyPropertyTests {
    func copy(_ c: CopyGraphCase, _ profile: CopyProfile) throws -> GraphCopyResult {
        try GraphCopier(profile: profile, seed: 7).copy(c.graph())
    }

    @Test func deepCopyPreservesShapeAndSeparatesTheGraphs() async {
        await propertyCheck(count: 200, input: CopyGraphCase.generator) { c in
            do {
                let r = try copy(c, .deep)
                let g = r.graph
                guard case .node(let root)? = g.top["root"] else { Issue.record("no root"); return }
                // Everything reachable from the copy is a copy; nothing reachable from the
                // original is.
                #expect(g.reachable(from: .node(root)).allSatisfy(r.isCopy), "\(c)")
                #expect(g.reachable(from: .node(0)).allSatisfy { !r.isCopy($0) }, "\(c)")
                // Shape: the copy of each original object's field is the copy of its target,
                // so two fields share a target in the copy iff they did in the original.
                let reached = c.distances(through: Set(CopyGraphCase.labels + ["many", "shared"]))
                #expect(r.report.copiedObjects["Node"] == reached.count, "\(c)")
                var targets: [String: Int] = [:]
                var copiedTargets: [String: Int] = [:]
                for object in reached.keys {
                    guard let copyIndex = r.map[object] else { Issue.record("\(object) not copied: \(c)"); continue }
                    for e in c.edges where e.from == object {
                        guard case .node(let t)? = g.fields(copyIndex)[e.label] else { Issue.record("edge lost"); continue }
                        #expect(t == r.map[e.to], "\(c)")
                        targets["\(object).\(e.label)"] = e.to
                        copiedTargets["\(object).\(e.label)"] = t
                    }
                    if c.sharedArrayOwners.count == 2, c.sharedArrayOwners.contains(object) {
                        // One shared array stays one array.
                        let arrays = c.sharedArrayOwners.compactMap { r.map[$0] }.compactMap { g.fields($0)["shared"] }
                        #expect(Set(arrays.map { "\($0)" }).count == 1, "\(c)")
                    }
                }
                for (a, ta) in targets {
                    for (b, tb) in targets {
                        #expect((ta == tb) == (copiedTargets[a] == copiedTargets[b]), "\(a) \(b) in \(c)")
                    }
                }
            } catch {
                Issue.record("\(error) for \(c)")
            }
        }
    }

    @Test func eachEdgeFollowsItsAction() async {
        await propertyCheck(count: 300, input: CopyGraphCase.generator) { c in
            do {
                var profile = CopyProfile.deep
                for (label, action) in c.actions { profile = try profile.edge("Node.\(label)", action) }
                let r = try copy(c, profile)
                let g = r.graph
                // The copied objects are exactly those reached from the root through copy edges.
                let copyLabels = Set(c.actions.filter { $0.value == .copy }.map(\.key))
                let reached = c.distances(through: copyLabels)
                #expect(Set(r.map.keys.filter { $0 < c.count }) == Set(reached.keys), "\(c)")
                for (object, copyIndex) in r.map where object < c.count {
                    let fields = g.fields(copyIndex)
                    for e in c.edges where e.from == object {
                        let value = fields[e.label]
                        switch c.actions[e.label] ?? .copy {
                        case .copy: #expect(value == .node(r.map[e.to] ?? -99), "\(c)")
                        case .share: #expect(value == .node(e.to), "share points at the original: \(c)")
                        case .omit: #expect(value == .null, "\(c)")
                        case .conditional:
                            // Nil exactly when the target was not copied.
                            if let copied = r.map[e.to] { #expect(value == .node(copied), "\(c)") } else { #expect(value == .null, "\(c)") }
                        case .reference: break
                        }
                    }
                    for m in c.many where m.from == object {
                        let items = g.items(fields["many"]) ?? []
                        switch c.actions["many"] ?? .copy {
                        case .copy: #expect(items == m.to.map { .node(r.map[$0] ?? -99) }, "\(c)")
                        case .share: #expect(items == m.to.map { .node($0) }, "\(c)")
                        case .omit: #expect(items.isEmpty, "\(c)")
                        case .conditional: #expect(items == m.to.compactMap { r.map[$0].map { .node($0) } }, "\(c)")
                        case .reference: break
                        }
                    }
                }
                // Share edges are the only way from the copy back to the originals.
                if c.actions.values.allSatisfy({ $0 != .share }) {
                    guard case .node(let root)? = g.top["root"] else { return }
                    #expect(g.reachable(from: .node(root)).allSatisfy(r.isCopy), "\(c)")
                }
                #expect(r.report.droppedConditionalCount == droppedConditionals(c, r), "\(c)")
            } catch {
                Issue.record("\(error) for \(c)")
            }
        }
    }

    func droppedConditionals(_ c: CopyGraphCase, _ r: GraphCopyResult) -> Int {
        var n = 0
        for object in r.map.keys where object < c.count {
            if c.actions.values.contains(.conditional) {
                n += c.edges.filter { $0.from == object && c.actions[$0.label] == .conditional && r.map[$0.to] == nil }.count
                if c.actions["many"] == .conditional {
                    n += c.many.filter { $0.from == object }.flatMap(\.to).filter { r.map[$0] == nil }.count
                }
            }
        }
        if c.actions["shared"] == .conditional, c.sharedArrayOwners.count == 2, r.map[0] == nil { n += 0 }
        return n
    }

    @Test func maxDepthTruncatesAsDocumented() async {
        await propertyCheck(count: 300, input: CopyGraphCase.generator) { c in
            do {
                var profile = CopyProfile.deep
                profile.maxDepth = c.maxDepth
                let r = try copy(c, profile)
                let g = r.graph
                let distance = c.distances(through: Set(CopyGraphCase.labels + ["many", "shared"]))
                // Exactly the objects within maxDepth are copied.
                #expect(Set(r.map.keys.filter { $0 < c.count }) == Set(distance.filter { $0.value <= c.maxDepth }.keys), "\(c)")
                for (object, copyIndex) in r.map where object < c.count {
                    let fields = g.fields(copyIndex)
                    let atLimit = distance[object] == c.maxDepth
                    // An object at the limit keeps its attributes but its references become nil
                    // and its collections empty; one below it keeps every edge.
                    #expect(fields["id"] == .int(Int64(object)), "\(c)")
                    for e in c.edges where e.from == object {
                        #expect(fields[e.label] == (atLimit ? .null : .node(r.map[e.to] ?? -99)), "\(c)")
                    }
                    for m in c.many where m.from == object {
                        let items = g.items(fields["many"]) ?? []
                        #expect(atLimit ? (m.to.isEmpty || items.isEmpty) : items.count == m.to.count, "\(c)")
                    }
                }
                let cut = c.edges.filter { distance[$0.from] == c.maxDepth }.count
                    + c.many.filter { distance[$0.from] == c.maxDepth }.reduce(0) { $0 + $1.to.count }
                    + sharedCut(c, distance)
                #expect(r.report.truncatedEdgeCount == cut, "\(c)")
                profile.onDepthExceeded = .error
                // With onDepthExceeded error, any edge that would be cut fails the copy instead.
                if cut > 0 { #expect(throws: PFError.self) { try copy(c, profile) } } else { _ = try copy(c, profile) }
            } catch {
                Issue.record("\(error) for \(c)")
            }
        }
    }

    /// A collection shared by two objects is copied once, at its shallowest owner's depth.
    func sharedCut(_ c: CopyGraphCase, _ distance: [Int: Int]) -> Int {
        guard c.sharedArrayOwners.count == 2 else { return 0 }
        let depths = c.sharedArrayOwners.compactMap { distance[$0] }
        return depths.min() == c.maxDepth ? 1 : 0
    }

    @Test func duplicateRegeneratesIdsAndRewritesPointers() async {
        await propertyCheck(count: 200, input: CopyGraphCase.generator) { c in
            do {
                let r = try copy(c, .duplicate)
                let g = r.graph
                var newIds: [Int: String] = [:]
                for (object, copyIndex) in r.map where object < c.count {
                    guard case .string(let id)? = g.fields(copyIndex)["objectId"] else { Issue.record("no id"); continue }
                    newIds[object] = id
                }
                // Unique, and none is an original's.
                #expect(Set(newIds.values).count == newIds.count, "\(c)")
                #expect(newIds.values.allSatisfy { !$0.hasPrefix("obj") }, "\(c)")
                // Every Pointer in the copy names the copy of its target.
                for (k, p) in c.pointers.enumerated() {
                    guard let owner = r.map[p.from], case .node(let ptr)? = g.fields(owner)["ptr\(k)"],
                        case .dictionary(_, _, let values) = g.nodes[ptr]
                    else { continue }
                    // Copied targets are named by their new ids; others keep theirs.
                    #expect(values[2] == .string(newIds[p.to] ?? "obj\(p.to)"), "\(c)")
                    #expect(r.isCopy(ptr))
                }
            } catch {
                Issue.record("\(error) for \(c)")
            }
        }
    }

    @Test func planReportsWhatCopyDoes() async {
        await propertyCheck(count: 50, input: CopyGraphCase.generator) { c in
            do {
                var profile = CopyProfile.pasteboard
                profile.maxDepth = c.maxDepth
                let copier = try GraphCopier(profile: profile, seed: 1)
                #expect(try copier.plan(c.graph()) == copier.copy(c.graph()).report, "\(c)")
            } catch {
                Issue.record("\(error) for \(c)")
            }
        }
    }
}
