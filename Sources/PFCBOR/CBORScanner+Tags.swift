import Foundation
import PFCore

// MARK: - Tags

extension CBORScanner {
    /// Reads the content of tag `tag` (whose head starts at `start`) and applies its meaning.
    mutating func tagged(_ tag: UInt64, depth: Int, start: Int) throws(PFError) -> PFValue {
        tagCounts[tag, default: 0] += 1
        let inner = try enter(depth, start: start)
        switch tag {
        case CBORTag.selfDescribed:
            hasSelfDescribeTag = true
            return try value(depth: inner)
        case CBORTag.dateTimeString:
            let content = try value(depth: inner)
            guard case .string(let text) = content else {
                throw tagContent(tag, "a text string", got: content, start)
            }
            guard let date = PFDateFormat.parseISO8601(text) else {
                throw PFError(CBORFailure.badDate(text), offset: start)
            }
            return .date(date)
        case CBORTag.epochDateTime:
            let content = try value(depth: inner)
            switch content {
            case .int(let i): return .date(Date(timeIntervalSince1970: Double(i)))
            case .uint(let u): return .date(Date(timeIntervalSince1970: Double(u)))
            case .double(let d): return .date(Date(timeIntervalSince1970: d))
            default: throw tagContent(tag, "an integer or a float", got: content, start)
            }
        case CBORTag.positiveBignum, CBORTag.negativeBignum:
            let content = try value(depth: inner)
            guard case .data(let bytes) = content else { throw tagContent(tag, "a byte string", got: content, start) }
            return try bignum(bytes, negative: tag == CBORTag.negativeBignum, start: start)
        case CBORTag.shareable:
            return try shareable(depth: inner)
        case CBORTag.sharedReference:
            return try sharedReference(depth: inner, start: start)
        case CBORTag.uid:
            let content = try value(depth: inner)
            switch content {
            case .int(let i) where i >= 0: return .uid(UInt64(i))
            case .uint(let u): return .uid(u)
            default: throw tagContent(tag, "an unsigned integer (a keyed-archive UID)", got: content, start)
            }
        case CBORTag.stringReference, CBORTag.stringReferenceNamespace:
            throw PFError(CBORFailure.stringReferences(tag: tag), offset: start)
        case CBORTag.decimalFraction, CBORTag.bigfloat, CBORTag.rational:
            throw PFError(CBORFailure.numberTag(tag: tag), offset: start)
        default:
            // Unknown tags keep their content; info() reports them.
            return try value(depth: inner)
        }
    }

    /// Tag 2/3 content as an integer when it fits pfarchive's 64-bit integers.
    func bignum(_ bytes: Data, negative: Bool, start: Int) throws(PFError) -> PFValue {
        var magnitude: UInt64 = 0
        var significant = 0
        for b in bytes {
            if significant == 0 && b == 0 { continue }
            significant += 1
            guard significant <= 8 else {
                throw PFError(CBORFailure.bignumTooWide, offset: start)
            }
            magnitude = magnitude << 8 | UInt64(b)
        }
        if !negative { return magnitude <= UInt64(Int64.max) ? .int(Int64(magnitude)) : .uint(magnitude) }
        guard magnitude <= UInt64(Int64.max) else {
            throw PFError(CBORFailure.negativeBignumTooSmall, offset: start)
        }
        return .int(-1 - Int64(magnitude))
    }

    // MARK: - Value sharing (tags 28 and 29)

    /// Reads the content of tag 28, registering it under the next shareable index before its
    /// content is read (so references from inside it are cycles).
    mutating func shareable(depth: Int) throws(PFError) -> PFValue {
        // The walk after a check reads a shared value where it stands, at each reference.
        guard sharedContent == nil else { return try value(depth: depth) }
        measure?.sharedContent.append(pos)
        let index = shareables.count
        shareables.append(.pending)
        let nodesBefore = nodes
        let deepestBefore = deepest
        deepest = depth
        let content = try value(depth: depth)
        // Levels the content opens below its own position (an array of scalars opens one).
        let height = deepest - depth
        deepest = max(deepest, deepestBefore)
        shareables[index] = .ready(content, nodes: nodes - nodesBefore, height: height)
        return content
    }

    /// Reads the content of tag 29 and returns a copy of the shareable value it names.
    mutating func sharedReference(depth: Int, start: Int) throws(PFError) -> PFValue {
        let content = try value(depth: depth)
        let index: UInt64
        switch content {
        case .int(let i) where i >= 0: index = UInt64(i)
        case .uint(let u): index = u
        default: throw tagContent(CBORTag.sharedReference, "an unsigned integer", got: content, start)
        }
        if let sharedContent {
            // The walk after a check: the value is read again where it stands.
            guard index < UInt64(sharedContent.count) else {
                throw PFError(CBORFailure.unknownSharedReference(index: index, marked: sharedContent.count), offset: start)
            }
            let resume = pos
            pos = sharedContent[Int(index)]
            defer { pos = resume }
            return try value(depth: depth)
        }
        guard index < UInt64(shareables.count) else {
            throw PFError(CBORFailure.unknownSharedReference(index: index, marked: shareables.count), offset: start)
        }
        switch shareables[Int(index)] {
        case .pending:
            throw PFError(CBORFailure.cyclicSharedReference(index: index), offset: start)
        case .ready(let shared, let sharedNodes, let height):
            // The copy counts its nodes again (minus the index just counted), so a chain of
            // references that doubles at every level ("billion laughs") stops at maxNodes.
            let (total, overflow) = nodes.addingReportingOverflow(sharedNodes - 1)
            nodes = total
            guard !overflow, total <= limits.maxNodes else {
                throw PFLimits.exceeded("maxNodes", limits.maxNodes, format: Self.format, offset: start)
            }
            // The copy stands where the tag 29 stands, at level depth - 1.
            let reached = depth - 1 + height
            guard reached <= limits.maxDepth else {
                throw PFLimits.exceeded("maxDepth", limits.maxDepth, format: Self.format, offset: start)
            }
            if reached > deepest { deepest = reached }
            return shared
        }
    }
}

// MARK: - Errors

extension CBORScanner {
    func truncatedHead(_ start: Int) -> PFError {
        PFError(CBORFailure.truncatedHead(start: start), offset: start)
    }

    func missingBreak(_ what: String, _ start: Int) -> PFError {
        PFError(CBORFailure.missingBreak(what: what, start: start), offset: end)
    }

    func collectionLimit(_ start: Int) -> PFError {
        PFLimits.exceeded("maxCollectionCount", limits.maxCollectionCount, format: Self.format, offset: start)
    }

    func indefiniteNotAllowed(_ initial: UInt8, at start: Int) -> PFError {
        PFError(CBORFailure.indefiniteNotAllowed(initial: initial), offset: start)
    }

    func unassignedSimple(_ value: UInt8, _ start: Int) -> PFError {
        PFError(CBORFailure.unassignedSimple(value), offset: start)
    }

    func tagContent(_ tag: UInt64, _ expected: String, got: PFValue, _ start: Int) -> PFError {
        PFError(CBORFailure.tagContent(tag: tag, expected: expected, found: Self.describe(got)), offset: start)
    }

    static func describe(_ value: PFValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .uint: "an integer"
        case .double: "a float"
        case .string: "a text string"
        case .data: "a byte string"
        case .date: "a date"
        case .array: "an array"
        case .dictionary: "a map"
        case .uid: "a UID"
        }
    }
}

/// Two lowercase hex digits.
func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
