import Foundation

/// Where the tests find a PostgreSQL server: `PFARCHIVE_POSTGRES_URL` (scripts/test.sh starts a
/// throw-away server with scripts/postgres.sh and exports it), or the server
/// `scripts/postgres.sh start` left running (its port in `.build/postgres-test.state`).
public enum PostgresTestServer {
    /// The server's URL, or `nil` when neither says where one is.
    public static let configuredURL: String? = {
        if let url = ProcessInfo.processInfo.environment["PFARCHIVE_POSTGRES_URL"], !url.isEmpty { return url }
        let state = Fixtures.repoRoot.appendingPathComponent(".build/postgres-test.state")
        guard let text = try? String(contentsOf: state, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PORT=") })
        else { return nil }
        return "postgres://postgres@127.0.0.1:\(line.dropFirst(5))/postgres"
    }()
}
