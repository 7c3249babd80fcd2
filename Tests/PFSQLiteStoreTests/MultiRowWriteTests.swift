import Foundation
import OrderedCollections
import PFCore
import PFParse
import PFSQLiteStore
import PFStores
import Testing

/// The store writes most rows in statements of several rows (16 at a time): the file must be
/// what writing them one at a time makes, whatever the rows hold.
@Suite struct MultiRowWriteTests {
    /// 300 objects of one class in the importer's batches (most rows in statements of 16)
    /// and the same objects written a row at a time: the same `sqlite3 .dump`. The rows repeat
    /// ids (within a statement and across them), lack ids, add a field mid-batch, give a
    /// field another type (into `_extra`), and hold every kind of value.
    @Test func rowsWrittenSixteenAtATimeMakeTheFileOneAtATimeMakes() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var objects: [ParseObject] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: UInt64) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % n)
        }
        for i in 0..<300 {
            var fields: OrderedDictionary<String, ParseValue> = [:]
            switch next(5) {
            case 0: fields["x"] = .string("text \(i)")  // another type than the column's: `_extra`
            case 1: break
            default: fields["x"] = .int(Int64(i) * 1_000_003)
            }
            if next(3) > 0 { fields["score"] = .double(Double(i) / 7) }
            fields["title"] = .string(next(9) == 0 ? "" : "row \(i) é")
            fields["when"] = .date(Date(timeIntervalSince1970: 1_600_000_000 + Double(i)))
            if next(4) == 0 { fields["tags"] = .array([.string("a"), .int(Int64(i))]) }
            if next(6) == 0 { fields["owner"] = .pointer(ParsePointer(className: "_User", objectId: "u\(i % 5)")) }
            if i >= 150 { fields["late"] = .bool(i % 2 == 0) }  // a column added within the batch
            // Ids repeat within a statement's 16 rows and across statements; some have none.
            let id: String? = i % 23 == 0 ? nil : (i % 11 == 0 ? "id\(i - next(12))" : "id\(i)")
            objects.append(try ParseObject(className: "Item", objectId: id, fields: fields))
        }
        let source = MemoryStore(objects: objects)
        let batched = dir.appendingPathComponent("batched.sqlite")
        let single = dir.appendingPathComponent("single.sqlite")
        _ = try StoreImporter(options: .init(batchSize: 1000)).run(from: source, to: SQLiteStore(url: batched))
        _ = try StoreImporter(options: .init(batchSize: 1)).run(from: source, to: SQLiteStore(url: single))
        let dump = try SQLiteSamples.sqlite3(batched, ".dump")
        #expect(dump == (try SQLiteSamples.sqlite3(single, ".dump")))
        #expect(dump.contains("_extra"), "some rows went to _extra")
        let rows = try SQLiteSamples.sqlite3(batched, "SELECT count(*) FROM Item").trimmingCharacters(in: .whitespacesAndNewlines)
        let ids = Set(objects.compactMap(\.objectId))
        #expect(Int(rows) == ids.count + objects.filter { $0.objectId == nil }.count)
        let reread = try SQLiteStore(url: batched).objects(in: "Item")
        #expect(reread == (try SQLiteStore(url: single).objects(in: "Item")))
    }

    /// A value no column can hold in the middle of a statement's rows stops the write with the
    /// error of that object, and a new file is not left behind.
    @Test func aBadRowWithinAStatementIsNamedAndNothingIsLeft() throws {
        let dir = try SQLiteSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var objects: [ParseObject] = []
        for i in 0..<40 {
            objects.append(try ParseObject(className: "Item", objectId: "i\(i)", fields: ["score": .double(i == 21 ? .nan : Double(i))]))
        }
        let url = dir.appendingPathComponent("bad.sqlite")
        #expect {
            _ = try StoreImporter(options: .init(batchSize: 1000)).run(from: MemoryStore(objects: objects), to: SQLiteStore(url: url))
        } throws: { error in
            "\(error)".contains("Item i21") && "\(error)".contains("NaN")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}
