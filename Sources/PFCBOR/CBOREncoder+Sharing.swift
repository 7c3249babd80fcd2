import PFCore

// MARK: - Value sharing plan

extension CBOREncoder {
    /// Whether a value is worth writing once and referring to: a reference costs 3–11 bytes.
    static func isShareCandidate(_ value: PFValue) -> Bool {
        switch value {
        case .string(let s): s.utf8.count >= 8
        case .data(let d): d.count >= 8
        case .array(let a): !a.isEmpty
        case .dictionary(let m): !m.isEmpty
        default: false
        }
    }

    /// Counts the occurrences of each candidate in document order, not looking inside a
    /// repeat (it will be a reference, so what it holds is not written again).
    mutating func planSharing(_ root: PFValue) {
        var stack: [(PFValue, Int)] = [(root, 0)]
        while let (value, depth) = stack.popLast() {
            if CBOREncoder.isShareCandidate(value) {
                let seen = occurrences[PFValue.Exact(value), default: 0] + 1
                occurrences[PFValue.Exact(value)] = seen
                if seen > 1 { continue }
            }
            guard depth < maxDepth else { continue }
            switch value {
            case .array(let elements):
                for element in elements.reversed() { stack.append((element, depth + 1)) }
            case .dictionary(let members):
                for member in members.values.reversed() { stack.append((member, depth + 1)) }
            default:
                break
            }
        }
    }
}
