// Writes a small SQLite store with pfarchive's library products, reads it back, and checks
// a PostgreSQL URL (without connecting): what a program outside this repository can do with
// `PFArchive`, `PFSQLiteStore` and `PFPostgresStore`.
//
//     swift run --package-path Examples/StoreConsumer StoreConsumer /tmp/scores.sqlite
import Foundation
import PFArchive
import PFPostgresStore
import PFSQLiteStore

struct Mismatch: Error, CustomStringConvertible {
    var description: String
}

func run(_ path: String) throws {
    let schema = ParseSchema([
        "Player": ["name": .init(.string), "score": .init(.number)],
    ])
    let players = [
        try ParseObject(className: "Player", objectId: "p1", fields: ["name": .string("Ada"), "score": .int(12)]),
        try ParseObject(className: "Player", objectId: "p2", fields: ["name": .string("Grace"), "score": .int(9)]),
    ]
    let store = SQLiteStore(url: URL(fileURLWithPath: path))
    try store.begin(schema: schema)
    try store.write(players, className: "Player")
    try store.commit()
    store.close()

    let back = SQLiteStore(url: URL(fileURLWithPath: path))
    defer { back.close() }
    let read = try back.objects(in: "Player")
    guard read.map(\.objectId) == players.map(\.objectId), read.map(\.fields) == players.map(\.fields) else {
        throw Mismatch(description: "\(path): the objects read back differ from those written")
    }
    let server = try PostgresURL("postgres://pfarchive@127.0.0.1:5432/scores")
    print("wrote and read back \(read.count) Player objects in \(path); a PostgreSQL store would live at \(server)")
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: StoreConsumer OUTPUT.sqlite\n".utf8))
    exit(2)
}
do {
    try run(arguments[1])
} catch {
    FileHandle.standardError.write(Data("StoreConsumer: \(error)\n".utf8))
    exit(1)
}
