import Foundation
import PFCore

extension KeyedGraph {
    /// The graph in Graphviz DOT: one node per collection or object, labelled with its class
    /// (and its scalar fields, shortened), one edge per reference, labelled with the key or
    /// index. Shared objects have several incoming edges and cycles show as loops.
    /// - Parameter maxNodes: draw at most this many nodes (a note says how many were left out).
    /// - Returns: a `digraph` ready for `dot -Tsvg`.
    public func dotDescription(maxNodes: Int = 2_000) -> String {
        var out = "digraph archive {\n  rankdir=LR;\n  node [shape=record, fontname=\"Helvetica\", fontsize=10];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=9];\n"
        out += "  top [shape=box, style=rounded, label=\"$top\"];\n"
        // Breadth-first from $top, so the nodes drawn are the ones nearest the root.
        var order: [Int] = []
        var seen: Set<Int> = []
        var queue: [Int] = []
        for value in top.values {
            if case .node(let i) = value, nodes.indices.contains(i), seen.insert(i).inserted { queue.append(i) }
        }
        var head = 0
        while head < queue.count, order.count < maxNodes {
            let index = queue[head]
            head += 1
            order.append(index)
            for (_, child) in Self.edges(of: nodes[index]) {
                if case .node(let i) = child, nodes.indices.contains(i), seen.insert(i).inserted { queue.append(i) }
            }
        }
        let drawn = Set(order)
        for (key, value) in top {
            if case .node(let i) = value, drawn.contains(i) {
                out += "  top -> n\(i) [label=\"\(Self.dotEscape(key))\"];\n"
            }
        }
        for index in order {
            let node = nodes[index]
            var label = Self.dotEscape(Self.className(of: node))
            var scalars: [String] = []
            for (name, child) in Self.edges(of: node) {
                if case .node = child { continue }
                scalars.append("\(Self.dotEscape(name)) = \(Self.dotEscape(Self.short(child)))")
                if scalars.count == 8 { scalars.append("…"); break }
            }
            if !scalars.isEmpty { label += "|" + scalars.joined(separator: "\\l") + "\\l" }
            out += "  n\(index) [label=\"{\(label)}\"];\n"
            for (name, child) in Self.edges(of: node) {
                guard case .node(let target) = child else { continue }
                if drawn.contains(target) {
                    out += "  n\(index) -> n\(target) [label=\"\(Self.dotEscape(name))\"];\n"
                }
            }
        }
        if seen.count > drawn.count {
            out += "  more [shape=plaintext, label=\"\(seen.count - drawn.count) more objects not drawn\"];\n"
        }
        return out + "}\n"
    }

    static func className(of node: Node) -> String {
        switch node {
        case .array(let name, let items): "\(name ?? "array") (\(items.count))"
        case .set(let name, let items), .orderedSet(let name, let items): "\(name) (\(items.count))"
        case .dictionary(let name, let keys, _): "\(name ?? "dictionary") (\(keys.count))"
        case .object(let object): object.archivedClass.name
        }
    }

    /// The outgoing edges of a node, named by index, key or field.
    static func edges(of node: Node) -> [(String, Value)] {
        switch node {
        case .array(_, let items), .set(_, let items), .orderedSet(_, let items):
            return items.enumerated().map { ("[\($0.offset)]", $0.element) }
        case .dictionary(_, let keys, let values):
            return zip(keys, values).map { (short($0.0), $0.1) }
        case .object(let object):
            return object.fields.map { ($0.key, $0.value) }
        }
    }

    static func short(_ value: Value) -> String {
        let text: String
        switch value {
        case .null: text = "nil"
        case .bool(let b): text = b ? "true" : "false"
        case .int(let i): text = String(i)
        case .uint(let u): text = String(u)
        case .double(let d): text = d.description
        case .string(let s): text = "\"\(s)\""
        case .data(let d): text = "<\(d.count) bytes>"
        case .date(let d): text = PFValue.isoString(d)
        case .node(let i): text = "#\(i)"
        }
        return text.count > 40 ? String(text.prefix(39)) + "…" : text
    }

    /// Escapes text for a DOT record label.
    static func dotEscape(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "\"", "\\", "{", "}", "|", "<", ">": out.append("\\"); out.append(ch)
            case "\n": out += "\\n"
            default: out.append(ch)
            }
        }
        return out
    }
}
