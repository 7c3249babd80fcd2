import Foundation
import PFStores
import PropertyBased
import Testing

/// A store URL in every shape a user may type, with the text ``StoreLocation/redacted(_:)``
/// must give back: the same URL with each password replaced by `***`.
struct GeneratedStoreURL: CustomStringConvertible {
    var text: String
    var expected: String
    /// Pieces of the passwords: none may appear in the redacted text.
    var secrets: [String]

    var description: String { text }

    static func pick<T>(_ items: [T], _ rng: inout any SeededRandomNumberGenerator) -> T {
        items[Int.random(in: 0..<items.count, using: &rng)]
    }

    /// A password holding three markers (upper case, so they never occur in the lower-case
    /// user, host or database names) between runs of the characters that break naive parsers.
    static func password(_ rng: inout any SeededRandomNumberGenerator, forQuery: Bool) -> (text: String, secrets: [String]) {
        // A query value cannot hold a raw `&` (it separates parameters); `?` and `#` end a URL's
        // user information and path for every parser, so they are always written escaped.
        let raw: [String] = forQuery
            ? ["@", ":", "/", "%40", "%26", "%3F", "%23", "=", "+", "!", "$", ";", ",", "a", "1", "@@", "%2F"]
            : ["@", ":", "/", "%40", "%3A", "%3F", "%23", "&", "=", "+", "!", "$", ";", ",", "a", "1", "@@", "%25"]
        let markers = ["ZQ", "XK", "MW"].map { $0 + String(Int.random(in: 10...99, using: &rng)) }
        var text = ""
        for marker in markers {
            for _ in 0..<Int.random(in: 0...3, using: &rng) { text += pick(raw, &rng) }
            text += marker
        }
        for _ in 0..<Int.random(in: 0...2, using: &rng) { text += pick(raw, &rng) }
        return (text, markers)
    }

    static let generator = Generator<GeneratedStoreURL, Shrink.None<GeneratedStoreURL>>(run: { rng in
        let scheme = pick(["postgres", "postgresql", "POSTGRES", "PostgreSQL"], &rng)
        let user = pick(["alice", "parse", "u", "db%2Eadmin", "x.y"], &rng)
        let host = pick(["db.example.com", "127.0.0.1", "[::1]", "localhost", "h"], &rng)
        let port = pick(["", ":5432", ":6543"], &rng)
        // An `@` in the path is read as such only when no password precedes it (see redacted).
        let path = pick(["", "/", "/app", "/my%20db", "/db/x%40y"], &rng)
        var secrets: [String] = []
        var text = "\(scheme)://"
        var expected = text
        let shape = Int.random(in: 0..<3, using: &rng)
        switch shape {
        case 0:  // user:password@
            let password = GeneratedStoreURL.password(&rng, forQuery: false)
            secrets += password.secrets
            text += "\(user):\(password.text)@"
            expected += "\(user):***@"
        case 1:  // user@, password elsewhere or none; a raw `@` in the path is then kept
            text += "\(user)@"
            expected += "\(user)@"
            if Bool.random(using: &rng) {
                text += host + port + "/db/x@y"
                expected += host + port + "/db/x@y"
                return GeneratedStoreURL(text: text, expected: expected, secrets: secrets)
            }
        default:  // no user information
            break
        }
        text += host + port + path
        expected += host + port + path
        var items: [(String, String)] = []
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            if Bool.random(using: &rng) {
                let name = pick(["password", "PASSWORD", "Password", "sslpassword", "SSLPassword", "pass%77ord", "%70assword"], &rng)
                let password = GeneratedStoreURL.password(&rng, forQuery: true)
                secrets += password.secrets
                items.append(("\(name)=\(password.text)", "\(name)=***"))
            } else {
                let item = pick(["sslmode=disable", "application_name=a@b", "connect_timeout=5", "user=bob", "options=-c%20x%3Dy", "flag"], &rng)
                items.append((item, item))
            }
        }
        if !items.isEmpty {
            text += "?" + items.map(\.0).joined(separator: "&")
            expected += "?" + items.map(\.1).joined(separator: "&")
            // An `@` in the query after a password's `:` (or after `host:5432` with no path):
            // the `?` could be part of that password, so all after the `:` is hidden.
            if items.contains(where: { $0.0.contains("@") }) {
                if shape == 0 {
                    expected = "\(scheme)://\(user):***"
                } else if shape == 2, port != "", path == "", host != "[::1]" {
                    expected = "\(scheme)://\(host):***"
                }
            }
        }
        return GeneratedStoreURL(text: text, expected: expected, secrets: secrets)
    })
}

@Suite struct StoreLocationRedactionTests {
    @Test func theIssuesExamplesHideTheWholePassword() {
        #expect(StoreLocation.redacted("postgres://alice:p@ssW0rd@host/db") == "postgres://alice:***@host/db")
        #expect(StoreLocation.redacted("postgres://alice@host/db?password=hunter2") == "postgres://alice@host/db?password=***")
        #expect(StoreLocation.redacted("postgres://alice@host/db?sslmode=disable&password=hunter2") == "postgres://alice@host/db?sslmode=disable&password=***")
        #expect(StoreLocation.redacted("POSTGRESQL://alice:s%40cret@host:5432/db?SSLPASSWORD=k3y") == "POSTGRESQL://alice:***@host:5432/db?SSLPASSWORD=***")
        #expect(StoreLocation.redacted("postgres://alice@host/db?pass%77ord=hunter2") == "postgres://alice@host/db?pass%77ord=***")
        // Paths, and URLs without a password, are kept as they are.
        #expect(StoreLocation.redacted("export/app.sqlite") == "export/app.sqlite")
        #expect(StoreLocation.redacted("a@b/c:d@e.sqlite") == "a@b/c:d@e.sqlite")
        #expect(StoreLocation.redacted("postgres://alice@host/db?sslmode=disable") == "postgres://alice@host/db?sslmode=disable")
        // A password holding an unescaped '#' or '?' is hidden all the same.
        #expect(StoreLocation.redacted("postgres://u:top#secret@127.0.0.1:1/db") == "postgres://u:***")
        #expect(StoreLocation.redacted("postgres://u:top?secret@127.0.0.1:1/db") == "postgres://u:***")
        #expect(StoreLocation.redacted("postgres://u:p@top?secret@h/db?password=x@y") == "postgres://u:***")
        #expect(StoreLocation.redacted("postgres://h:5432/db?application_name=a@b") == "postgres://h:5432/db?application_name=a@b")
        // The description of a resolved location is the redacted text.
        #expect((try? StoreLocation.resolve("postgresql://a:b@c@h/d"))?.description == "postgresql://a:***@h/d")
    }

    @Test func generatedURLsNeverShowAPasswordAndKeepTheRest() async {
        await propertyCheck(count: 500, input: GeneratedStoreURL.generator) { url in
            let redacted = StoreLocation.redacted(url.text)
            #expect(redacted == url.expected, "\(url.text)")
            for secret in url.secrets { #expect(!redacted.contains(secret), "\(url.text) → \(redacted)") }
            // An error message built from the location hides it too.
            let location = StoreLocation(kind: .postgres, argument: url.text)
            for secret in url.secrets { #expect(!location.description.contains(secret)) }
        }
    }
}
