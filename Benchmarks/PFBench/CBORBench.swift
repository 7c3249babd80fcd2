import Foundation
import OrderedCollections
import PFArchive

/// CBOR read and write throughput on the three JSON benchmark files, each converted to a
/// value tree once and written as CBOR; MB/s are of the CBOR bytes.
enum CBORBench {
    static func run(_ bench: inout Bench) {
        for file in benchFiles {
            let name = file.replacingOccurrences(of: ".json", with: "")
            if let filter = bench.filter, !"CBOR/read \(name)".contains(filter),
                !"CBOR/write \(name)".contains(filter)
            {
                continue
            }
            guard let object = try? JSONSerialization.jsonObject(with: benchInput(file), options: [.fragmentsAllowed])
            else {
                print("CBOR: cannot parse \(file)")
                continue
            }
            let value = pfValue(object)
            let writer = CBORWriter()
            let reader = CBORReader()
            guard let bytes = try? writer.write(value), (try? reader.read(bytes)) == value else {
                print("CBOR: \(file) does not round-trip")
                continue
            }
            // PFBENCH_DUMP_DIR=DIR: save the CBOR bytes, to time other readers on the same input.
            if let dir = ProcessInfo.processInfo.environment["PFBENCH_DUMP_DIR"] {
                FileManager.default.createFile(atPath: "\(dir)/\(name).cbor", contents: bytes)
            }
            bench.measure("read \(name) (\(bytes.count) B)", group: "CBOR", bytes: bytes.count) {
                _ = try? reader.read(bytes)
            }
            bench.measure("write \(name) (\(bytes.count) B)", group: "CBOR", bytes: bytes.count) {
                _ = try? writer.write(value)
            }
        }
    }

    /// Foundation's JSON objects as a value tree (the JSON reader lives in another module).
    static func pfValue(_ object: Any) -> PFValue {
        switch object {
        case let dictionary as [String: Any]:
            // JSONSerialization loses key order; sort for a stable tree.
            var members = OrderedDictionary<String, PFValue>()
            for key in dictionary.keys.sorted() { members[key] = dictionary[key].map(pfValue) ?? .null }
            return .dictionary(members)
        case let array as [Any]:
            return .array(array.map(pfValue))
        case let string as String:
            return .string(string)
        case let number as NSNumber:
            // JSON booleans come back as NSNumber(value: Bool), type "c"; JSON has no chars.
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" { return .bool(number.boolValue) }
            if type == "d" || type == "f" { return .double(number.doubleValue) }
            return .int(number.int64Value)
        default:
            return .null
        }
    }
}
