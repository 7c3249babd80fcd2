import Foundation
import PFArchive

/// Writes 200,000 `GameScore` objects (pointer, ACL, dates, numbers, a string) into a
/// Parse Server Mongo-shape directory with ``MongoShapeStore``, then reads them back; reports
/// objects/s and the peak memory of each, which must not grow with the file (reading streams
/// line by line).
enum MongoBench {
    static let objectCount = 200_000

    static func objects(_ range: Range<Int>) -> [ParseObject] {
        range.compactMap { i in
            var acl = ParseACL()
            acl.set(.init(read: true, write: true), for: "u\(i % 1000)")
            acl.setPublic(.init(read: true))
            return try? ParseObject(
                className: "GameScore", objectId: String(format: "g%09d", i),
                createdAt: Date(timeIntervalSince1970: 1_425_211_200 + Double(i)), updatedAt: Date(timeIntervalSince1970: 1_425_211_200.123 + Double(i)),
                acl: acl,
                fields: [
                    "score": .int(Int64(i * 7 % 100_000)), "ratio": .double(Double(i) / 3), "playerName": .string("Player \(i)"),
                    "cheatMode": .bool(i % 2 == 0), "player": .pointer(ParsePointer(className: "_User", objectId: "u\(i % 1000)")),
                    "playedAt": .date(Date(timeIntervalSince1970: 1_500_000_000 + Double(i) / 1000)),
                ])
        }
    }

    static func run(_ bench: inout Bench) {
        let group = "mongo"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfbench-mongo-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let dump = dir.appendingPathComponent("dump.jsonl")
        func measure(_ name: String, bytes: Int, _ body: () throws -> Void) {
            if let filter = bench.filter, !"\(group)/\(name)".contains(filter) { return }
            PeakMemory.reset()
            let before = PeakMemory.currentKiB()
            let t0 = CPUTime.seconds()
            bench.measure(name, group: group, bytes: bytes, units: objectCount, unitName: "objects") {
                do { try body() } catch { FileHandle.standardError.write(Data("pfarchive-bench: \(error)\n".utf8)) }
            }
            print(String(format: "%@ %@ peak memory above baseline: %.1f MiB (CPU %.2f s over all runs)",
                         group.padding(toLength: 28, withPad: " ", startingAt: 0), name.padding(toLength: 44, withPad: " ", startingAt: 0),
                         Double(PeakMemory.peakKiB() - before) / 1024, CPUTime.seconds() - t0))
        }
        measure("MongoShapeStore write (batches of 1,000)", bytes: 0) {
            try? FileManager.default.removeItem(at: dump)
            let store = MongoShapeStore(directory: dump)
            try store.begin(schema: ParseSchema())
            for start in stride(from: 0, to: objectCount, by: 1000) {
                try store.write(objects(start..<min(objectCount, start + 1000)), className: "GameScore")
            }
            try store.commit()
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: dump.appendingPathComponent("GameScore.json").path)[.size] as? NSNumber)?.intValue ?? 0
        measure("MongoShapeStore read (forEachObject)", bytes: size) {
            var count = 0
            try MongoShapeStore(directory: dump).forEachObject(in: "GameScore") { _ in count += 1 }
            precondition(count == objectCount, "Every document is read.")
        }
    }
}
