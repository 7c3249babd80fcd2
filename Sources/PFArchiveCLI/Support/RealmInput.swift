import ArgumentParser
import Foundation
import PFArchive

/// `--key HEX`, shared by every command that opens a Realm file (`convert`, `inspect`,
/// `import`, `diff`, `patch`): the 64-byte key of an encrypted `.realm` file.
struct RealmKeyOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The 64-byte encryption key of an encrypted Realm file, as 128 hexadecimal digits (each page is decrypted and its HMAC checked; a wrong key fails).",
            valueName: "hex"))
    var key: String?

    func validate() throws {
        if let key {
            do {
                _ = try RealmEncryption.key(hex: key)
            } catch {
                throw ValidationError("--key: \(error.message).")
            }
        }
    }

    /// The key's bytes (checked by ``validate()``), or `nil` without `--key`.
    var bytes: [UInt8]? { key.flatMap { try? RealmEncryption.key(hex: $0) } }
}

/// Reading a Realm file (`.realm`) given to `convert` or `inspect`.
enum RealmInput {
    /// Whether an input is a Realm file: its name ends in `.realm`, or its header is one
    /// (`RealmFile.looksLikeRealmFile`).
    static func isRealm(_ path: String, _ bytes: Data, key: RealmKeyOption) -> Bool {
        key.key != nil || path.lowercased().hasSuffix(".realm") || RealmFile.looksLikeRealmFile(bytes.prefix(24))
    }

    /// Opens a Realm file from its bytes.
    /// - Parameters:
    ///   - path: the input's name, for messages.
    ///   - bytes: the whole file.
    ///   - key: `--key`, for an encrypted file.
    ///   - limits: the decoding limits.
    /// - Throws: ``CLIFailure`` naming the file.
    static func open(_ path: String, bytes: Data, key: RealmKeyOption, limits: PFLimits) throws -> RealmDatabase {
        do {
            return try RealmDatabase(RealmFile(bytes: [UInt8](bytes), key: key.bytes, limits: limits))
        } catch {
            throw CLIFailure(file: path, error)
        }
    }
}

extension Convert {
    /// Writes a Realm file as `{"Class": [objects…]}` in the output format, or with `--table`
    /// one class's objects as JSON lines.
    func convertRealm(_ bytes: Data, options: FormatIO.ReadOptions) throws {
        let db = try RealmInput.open(input, bytes: bytes, key: realmKey, limits: options.limits)
        if !internalTables { UnreadWarnings.show(RealmObjectStore.unreadNotes(db, file: input), file: input) }
        let document: PFValue
        do {
            document = try db.document(includeInternal: internalTables)
        } catch {
            throw CLIFailure(file: input, error)
        }
        if db.unresolvedLinkCount > 0 {
            let shown = db.unresolvedLinks.prefix(5).joined(separator: "; ")
            FileHandle.standardError.write(
                Data("pfarchive: \(input): \(db.unresolvedLinkCount) links to objects not in the file written as null: \(shown)\n".utf8))
        }
        let classes = document.dictionaryValue.map { Array($0.keys) } ?? []
        guard let table = try table ?? onlyTableForRecords(classes, kind: "class") else { return try writeOutput(document) }
        guard let objects = document[table]?.arrayValue else {
            throw CLIFailure(
                "\(input): no class \(table); classes: \(classes.isEmpty ? "none" : classes.joined(separator: ", "))"
                    + (internalTables ? "" : " (internal tables with --internal-tables)"))
        }
        try writeOutput(.array(objects), as: .jsonl)
    }
}

extension Inspect {
    /// Prints a Realm file's format version, schema and object counts, as text or JSON.
    func inspectRealm(_ bytes: Data, options: FormatIO.ReadOptions) throws {
        let db = try RealmInput.open(input, bytes: bytes, key: realmKey, limits: options.limits)
        let summary: PFValue
        do {
            summary = try db.summary(includeInternal: internalTables)
        } catch {
            throw CLIFailure(file: input, error)
        }
        if json {
            try writeJSONSummary(summary, format: "realm")
        } else {
            try StandardOutput.writeLines(RealmDatabase.summaryText(file: input, summary: summary))
        }
    }
}
