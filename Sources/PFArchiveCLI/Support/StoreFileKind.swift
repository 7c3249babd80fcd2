import Foundation
import PFArchive

/// Tells a store file (an SQLite database, a Realm file) by its header, for commands that read
/// documents and graphs and must say plainly that a store is not one.
enum StoreFileKind {
    /// "an SQLite database" or "a Realm file" when `bytes` start as one, else `nil`.
    static func of(_ bytes: Data) -> String? {
        if bytes.prefix(16) == StoreCopy.sqliteHeader { return "an SQLite database" }
        if RealmFile.looksLikeRealmFile(bytes.prefix(24)) { return "a Realm file" }
        return nil
    }
}
