import Foundation
import PFSQLiteSource
import PFStores
import Testing

/// The one capped record of row reports (the first 1,000 kept, all counted, each passed on
/// as it is made), shared by the SQLite store, the Core Data store and the Core Data cursor.
@Suite struct SQLiteRowReportsTests {
    /// Collects what `onReport` is given, in order.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String] = []
        func add(_ report: SQLiteRowReport) { lock.withLock { ids.append(report.objectId) } }
        var all: [String] { lock.withLock { ids } }
    }

    static func report(_ i: Int) -> SQLiteRowReport {
        SQLiteRowReport(table: "t", objectId: "\(i)", column: "c", message: "m\(i)")
    }

    @Test func keepsTheFirstThousandCountsAllAndPassesEachOnInOrder() {
        let seen = Seen()
        var reports = SQLiteRowReports(onReport: { seen.add($0) })
        for i in 0..<1_005 { reports.add(Self.report(i)) }
        #expect(SQLiteRowReports.limit == 1_000)
        #expect(reports.count == 1_005)
        #expect(reports.kept.map(\.objectId) == (0..<1_000).map(String.init))
        #expect(seen.all == (0..<1_005).map(String.init), "every report, the 1,001st and later too, in order")
    }

    @Test func absorbingCountsWithoutCallingAgainAndKeepsTheCap() {
        let seen = Seen()
        var store = SQLiteRowReports(onReport: { seen.add($0) })
        for i in 0..<600 { store.add(Self.report(i)) }
        var cursor = SQLiteRowReports()
        for i in 600..<1_300 { cursor.add(Self.report(i)) }
        store.absorb(cursor)
        #expect(store.count == 1_300)
        #expect(store.kept.map(\.objectId) == (0..<1_000).map(String.init))
        #expect(seen.all.count == 600, "the cursor's reports were passed on when it made them")
    }

    /// A real database with 1,005 values that are not dates: the store keeps 1,000, counts
    /// 1,005 and passes each on as its row is read.
    @Test func theSQLiteStoreCapsItsReports() throws {
        let dir = try SQLiteSourceTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("soon.sqlite")
        _ = try SQLiteSourceTests.python(
            """
            import sys, sqlite3
            c = sqlite3.connect(sys.argv[1])
            c.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, at TEXT)")
            c.executemany("INSERT INTO t(id, at) VALUES (?, 'soon')", [(i,) for i in range(1, 1006)])
            c.commit()
            """, [file.path])
        let store = try SQLiteDatabaseObjectStore(
            url: file, options: .init(dateColumns: [try SQLiteDateColumn(parsing: "t.at=unix")]))
        defer { store.close() }
        let seen = Seen()
        store.onReport = { seen.add($0) }
        var objects = 0
        try store.forEachObject(in: "t") { _ in objects += 1 }
        #expect(objects == 1_005)
        #expect(store.reports.count == 1_005)
        #expect(store.reports.kept.count == 1_000)
        #expect(store.reports.kept.allSatisfy { $0.column == "at" })
        #expect(seen.all == (1...1_005).map(String.init))
    }
}
