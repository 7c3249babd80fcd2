import Foundation
import PFArchive

/// Reads a Parse export (a directory or `.zip`, e.g. one made with
/// `Benchmarks/data/gen_parse_export.py N DIR/GameScore.json`) through ``ParseExportStore``,
/// streaming every class, and prints objects/s. Run under `/usr/bin/time -v` for peak memory:
/// `pfarchive-bench --read-export DIR [--chunk BYTES] [--infer]`.
enum StoresBench {
    /// How far each row goes: cut only, read as JSON (a `PFValue` tree), read into a
    /// `ParseObject` through a `PFValue` tree (`value`, the path before node views), or read
    /// into a `ParseObject` straight from json-c's tree (`object`, the store's path).
    enum Stage: String { case cut, json, value, object }

    /// Times the stages on one class file: cutting rows, reading them as JSON, and the store.
    static func stages(_ file: String, chunkSize: Int, stage: Stage) {
        let start = Date()
        var rows = 0
        let reader = ParseExportRow.reader()
        let session = ParseExportRow.session()
        var cutter = ParseExportRowCutter()
        var sink = 0
        do {
            let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
            func handle(_ row: ParseExportRow) throws(PFError) {
                rows += 1
                switch stage {
                case .cut: sink &+= row.bytes.count
                case .json: if case .dictionary(let d) = try row.readValue(reader: reader, file: file) { sink &+= d.count }
                case .value: sink &+= try ParseObject(rest: try session.read(row.bytes), className: "GameScore").fields.count
                case .object: sink &+= try row.readObject(session: session, className: "GameScore", file: file).fields.count
                }
            }
            while let chunk = try input.read(upToCount: chunkSize), !chunk.isEmpty {
                let result: Result<Void, PFError> = chunk.withUnsafeBytes { raw in
                    Result { () throws(PFError) in try cutter.feed(raw) { row throws(PFError) in try handle(row) } }
                }
                try result.get()
            }
            try cutter.finish { row throws(PFError) in try handle(row) }
        } catch {
            FileHandle.standardError.write(Data("pfarchive-bench: \(error)\n".utf8))
            exit(1)
        }
        let seconds = Date().timeIntervalSince(start)
        print("\(stage.rawValue): \(rows) rows in \(String(format: "%.2f", seconds)) s: \(Int(Double(rows) / max(seconds, 1e-9))) rows/s (\(sink))")
    }

    static func readExport(_ path: String, chunkSize: Int, inferSchema: Bool) {
        let store = ParseExportStore(url: URL(fileURLWithPath: path), options: .init(chunkSize: chunkSize))
        do {
            if inferSchema {
                let start = Date()
                let schema = try store.schema()
                let seconds = Date().timeIntervalSince(start)
                print("schema inferred in \(String(format: "%.2f", seconds)) s: \(schema.classes.count) classes")
            }
            let start = Date()
            var objects = 0
            var fields = 0
            for className in try store.classNames() {
                try store.forEachObject(in: className) { object in
                    objects += 1
                    fields &+= object.fields.count
                }
            }
            let seconds = Date().timeIntervalSince(start)
            print("read \(objects) objects (\(fields) fields) in \(String(format: "%.2f", seconds)) s: "
                  + "\(Int(Double(objects) / max(seconds, 1e-9))) objects/s, chunk \(chunkSize) bytes")
        } catch {
            FileHandle.standardError.write(Data("pfarchive-bench: \(error)\n".utf8))
            exit(1)
        }
    }
}
