import Foundation
import OrderedCollections
import PFArchive

/// Binary property list read and write throughput, next to Foundation's
/// PropertyListSerialization and PropertyListEncoder/Decoder, on the three JSON benchmark
/// files converted to property lists (JSON null becomes "", since plists cannot hold null).
/// MB/s are megabytes of bplist bytes.
enum BinaryPlistBench {
    static func run(_ bench: inout Bench) {
        for file in benchFiles {
            guard let object = try? JSONSerialization.jsonObject(with: benchInput(file)) else {
                FileHandle.standardError.write(Data("pfarchive-bench: cannot parse \(file)\n".utf8))
                exit(1)
            }
            let value = pfValue(object)
            let foundationObject = plistObject(object)
            let tree = BenchTree(value)
            let group = "bplist \(file)"
            do {
                let writer = BinaryPlistWriter()
                let reader = BinaryPlistReader()
                let bytes = try writer.write(value)
                guard try reader.read(bytes) == value else {
                    FileHandle.standardError.write(Data("pfarchive-bench: bplist round trip of \(file) differs\n".utf8))
                    exit(1)
                }
                try bench.measure("read pfarchive", group: group, bytes: bytes.count) {
                    _ = try reader.read(bytes)
                }
                try bench.measure("write pfarchive", group: group, bytes: bytes.count) {
                    _ = try writer.write(value)
                }
                try bench.measure("read PropertyListSerialization", group: group, bytes: bytes.count) {
                    _ = try PropertyListSerialization.propertyList(from: bytes, options: [], format: nil)
                }
                let foundationBytes = try PropertyListSerialization.data(
                    fromPropertyList: foundationObject, format: .binary, options: 0)
                try bench.measure("write PropertyListSerialization", group: group, bytes: foundationBytes.count) {
                    _ = try PropertyListSerialization.data(fromPropertyList: foundationObject, format: .binary, options: 0)
                }
                let encoder = PropertyListEncoder()
                encoder.outputFormat = .binary
                let encoded = try encoder.encode(tree)
                try bench.measure("read PropertyListDecoder", group: group, bytes: encoded.count) {
                    _ = try PropertyListDecoder().decode(BenchTree.self, from: encoded)
                }
                try bench.measure("write PropertyListEncoder", group: group, bytes: encoded.count) {
                    _ = try encoder.encode(tree)
                }
            } catch {
                FileHandle.standardError.write(Data("pfarchive-bench: bplist \(file): \(error)\n".utf8))
                exit(1)
            }
        }
    }

    // MARK: - Inputs

    /// A JSONSerialization object as a value; null becomes "".
    static func pfValue(_ object: Any) -> PFValue {
        switch object {
        case let s as String: return .string(s)
        case let b as Bool where type(of: object) == Bool.self: return .bool(b)
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "d", "f": return .double(n.doubleValue)
            case "c": return .bool(n.boolValue)
            case "Q": return PFValue.integer(n.uint64Value) ?? .uint(n.uint64Value)
            default: return .int(n.int64Value)
            }
        case let a as [Any]: return .array(a.map(pfValue))
        case let d as [String: Any]:
            var members = OrderedDictionary<String, PFValue>()
            for key in d.keys.sorted() { members[key] = d[key].map(pfValue) ?? "" }
            return .dictionary(members)
        default: return .string("")
        }
    }

    /// A JSONSerialization object as a property list object; null becomes "".
    static func plistObject(_ object: Any) -> Any {
        switch object {
        case let a as [Any]: return a.map(plistObject)
        case let d as [String: Any]: return d.mapValues(plistObject)
        case is NSNull: return ""
        default: return object
        }
    }
}

/// A Codable tree for PropertyListEncoder/Decoder.
enum BenchTree: Codable {
    case string(String), bool(Bool), int(Int64), double(Double), array([BenchTree]), object([String: BenchTree])

    init(_ value: PFValue) {
        switch value {
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .uint(let u): self = .double(Double(u))
        case .double(let d): self = .double(d)
        case .array(let a): self = .array(a.map(BenchTree.init))
        case .dictionary(let d): self = .object(Dictionary(uniqueKeysWithValues: d.map { ($0.key, BenchTree($0.value)) }))
        case .string(let s): self = .string(s)
        default: self = .string("")
        }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let o = try? c.decode([String: BenchTree].self) { self = .object(o); return }
        if let a = try? c.decode([BenchTree].self) { self = .array(a); return }
        if let s = try? c.decode(String.self) { self = .string(s); return }
        if let b = try? c.decode(Bool.self) { self = .bool(b); return }
        if let i = try? c.decode(Int64.self) { self = .int(i); return }
        self = .double(try c.decode(Double.self))
    }
}
