import ArgumentParser
import Foundation
import PFArchive
import PFPostgresStore
import PFSQLiteStore

extension StoreOpeners {
    /// Every store the commands read and write: the standard file stores, pfarchive's SQLite
    /// store and PostgreSQL; with `realmKey` (`--key`), Realm files are decrypted with it.
    /// Commands that take `--decode-blobs` register Core Data stores with
    /// ``registerCoreData(decodeBlobs:limits:includeHistory:reporter:)``.
    static func commands(
        readerThreads: Int = ProcessInfo.processInfo.activeProcessorCount, realmKey: [UInt8]? = nil
    ) -> StoreOpeners {
        var openers = StoreOpeners.standard(readerThreads: readerThreads)
        if let realmKey {
            openers.register(
                .realm,
                reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                    try RealmObjectStore(url: try StoreOpeners.existing(location), key: realmKey)
                },
                writer: nil)
        }
        SQLiteStore.register(in: &openers)
        openers.register(
            .postgres,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in try PostgresStore.open(url: location.argument) },
            writer: { (location: StoreLocation) throws(PFError) -> any ObjectStoreWriter in try PostgresStore.open(url: location.argument) })
        return openers
    }

    /// Registers Core Data stores with the commands' options: `decodeBlobs` decodes the
    /// payloads in Binary attributes; `includeHistory` (`--internal-tables`) reads the
    /// persistent-history tables as classes; `reporter` prints each value kept as stored or
    /// left out.
    mutating func registerCoreData(decodeBlobs: Bool, limits: PFLimits = .default, includeHistory: Bool = false, reporter: SQLiteInput.Reporter?) {
        register(
            .coreData,
            reader: { (location: StoreLocation) throws(PFError) -> any ObjectStoreReader in
                let store = try CoreDataObjectStore(
                    url: try StoreOpeners.existing(location),
                    options: .init(limits: limits, includeHistory: includeHistory, decodeBlobs: decodeBlobs))
                if let reporter { store.onReport = { reporter.report($0) } }
                return store
            },
            writer: nil)
    }

    /// A command's source and destination resolved as store arguments; a usage error when one
    /// cannot be resolved or both name the same store (`sameStore` says so in the command's
    /// words).
    static func resolve(source: String, dest: String, sameStore: String) throws -> (source: StoreLocation, dest: StoreLocation) {
        let pair: (source: StoreLocation, dest: StoreLocation)
        do {
            pair = (try StoreLocation.resolve(source), try StoreLocation.resolve(dest))
        } catch where error.code != .usage {
            // What a file holds (not how it was named) is bad input, not a usage error.
            throw CLIFailure(error.message)
        } catch {
            throw ValidationError(error.message)
        }
        if isSameStore(pair.source, pair.dest) { throw ValidationError(sameStore) }
        return pair
    }

    /// Whether two locations are one store however they are spelled: one path, one file
    /// reached through a symbolic or hard link (the same device and inode), or one PostgreSQL
    /// database (host, port and database compared, `localhost`, `127.0.0.1` and `::1` alike).
    static func isSameStore(_ a: StoreLocation, _ b: StoreLocation) -> Bool {
        if let x = a.url, let y = b.url {
            if x.standardizedFileURL.path == y.standardizedFileURL.path { return true }
            var sx = stat(), sy = stat()
            guard stat(x.path, &sx) == 0, stat(y.path, &sy) == 0 else { return false }
            return sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino
        }
        guard a.kind == .postgres, b.kind == .postgres, let x = databaseIdentity(a.argument), let y = databaseIdentity(b.argument) else {
            return false
        }
        return x == y
    }

    /// A PostgreSQL URL's server and database as the store connects to them
    /// (``PFPostgresStore/PostgresURL``'s reading, defaults and all): the host (loopback
    /// names as one), the port and the database.
    static func databaseIdentity(_ url: String) -> String? {
        guard let parts = try? PostgresURL(url) else { return nil }
        var host = parts.host.lowercased()
        if ["localhost", "127.0.0.1", "::1", "[::1]", ""].contains(host) { host = "localhost" }
        return "\(host):\(parts.port)/\(parts.database)"
    }
}
