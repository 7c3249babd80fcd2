import CPFJSONC
import Foundation
import PFArchive

/// JSON read and write throughput on the three standard files, next to raw json-c (parse +
/// free, and serialize of a pre-parsed tree) and Foundation's JSONSerialization. MB/s are
/// megabytes of the input file.
enum JSONBench {
    static func run(_ bench: inout Bench) {
        if let spec = ProcessInfo.processInfo.environment["PFBENCH_JSON_PROFILE"] {
            profile(spec)
            return
        }
        for file in benchFiles {
            let input = benchInput(file)
            let group = "json \(file)"
            let reader = JSONReader()
            let writer = JSONWriter()
            var jsonCOptions = JSONWriter.Options()
            jsonCOptions.engine = .jsonC
            let jsonCWriter = JSONWriter(options: jsonCOptions)
            do {
                let value = try reader.read(input)
                try bench.measure("read pfarchive", group: group, bytes: input.count) {
                    _ = try reader.read(input)
                }
                var oneThread = JSONReader.Options()
                oneThread.parallel = false
                let serialReader = JSONReader(options: oneThread)
                try bench.measure("read pfarchive, one thread", group: group, bytes: input.count) {
                    _ = try serialReader.read(input)
                }
                oneThread.engine = .jsonC
                let jsonCReader = JSONReader(options: oneThread)
                try bench.measure("read pfarchive, one thread, json-c engine", group: group, bytes: input.count) {
                    _ = try jsonCReader.read(input)
                }
                let terminated = nulTerminated(input)
                bench.measure("parse raw json-c", group: group, bytes: input.count) {
                    json_object_put(parseTree(terminated))
                }
                try bench.measure("read JSONSerialization", group: group, bytes: input.count) {
                    _ = try JSONSerialization.jsonObject(with: input)
                }
                var buffer: [UInt8] = []
                try bench.measure("write pfarchive (compact)", group: group, bytes: input.count) {
                    buffer.removeAll(keepingCapacity: true)
                    try writer.write(value, into: &buffer)
                }
                var oneThreadWrite = JSONWriter.Options()
                oneThreadWrite.parallel = false
                let serialWriter = JSONWriter(options: oneThreadWrite)
                try bench.measure("write pfarchive, one thread", group: group, bytes: input.count) {
                    buffer.removeAll(keepingCapacity: true)
                    try serialWriter.write(value, into: &buffer)
                }
                try bench.measure("write pfarchive, json-c engine", group: group, bytes: input.count) {
                    _ = try jsonCWriter.write(value)
                }
                let tree = parseTree(terminated)
                defer { json_object_put(tree) }
                bench.measure("serialize raw json-c (pre-parsed tree)", group: group, bytes: input.count) {
                    var length = 0
                    // json-c re-serializes into the tree's print buffer on every call.
                    _ = json_object_to_json_string_length(tree, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &length)
                }
                // json-c's serializer on a tree built from values, as for data that did not
                // come from JSON text: its parsed doubles keep their source text, which it
                // copies back, while a built double is formatted (`%.17g`, then trimmed).
                let built = buildTree(value)
                defer { json_object_put(built) }
                bench.measure("serialize raw json-c (built tree)", group: group, bytes: input.count) {
                    var length = 0
                    _ = json_object_to_json_string_length(built, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &length)
                }
                let object = try JSONSerialization.jsonObject(with: input)
                try bench.measure("write JSONSerialization", group: group, bytes: input.count) {
                    _ = try JSONSerialization.data(withJSONObject: object)
                }
            } catch {
                FileHandle.standardError.write(Data("pfarchive-bench: JSON \(file): \(error)\n".utf8))
                exit(1)
            }
        }
    }

    /// For `valgrind --tool=callgrind` and `perf record`: `PFBENCH_JSON_PROFILE=read:FILE:N`
    /// (or `read1:FILE:N`, on one thread, `read1c:FILE:N`, on one thread with the json-c
    /// engine, or `jsonc:FILE:N`) runs only N reads of one file,
    /// pfarchive's or raw json-c's, so the
    /// instruction counts of the two compare directly; `write:FILE:N` and `jsonc-write:FILE:N`
    /// do the same for N serializations of the file's value (json-c's pre-parsed tree), and
    /// `jsonc-built-write:FILE:N` for json-c's serializer on a tree built from the value.
    static func profile(_ spec: String) {
        let parts = spec.split(separator: ":").map(String.init)
        guard parts.count == 3, let n = Int(parts[2]), benchFiles.contains(parts[1]) else {
            FileHandle.standardError.write(Data("PFBENCH_JSON_PROFILE=read|read1|read1c|jsonc|write|jsonc-write|jsonc-built-write:FILE:N, FILE one of \(benchFiles)\n".utf8))
            exit(2)
        }
        let input = benchInput(parts[1])
        let terminated = nulTerminated(input)
        let reader = JSONReader()
        switch parts[0] {
        case "write", "jsonc-write", "jsonc-built-write":
            // Serializing only: the value (or json-c's tree) is built once, outside the count
            // that the N=1 run subtracts.
            guard let value = try? reader.read(input),
                let tree = parts[0] == "jsonc-built-write" ? buildTree(value) : parseTree(terminated)
            else { exit(1) }
            defer { json_object_put(tree) }
            var buffer: [UInt8] = []
            for _ in 0..<n {
                if parts[0] == "write" {
                    buffer.removeAll(keepingCapacity: true)
                    if (try? JSONWriter().write(value, into: &buffer)) == nil { exit(1) }
                } else {
                    var length = 0
                    _ = json_object_to_json_string_length(tree, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &length)
                }
            }
        default:
            var oneThread = JSONReader.Options()
            oneThread.parallel = false
            if parts[0] == "read1c" { oneThread.engine = .jsonC }
            let chosen = parts[0].hasPrefix("read1") ? JSONReader(options: oneThread) : reader
            for _ in 0..<n {
                if parts[0] == "jsonc" {
                    json_object_put(parseTree(terminated))
                } else if (try? chosen.read(input)) == nil {
                    exit(1)
                }
            }
        }
    }

    /// A json-c tree holding `value` (the bench files have no dates, data or UIDs).
    static func buildTree(_ value: PFValue) -> OpaquePointer? {
        switch value {
        case .null: return nil
        case .bool(let b): return json_object_new_boolean(b ? 1 : 0)
        case .int(let i): return json_object_new_int64(i)
        case .uint(let u): return json_object_new_uint64(u)
        case .double(let d): return json_object_new_double(d)
        case .string(let s): return json_object_new_string_len(s, Int32(s.utf8.count))
        case .array(let items):
            let array = json_object_new_array()
            for item in items { json_object_array_add(array, buildTree(item)) }
            return array
        case .dictionary(let members):
            let object = json_object_new_object()
            for (key, member) in members { json_object_object_add(object, key, buildTree(member)) }
            return object
        case .date, .data, .uid: return json_object_new_string("")
        }
    }

    /// The input with the final NUL json-c wants counted.
    static func nulTerminated(_ input: Data) -> [CChar] {
        var bytes = [CChar](repeating: 0, count: input.count + 1)
        _ = bytes.withUnsafeMutableBytes { input.copyBytes(to: $0) }
        return bytes
    }

    /// json_tokener_parse_ex over the whole input: json-c's own parse cost (the caller frees).
    static func parseTree(_ bytes: [CChar]) -> OpaquePointer? {
        guard let tokener = json_tokener_new_ex(513) else { return nil }
        defer { json_tokener_free(tokener) }
        return json_tokener_parse_ex(tokener, bytes, Int32(bytes.count))
    }
}
