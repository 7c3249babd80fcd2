import Foundation
import PFArchive

/// Reads a Parse export (a directory or `.zip`, e.g. one made with
/// `Benchmarks/data/gen_parse_export.py N DIR/GameScore.json`) through ``ParseExportStore``,
/// streaming every class, and prints objects/s. Run under `/usr/bin/time -v` for peak memory:
/// `pfarchive-bench --read-export DIR [--chunk BYTES] [--infer]`.
enum StoresBench {
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
