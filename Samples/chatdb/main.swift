// A small chat.db-shaped database (iMessage's message, handle, chat and chat_message_join
// tables), built here and read back as readable messages: text, sender, date and the
// attribute runs (mentions, links) of each message's attributedBody.
//
// The message bodies are NSMutableAttributedStrings archived as typedstreams with pfarchive's
// own classic archiver (as Messages.app stores them); the database is made by the sqlite3
// shell. Reading goes through PFSQLiteSource exactly as `pfarchive convert chat.db - --table
// message --decode-blobs --date-column message.date=mac-ns` does: a private copy, the blobs
// decoded, message.date read as Mac absolute time in nanoseconds.
//
// Run it with: swift run sample-chatdb [--keep DIR]   (needs the sqlite3 shell on PATH)
import Foundation
import PFArchive

typealias Body = ClassicAttributedString<[String: String]>

/// The messages: sender handle (0 = me), seconds after 2023-03-08 20:00 UTC, body and runs.
let messages: [(handle: Int, minutes: Int, body: Body)] = [
    (1, 0, Body(string: "Lunch at 12? 🍜", runs: [.init(length: 15, attributes: ["__kIMMessagePartAttributeName": "0"])], mutable: true)),
    (0, 2, Body(
        string: "@Ada yes! Menu: https://example.com/menu",
        runs: [
            .init(length: 4, attributes: ["__kIMMessagePartAttributeName": "0", "__kIMMentionConfirmedMention": "+15555550100"]),
            .init(length: 12, attributes: ["__kIMMessagePartAttributeName": "0"]),
            .init(length: 24, attributes: ["__kIMMessagePartAttributeName": "0", "__kIMLinkAttributeName": "https://example.com/menu"]),
        ], mutable: true)),
    (2, 5, Body(string: "Count me in", runs: [.init(length: 11, attributes: ["__kIMMessagePartAttributeName": "0"])], mutable: true)),
]

func sqlite3(_ database: URL, _ sql: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", database.path]
    let input = Pipe()
    process.standardInput = input
    try process.run()
    input.fileHandleForWriting.write(Data(sql.utf8))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw PFError(.io, format: .sqlite, "sqlite3 failed (\(process.terminationStatus))") }
}

do {
    let arguments = CommandLine.arguments.dropFirst()
    let keep = arguments.first == "--keep" ? arguments.dropFirst().first : nil
    let directory = keep.map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("sample-chatdb-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { if keep == nil { try? FileManager.default.removeItem(at: directory) } }
    let database = directory.appendingPathComponent("chat.db")
    try? FileManager.default.removeItem(at: database)

    // 1. Build the database: the schema's shape of chat.db, bodies archived by pfarchive.
    var sql = """
        CREATE TABLE handle (ROWID INTEGER PRIMARY KEY AUTOINCREMENT UNIQUE, id TEXT NOT NULL, service TEXT NOT NULL);
        CREATE TABLE chat (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, chat_identifier TEXT, display_name TEXT);
        CREATE TABLE message (ROWID INTEGER PRIMARY KEY AUTOINCREMENT, guid TEXT UNIQUE NOT NULL, text TEXT,
            handle_id INTEGER DEFAULT 0, date INTEGER, is_from_me INTEGER DEFAULT 0, attributedBody BLOB);
        CREATE TABLE chat_message_join (chat_id INTEGER REFERENCES chat (ROWID) ON DELETE CASCADE,
            message_id INTEGER REFERENCES message (ROWID) ON DELETE CASCADE, message_date INTEGER DEFAULT 0,
            PRIMARY KEY (chat_id, message_id));
        INSERT INTO handle (id, service) VALUES ('+15555550100', 'iMessage'), ('bo@example.com', 'iMessage');
        INSERT INTO chat (guid, chat_identifier, display_name) VALUES ('iMessage;+;chat1', 'chat1', 'Lunch crew');

        """
    let start: Int64 = 700_000_000  // 2023-03-08 20:26:40 UTC, seconds since 2001
    for (i, message) in messages.enumerated() {
        let blob = try ClassicArchiver.archivedData(withRootObject: message.body)
        let date = (start + Int64(message.minutes * 60)) * 1_000_000_000
        let hex = blob.map { String(format: "%02X", $0) }.joined()
        sql += "INSERT INTO message (guid, text, handle_id, date, is_from_me, attributedBody) VALUES "
        sql += "('m\(i)', NULL, \(message.handle), \(date), \(message.handle == 0 ? 1 : 0), X'\(hex)');\n"
        sql += "INSERT INTO chat_message_join VALUES (1, \(i + 1), \(date));\n"
    }
    try sqlite3(database, sql)
    print("built \(database.path)\n")

    // 2. Read it back: senders from handle, messages with their bodies decoded.
    let db = try SQLiteDatabase.open(url: database, options: .init(
        decodeBlobs: true, dateColumns: [try SQLiteDateColumn(parsing: "message.date=mac-ns")]))
    defer { db.close() }
    var senders: [Int64: String] = [:]
    try db.forEachRow(of: "handle") { row in
        if let id = Int64(row.objectId), let name = row.fields["id"]?.stringValue { senders[id] = name }
    }
    try db.forEachRow(of: "message") { row in
        let handle = row.fields["handle_id"]?.int64Value ?? 0
        let sender = handle == 0 ? "me" : senders[handle] ?? "handle \(handle)"
        var when = "?"
        if case .date(let date)? = row.fields["date"] { when = PFDateFormat.iso8601Seconds(date) ?? "?" }
        let body = row.fields["attributedBody"] ?? .null
        let text = body["string"]?.stringValue ?? row.fields["text"]?.stringValue ?? ""
        print("[\(when)] \(sender): \(text)")
        // The attribute runs: UTF-16 lengths over the text.
        var offset = text.utf16.startIndex
        for run in body["runs"]?.arrayValue ?? [] {
            let length = Int(run["length"]?.int64Value ?? 0)
            guard let end = text.utf16.index(offset, offsetBy: length, limitedBy: text.utf16.endIndex) else { break }
            let piece = String(text.utf16[offset..<end]) ?? "?"
            if let mention = run["attributes"]?["__kIMMentionConfirmedMention"]?.stringValue {
                print("    mention \"\(piece)\" → \(mention)")
            }
            if let link = run["attributes"]?["__kIMLinkAttributeName"]?.stringValue {
                print("    link \"\(piece)\" → \(link)")
            }
            offset = end
        }
        for report in row.reports { print("    warning: \(report)") }
    }
    print("\nwhat inspect shows for message.attributedBody:", CoreDataStore.censusText(try db.census(of: "message")["attributedBody"]?.kinds ?? [:]))
} catch {
    print("error: \(error)")
    exit(1)
}
