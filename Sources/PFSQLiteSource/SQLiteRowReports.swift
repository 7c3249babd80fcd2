/// The reports a reader makes while it reads (``SQLiteRowReport``): each is passed to
/// ``onReport`` as it is made, the first ``limit`` are kept, and all are counted.
///
/// The one home of that policy for the SQLite source's store, the Core Data store and the
/// Core Data cursor, so a file with millions of damaged values holds 1,000 reports in memory,
/// not millions, while the CLI still prints (or counts) every one.
public struct SQLiteRowReports: Sendable {
    /// How many reports are kept (1,000); later ones are counted and passed on only.
    public static let limit = 1_000

    /// The first ``limit`` reports, in the order they were made.
    public private(set) var kept: [SQLiteRowReport] = []
    /// How many reports there were in all, the ones past ``limit`` included.
    public private(set) var count = 0
    /// Called with each report as it is made, the 1,001st and later too (the CLI prints them).
    public var onReport: (@Sendable (SQLiteRowReport) -> Void)?

    /// Makes an empty record.
    public init(onReport: (@Sendable (SQLiteRowReport) -> Void)? = nil) {
        self.onReport = onReport
    }

    /// Counts a report, keeps it while fewer than ``limit`` are kept, then calls ``onReport``.
    public mutating func add(_ report: SQLiteRowReport) {
        count += 1
        if kept.count < Self.limit { kept.append(report) }
        onReport?(report)
    }

    /// Takes over the reports another record made (a cursor's, once it is done) without
    /// calling ``onReport`` again: they were passed on when they were made.
    public mutating func absorb(_ other: SQLiteRowReports) {
        count += other.count
        kept.append(contentsOf: other.kept.prefix(max(0, Self.limit - kept.count)))
    }
}
