import Foundation
import PFTestSupport
import Testing

/// The Core Data fixtures and helpers the suites share.
enum CoreDataFixtures {
    static let folder = Fixtures.real.appendingPathComponent("coredata")
    static let models = folder.appendingPathComponent("coredataplus/models")
    static let dumps = folder.appendingPathComponent("dumps")

    static func store(_ relative: String) -> URL { folder.appendingPathComponent(relative) }

    /// Every store in the fixtures.
    static let stores = [
        "coredataplus/SampleModel_V1.sqlite", "coredataplus/SampleModel_V2.sqlite", "coredataplus/SampleModel2_V2.sqlite",
        "coredataplus/SampleModel3_V1.sqlite", "restkit/RKSeedDatabase.sqlite", "plaso/kik.sqlite",
    ]

    /// A new empty temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfcoredata-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A copy of a fixture store in `directory` (fixtures are never modified by tests).
    static func copy(_ relative: String, to directory: URL, as name: String? = nil) throws -> URL {
        let target = directory.appendingPathComponent(name ?? store(relative).lastPathComponent)
        try FileManager.default.copyItem(at: store(relative), to: target)
        return target
    }

    /// Runs SQL with the sqlite3 shell; returns its output rows split on `|`.
    @discardableResult
    static func sqlite(_ database: URL, _ commands: [String]) throws -> [[String]] {
        let result = try Peers.run("/usr/bin/env", ["sqlite3", database.path] + commands)
        guard result.status == 0 else {
            throw SQLiteShellFailure(message: "sqlite3 failed (\(result.status)): \(result.stderr)")
        }
        return result.stdoutText.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    /// Row counts per Z_ENT over every Z table of a store, counted by the sqlite3 shell on a
    /// throw-away copy.
    static func countsByZENT(_ relative: String) throws -> [Int64: Int] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try copy(relative, to: directory)
        let tables = try sqlite(database, ["SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'"])
            .compactMap(\.first)
        var counts: [Int64: Int] = [:]
        for table in tables {
            for row in try sqlite(database, ["SELECT Z_ENT, COUNT(*) FROM \"\(table)\" GROUP BY Z_ENT"]) where row.count == 2 {
                if let ent = Int64(row[0]), let count = Int(row[1]) { counts[ent, default: 0] += count }
            }
        }
        return counts
    }

    /// The bytes of a store and its -wal/-shm (absent files as nil), to compare before/after.
    static func snapshot(_ url: URL) -> [String: Data?] {
        var out: [String: Data?] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            out[suffix] = FileManager.default.contents(atPath: url.path + suffix)
        }
        return out
    }
}

struct SQLiteShellFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
