import Foundation
import OrderedCollections
import PFArchive

/// XML property-list read and write throughput on the three JSON benchmark files, each
/// converted once to a value tree and written as an XML plist; MB/s are of the XML bytes.
/// Foundation's PropertyListSerialization reads and writes the same documents alongside.
enum XMLPlistBench {
    static func run(_ bench: inout Bench) {
        for file in benchFiles {
            guard let object = try? JSONSerialization.jsonObject(with: benchInput(file), options: [.fragmentsAllowed]) else {
                FileHandle.standardError.write(Data("pfarchive-bench: \(file) is not JSON\n".utf8))
                exit(1)
            }
            let value = pfValue(object)
            let xml: Data
            do {
                xml = try XMLPlistWriter().write(value)
            } catch {
                FileHandle.standardError.write(Data("pfarchive-bench: \(error)\n".utf8))
                exit(1)
            }
            let group = "xmlplist/\(file)"
            bench.measure("pfarchive read", group: group, bytes: xml.count) {
                _ = try? XMLPlistReader().read(xml)
            }
            bench.measure("pfarchive write", group: group, bytes: xml.count) {
                _ = try? XMLPlistWriter().write(value)
            }
            let foundationObject = (try? PropertyListSerialization.propertyList(from: xml, options: [], format: nil)) ?? [:]
            bench.measure("Foundation PropertyListSerialization read", group: group, bytes: xml.count) {
                _ = try? PropertyListSerialization.propertyList(from: xml, options: [], format: nil)
            }
            bench.measure("Foundation PropertyListSerialization write", group: group, bytes: xml.count) {
                _ = try? PropertyListSerialization.data(fromPropertyList: foundationObject, format: .xml, options: 0)
            }
        }
    }

    /// JSONSerialization's objects as a value tree; JSON null becomes "" (plists have no null).
    static func pfValue(_ object: Any) -> PFValue {
        switch object {
        case is NSNull: return .string("")
        case let s as String: return .string(s)
        case let a as [Any]: return .array(a.map(pfValue))
        case let d as [String: Any]:
            // JSONSerialization loses key order; sorted keys keep the documents deterministic.
            var members = OrderedDictionary<String, PFValue>()
            for key in d.keys.sorted() { members[key] = d[key].map(pfValue) }
            return .dictionary(members)
        case let n as NSNumber:
            if type(of: object) == Bool.self || String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            switch String(cString: n.objCType) {
            case "d", "f": return .double(n.doubleValue)
            case "Q": return PFValue.integer(n.uint64Value) ?? .double(n.doubleValue)
            default: return .int(n.int64Value)
            }
        default: return .string("\(object)")
        }
    }
}
