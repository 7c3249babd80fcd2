import Foundation
import PFCore

// MARK: - CBOREncoder

/// The writer's engine: appends encoded items to a scratch byte buffer.
struct CBOREncoder {
    static let format: PFError.Format = .cbor

    var bytes: [UInt8] = []
    let canonical: Bool
    let maxDepth: Int
    /// With ``CBORWriter/Options/shareValues``: how often each shareable value occurs.
    var occurrences: [PFValue.Exact: Int] = [:]
    /// With ``CBORWriter/Options/shareValues``: the tag-28 index of each value written so far.
    var shareIndex: [PFValue.Exact: UInt64] = [:]
    let sharing: Bool

    init(options: CBORWriter.Options) {
        canonical = options.canonical
        maxDepth = options.limits.maxDepth
        sharing = options.shareValues
        bytes.reserveCapacity(4096)
    }

    // MARK: - Heads

    /// Appends a head: major type and argument in preferred (shortest) serialization.
    @inline(__always)
    mutating func head(_ major: UInt8, _ argument: UInt64) {
        let m = major << 5
        if argument < 24 {
            bytes.append(m | UInt8(truncatingIfNeeded: argument))
        } else if argument <= 0xFF {
            bytes.append(m | 24)
            bytes.append(UInt8(truncatingIfNeeded: argument))
        } else if argument <= 0xFFFF {
            bytes.append(m | 25)
            appendBigEndian(UInt16(truncatingIfNeeded: argument))
        } else if argument <= 0xFFFF_FFFF {
            bytes.append(m | 26)
            appendBigEndian(UInt32(truncatingIfNeeded: argument))
        } else {
            bytes.append(m | 27)
            appendBigEndian(argument)
        }
    }

    @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    mutating func text(_ string: String) {
        var string = string
        string.withUTF8 { utf8 in
            head(3, UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends a float: float64, or with `canonical` the shortest exact width.
    @inline(__always)
    mutating func float(_ d: Double) {
        if canonical {
            if d.isNaN {
                bytes.append(0xF9)
                bytes.append(0x7E)
                bytes.append(0x00)
                return
            }
            if let half = CBORFloat.halfBits(exactly: d) {
                bytes.append(0xF9)
                appendBigEndian(half)
                return
            }
            let single = Float(d)
            if Double(single).bitPattern == d.bitPattern {
                bytes.append(0xFA)
                appendBigEndian(single.bitPattern)
                return
            }
        }
        bytes.append(0xFB)
        appendBigEndian(d.bitPattern)
    }

    /// Appends a date as tag 1 around Unix seconds: an integer when whole, else a float
    /// chosen so that reading it back gives the same `Date` whenever any float64 can.
    mutating func date(_ date: Date) {
        head(6, CBORTag.epochDateTime)
        let reference = date.timeIntervalSinceReferenceDate
        let offset = PFDateFormat.unixToReferenceOffset
        var unix = reference + offset
        if unix.isFinite && unix - offset != reference {
            // The sum rounded; a neighbour may map back exactly.
            for candidate in [unix.nextUp, unix.nextDown, unix.nextUp.nextUp, unix.nextDown.nextDown]
            where candidate - offset == reference {
                unix = candidate
                break
            }
        }
        if let whole = Int64(exactly: unix) {
            if whole >= 0 { head(0, UInt64(whole)) } else { head(1, ~UInt64(bitPattern: whole)) }
        } else {
            float(unix)
        }
    }

    // MARK: - Values

    mutating func encode(_ value: PFValue, depth: Int) throws(PFError) {
        if sharing, CBOREncoder.isShareCandidate(value), case let key = PFValue.Exact(value), let count = occurrences[key], count > 1 {
            if let index = shareIndex[key] {
                head(6, CBORTag.sharedReference)
                head(0, index)
                return
            }
            shareIndex[key] = UInt64(shareIndex.count)
            head(6, CBORTag.shareable)
        }
        switch value {
        case .null:
            bytes.append(0xF6)
        case .bool(let b):
            bytes.append(b ? 0xF5 : 0xF4)
        case .int(let i):
            if i >= 0 { head(0, UInt64(i)) } else { head(1, ~UInt64(bitPattern: i)) }
        case .uint(let u):
            head(0, u)
        case .double(let d):
            float(d)
        case .string(let s):
            text(s)
        case .data(let d):
            head(2, UInt64(d.count))
            d.withUnsafeBytes { bytes.append(contentsOf: $0) }
        case .date(let d):
            date(d)
        case .uid(let u):
            head(6, CBORTag.uid)
            head(0, u)
        case .array(let elements):
            let inner = try enter(depth)
            head(4, UInt64(elements.count))
            for i in elements.indices {
                do throws(PFError) {
                    try encode(elements[i], depth: inner)
                } catch {
                    throw error.prefixed(.index(i))
                }
            }
        case .dictionary(let members):
            let inner = try enter(depth)
            head(5, UInt64(members.count))
            if canonical {
                // Text keys' encodings order by length first (the head grows with it),
                // then bytewise.
                let keys = members.keys
                let order = keys.indices.sorted { a, b in
                    let x = keys[a].utf8
                    let y = keys[b].utf8
                    return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
                }
                for i in order {
                    try member(keys[i], members.values[i], depth: inner)
                }
            } else {
                for (key, member) in members {
                    try self.member(key, member, depth: inner)
                }
            }
        }
    }

    @inline(__always)
    mutating func member(_ key: String, _ value: PFValue, depth: Int) throws(PFError) {
        text(key)
        do throws(PFError) {
            try encode(value, depth: depth)
        } catch {
            throw error.prefixed(.key(key))
        }
    }

    @inline(__always)
    func enter(_ depth: Int) throws(PFError) -> Int {
        guard depth < maxDepth else {
            throw PFError(CBORFailure.tooDeep(maxDepth: maxDepth), format: .cbor)
        }
        return depth + 1
    }
}
