import PFCore

/// Every failure the stores report (the store protocols, the destinations they write, the
/// file stores and the import), with its class and its message in one place. The SQLite and
/// PostgreSQL stores use these cases for what all stores share (a destination that holds data
/// pfarchive did not write, a write outside a transaction, a destination another import is
/// writing) and their own failure enums for the rest.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: StoreFailure.self)`. `path` and `location` name the file, directory or
/// store; `reason` is the system's text for an I/O error.
public enum StoreFailure: PFFailure, Hashable {
    /// The format name stores put in their errors.
    public static let format: PFError.Format = .store

    /// Who holds a destination's write lock.
    public enum Holder: Sendable, Hashable {
        /// A pfarchive process (its pid when the lock file names it).
        case process(pid: Int32?)
        /// Another pfarchive import into the same database.
        case anotherImport
    }

    /// How a store archive's contents are out of shape.
    public enum ArchiveProblem: Sendable, Hashable, CustomStringConvertible {
        /// The root is not a dictionary.
        case rootNotDictionary
        /// The root's `format` is not the store archive's tag.
        case notStoreArchive(formatTag: String)
        /// The root's `version` is not the one this build reads.
        case unsupportedVersion(reads: Int64)
        /// `classes` is not an array.
        case classesNotArray
        /// An entry of `classes` without `className` and an `objects` array.
        case badClass
        /// `relations` is not an array.
        case relationsNotArray
        /// An entry of `relations` without its names or with id arrays of different lengths.
        case badRelation
        /// A join row of a relation that is not two strings.
        case badJoinRow(Int)

        public var description: String {
            switch self {
            case .rootNotDictionary: "the root is not a dictionary"
            case .notStoreArchive(let tag): "not a pfarchive store archive (the root's format is not \"\(tag)\")"
            case .unsupportedVersion(let version): "unsupported store archive version; this pfarchive reads version \(version)"
            case .classesNotArray: "'classes' must be an array"
            case .badClass: "a class needs 'className' and an 'objects' array"
            case .relationsNotArray: "'relations' must be an array"
            case .badRelation: "a relation needs 'owningClass', 'field' and 'owningIds'/'relatedIds' arrays of one length"
            case .badJoinRow(let k): "join row \(k) is not two strings"
            }
        }
    }

    /// Why a destination itself is not what pfarchive writes, so it is never replaced.
    public enum Refusal: Sendable, Hashable, CustomStringConvertible {
        /// A symbolic link (its target would be written in place).
        case symbolicLink
        /// A FIFO, device or socket.
        case notARegularFile
        /// A directory where a file belongs (`file`, such as "a .zip file").
        case directoryWhereFileBelongs(_ file: String)
        /// A file where a directory belongs (`directory`, such as "an export directory").
        case fileWhereDirectoryBelongs(_ directory: String)
        /// A file that is not a readable zip archive where a zip belongs.
        case notAZip
        /// A file that does not read as `store` (such as "a pfarchive store archive");
        /// `problem` is what the reader reported.
        case unreadable(store: String, problem: String)
        /// A file that is not an SQLite database where one belongs.
        case notSQLite
        /// The SQLite database of another application (its `application_id`).
        case otherApplication(applicationID: UInt32)
        /// An SQLite database without pfarchive's tables (`firstTable`: the first of its own).
        case sqliteWithoutStoreTables(firstTable: String)

        public var description: String {
            switch self {
            case .symbolicLink: "a symbolic link"
            case .notARegularFile: "not a regular file"
            case .directoryWhereFileBelongs(let file): "a directory where \(file) belongs"
            case .fileWhereDirectoryBelongs(let directory): "a file where \(directory) belongs"
            case .notAZip: "a file that is not a readable zip archive"
            case .unreadable(let store, let problem): "not \(store) (\(problem))"
            case .notSQLite: "not an SQLite database"
            case .otherApplication(let id): "the SQLite database of another application (application_id \(id))"
            case .sqliteWithoutStoreTables(let table): "an SQLite database but not a pfarchive store (no _TABLES; \(table))"
            }
        }
    }

    // MARK: Destinations shared by every store

    /// The destination holds entries pfarchive did not write (`first`, and `more` others),
    /// which are not part of `store` (such as "a Parse export"); `keepable` says whether
    /// `--keep-foreign` could carry them over.
    case foreignEntries(path: String, first: String, more: Int, store: String, keepable: Bool)
    /// The destination itself is not what pfarchive writes.
    case notPfarchiveOutput(path: String, what: Refusal)
    /// The destination holds `entry`, which is not part of `store`, where the import writes a
    /// file of that name.
    case entryInTheWay(location: String, entry: String, store: String)
    /// Another writer holds the destination's lock.
    case beingWritten(location: String, by: Holder)
    /// A write call before `begin(schema:)` or after `commit()`.
    case notWriting(location: String)
    /// `begin(schema:)` was called again before `commit()` or `abort()`.
    case beganTwice(location: String)
    /// The directory a destination goes in does not exist.
    case noParentDirectory(path: String, parent: String)
    /// The lock file beside a destination cannot be created.
    case cannotCreateLock(path: String, lock: String, reason: String)
    /// The lock file beside a destination cannot be locked.
    case cannotLock(path: String, lock: String, reason: String)
    /// The previous destination cannot be put back after a failed replacement.
    case cannotPutBack(path: String, from: String, reason: String)
    /// A foreign entry cannot be carried over into the new destination (`part` names the
    /// step that failed, when there is one).
    case cannotCarryOver(path: String, part: String?, reason: String)
    /// A staged file's mode cannot be set like the file it replaces.
    case cannotSetMode(path: String, reason: String)
    /// A file cannot be opened to be synced.
    case cannotOpenToSync(path: String, reason: String)
    /// `fsync` failed.
    case cannotSync(path: String, reason: String)
    /// The finished staged output (`what`, such as "export") cannot be renamed into place.
    case cannotMoveIntoPlace(what: String, reason: String)
    /// The previous destination cannot be moved aside.
    case cannotMoveAside(path: String, reason: String)
    /// The staged file beside a destination cannot be created.
    case cannotCreateStaged(location: String, staged: String, reason: String?)
    /// The staged file beside a destination cannot be written.
    case cannotWriteStaged(location: String, reason: String)

    // MARK: Files

    /// No file or directory at `path`.
    case noSuchFile(path: String)
    /// A source path of a file kind (`.realm`, `.sqlite`…) is a directory.
    case sourceIsADirectory(path: String, expected: String)
    /// A file or directory cannot be created (`reason` nil: the system gave none).
    case cannotCreate(path: String, reason: String?)
    /// A file cannot be opened (`forWriting` or for reading).
    case cannotOpen(path: String, forWriting: Bool = false, reason: String)
    /// A file cannot be read (`after`: the byte it got to, when known).
    case cannotRead(path: String, after: Int? = nil, reason: String)
    /// A file cannot be written.
    case cannotWrite(path: String, reason: String)
    /// A file cannot be closed.
    case cannotClose(path: String, reason: String)
    /// A directory cannot be listed.
    case cannotList(path: String, reason: String)
    /// A file cannot be rewritten in place.
    case cannotRewrite(path: String, reason: String)
    /// A file cannot be renamed.
    case cannotRename(from: String, to: String, reason: String)
    /// A file cannot be copied.
    case cannotCopy(from: String, to: String, reason: String)
    /// A temporary directory cannot be created.
    case cannotCreateTemporaryDirectory(path: String, reason: String)
    /// A line of a line-based store is longer than the input budget; `hint` adds how to raise it.
    case lineTooLong(file: String, line: Int, maxBytes: Int, hint: Bool)

    // MARK: Store locations and the import

    /// A store argument that is empty or not a path.
    case notAStoreArgument(String)
    /// A single `.json` file of mongoexport documents (each starting with `_id`), which is no
    /// Parse class file: the Mongo shape is a directory of such files.
    case mongoExportFile(String)
    /// A `mongodump` of BSON files (a directory of `<collection>.bson`, or one such file):
    /// the Mongo shape is read from mongoexport's JSON.
    case mongodumpBSON(path: String, file: String)
    /// A store URL with a scheme other than postgres.
    case unknownURLScheme(String)
    /// The build has no reader for the store's kind.
    case readingUnavailable(location: String, kind: StoreKind)
    /// The build has no writer for the store's kind; `why` says why (read-only or not built).
    case writingUnavailable(location: String, why: String)
    /// A class asked for is not in the store.
    case noClass(location: String, className: String)
    /// Classes asked for are not in the source (`available`: the source's, the first 20 shown).
    case noSuchClasses(location: String, missing: [String], available: [String])
    /// A source returned an object of another class than the one asked for.
    case wrongClassReturned(location: String, asked: String, returned: String)
    /// A name the destination's naming policy refuses (`problem` says why).
    case badName(name: String, problem: String, policy: String)
    /// A class name a store cannot use (`problem` says why).
    case badClassName(location: String, className: String, problem: String)
    /// Object `index` of a batch of `batchClass` is of class `className` (every store's
    /// `write(_:of:)` takes objects of one class).
    case wrongClassInBatch(location: String, index: Int, objectId: String?, className: String, batchClass: String)

    // MARK: Copy rules on an import

    /// Path rules need a root object, which an import does not have.
    case importPathRules
    /// Rules that regenerate, set or omit `objectId` are for `pfarchive copy`.
    case importObjectIdRules
    /// A date attribute set to something that is not a date.
    case ruleNotADate(owner: String, key: String)
    /// `ACL` cannot be regenerated.
    case ruleRegeneratesACL(owner: String)
    /// An `ACL` set to something that is not an ACL (`problem`: the ACL reader's message).
    case ruleBadACL(owner: String, problem: String)
    /// An attribute set to a constant that is not a Parse value (`problem`: the reader's message).
    case ruleBadConstant(owner: String, key: String, constant: String, problem: String)

    // MARK: Parse exports

    /// A file of an export changed while it was being read twice.
    case changedWhileCompared(String)
    /// A class name that cannot be a file name of an export.
    case notAClassFileName(String)
    /// A join table name that cannot be a file name of an export.
    case notAFileName(String)
    /// The zip of an export cannot be written.
    case cannotWriteZip(path: String, reason: String)
    /// The previous zip cannot be opened again to carry entries over.
    case cannotReopenZip(location: String, reason: String)
    /// An entry carried over from the previous zip is gone.
    case entryVanished(location: String, entry: String)
    /// An entry cannot be carried over into the new zip.
    case cannotCarryIntoZip(entry: String, reason: String)
    /// An export holds a join table twice (once with ':' spelled as U+A789).
    case duplicateJoinFile(location: String, joinClassName: String)
    /// An export holds a class twice.
    case duplicateClassFile(location: String, className: String)
    /// A join row without string `owningId` and `relatedId`.
    case badJoinRow
    /// The export path is not a readable zip.
    case notAZip(path: String, reason: String)
    /// The zip holds two files of one name in different folders.
    case duplicateZipEntry(path: String, name: String, first: String, second: String)
    /// A source taken for a Parse export (a directory or zip) holds files but no class file
    /// (`exportFolder`: a folder in it that holds class files).
    case noExportFiles(path: String, found: [String], more: Int, exportFolder: String?)

    // MARK: JSON lines, Mongo shape and store archives

    /// A JSON Lines join row without its className, owningId or relatedId.
    case badJSONLinesJoinRow(location: String, line: Int)
    /// A Mongo-shape directory cannot be listed.
    case cannotListCollections(path: String, reason: String)
    /// A Mongo-shape store has no collection file of the class.
    case noCollection(location: String, className: String)
    /// A line of a Mongo-shape collection is not JSON (`problem` and `code`: the JSON reader's).
    case notAJSONLine(file: String, line: Int, code: PFError.Code, problem: String)
    /// A line of a Mongo-shape collection is not a document pfarchive reads (`problem` says why).
    case badDocument(file: String, line: Int, problem: String)
    /// A document of a Mongo-shape collection written as one JSON array (`mongoexport
    /// --jsonArray`) is not JSON, or not a document pfarchive reads (`problem` says why);
    /// `document` counts from 1, `offset` is the byte where it starts.
    case badArrayDocument(file: String, document: Int, offset: Int, problem: String)
    /// A store archive whose contents are out of shape.
    case badStoreArchive(location: String, problem: ArchiveProblem)
    /// A store archive that is not a keyed archive (`problem`: what the reader reported).
    case unreadableStoreArchive(location: String, problem: String)
    /// The store cannot be written as a keyed archive (`problem`: what the archiver reported).
    case cannotArchive(problem: String)

    public var code: PFError.Code {
        switch self {
        case .foreignEntries, .notPfarchiveOutput, .entryInTheWay, .duplicateJoinFile, .duplicateClassFile, .badJoinRow,
            .duplicateZipEntry, .noExportFiles, .badJSONLinesJoinRow, .badDocument, .badArrayDocument, .badStoreArchive, .unreadableStoreArchive,
            .wrongClassReturned, .badName, .badClassName, .ruleNotADate, .ruleBadACL, .ruleBadConstant, .mongoExportFile,
            .mongodumpBSON:
            .invalidValue
        case .notWriting, .beganTwice, .notAStoreArgument, .unknownURLScheme, .noClass, .noSuchClasses, .wrongClassInBatch,
            .importPathRules, .importObjectIdRules, .ruleRegeneratesACL, .notAClassFileName, .notAFileName, .noCollection:
            .usage
        case .readingUnavailable, .writingUnavailable: .unsupported
        case .notAJSONLine(_, _, let code, _): code
        case .lineTooLong: .limitExceeded
        case .cannotArchive: .unrepresentable
        case .beingWritten, .noParentDirectory, .cannotCreateLock, .cannotLock, .cannotPutBack, .cannotCarryOver,
            .cannotSetMode, .cannotOpenToSync, .cannotSync, .cannotMoveIntoPlace, .cannotMoveAside, .cannotCreateStaged,
            .cannotWriteStaged, .noSuchFile, .sourceIsADirectory, .cannotCreate, .cannotOpen, .cannotRead, .cannotWrite,
            .cannotClose, .cannotList, .cannotRewrite, .cannotRename, .cannotCopy, .cannotCreateTemporaryDirectory, .changedWhileCompared,
            .cannotWriteZip, .cannotReopenZip, .entryVanished, .cannotCarryIntoZip, .notAZip, .cannotListCollections:
            .io
        }
    }

    public var message: String {
        switch self {
        case .foreignEntries(let path, let first, let more, let store, let keepable):
            let how =
                keepable
                ? "choose a new destination, move it away, or pass --keep-foreign to carry such entries over untouched"
                : "choose a new destination or move it away"
            return "\(path): holds \(first)\(more > 0 ? " (and \(more) more)" : ""), which is not part of \(store); "
                + "pfarchive never deletes or rewrites files it did not write (\(how))"
        case .notPfarchiveOutput(let path, let what):
            return "\(path): is \(what); pfarchive never deletes or rewrites files it did not write (choose a new destination or move it away)"
        case .entryInTheWay(let location, let entry, let store):
            return "\(location): holds \(entry), which is not part of \(store), and the import writes a file of that name; move it away first"
        case .beingWritten(let location, let holder):
            let by: String
            switch holder {
            case .process(let pid): by = "pfarchive \(pid.map { "pid \($0)" } ?? "(another process)")"
            case .anotherImport: by = "another pfarchive import"
            }
            return "\(location) is being written by \(by); try again when it has finished"
        case .notWriting(let location): return "\(location): write before begin(schema:) or after commit()"
        case .beganTwice(let location): return "\(location): begin(schema:) called twice without commit() or abort()"
        case .noParentDirectory(let path, let parent): return "\(path): the directory \(parent) does not exist"
        case .cannotCreateLock(let path, let lock, let reason): return "\(path): cannot create the lock file \(lock): \(reason)"
        case .cannotLock(let path, let lock, let reason): return "\(path): cannot lock \(lock): \(reason)"
        case .cannotPutBack(let path, let from, let reason): return "cannot put \(path) back from \(from): \(reason)"
        case .cannotCarryOver(let path, let part, let reason):
            return "cannot carry over \(path)\(part.map { " (\($0))" } ?? ""): \(reason)"
        case .cannotSetMode(let path, let reason): return "cannot set the mode of \(path): \(reason)"
        case .cannotOpenToSync(let path, let reason): return "cannot open \(path) to sync it: \(reason)"
        case .cannotSync(let path, let reason): return "cannot sync \(path): \(reason)"
        case .cannotMoveIntoPlace(let what, let reason): return "cannot move the finished \(what) into place: \(reason)"
        case .cannotMoveAside(let path, let reason): return "cannot move \(path) aside: \(reason)"
        case .cannotCreateStaged(let location, let staged, let reason): return "\(location): cannot create \(staged)\(reason.map { ": \($0)" } ?? "")"
        case .cannotWriteStaged(let location, let reason): return "\(location): cannot write: \(reason)"
        case .noSuchFile(let path): return "\(path): no such file or directory"
        case .sourceIsADirectory(let path, let expected): return "\(path): is a directory, expected \(expected)"
        case .cannotCreate(let path, let reason): return "cannot create \(path)\(reason.map { ": \($0)" } ?? "")"
        case .cannotOpen(let path, let forWriting, let reason): return "cannot open \(path)\(forWriting ? " for writing" : ""): \(reason)"
        case .cannotRead(let path, let after, let reason): return "cannot read \(path)\(after.map { " after byte \($0)" } ?? ""): \(reason)"
        case .cannotWrite(let path, let reason): return "cannot write \(path): \(reason)"
        case .cannotClose(let path, let reason): return "cannot close \(path): \(reason)"
        case .cannotList(let path, let reason): return "cannot list \(path): \(reason)"
        case .cannotRewrite(let path, let reason): return "cannot rewrite \(path): \(reason)"
        case .cannotRename(let from, let to, let reason): return "cannot rename \(from) to \(to) (\(reason))"
        case .cannotCopy(let from, let to, let reason): return "cannot copy \(from) to \(to) (\(reason))"
        case .cannotCreateTemporaryDirectory(let path, let reason): return "\(path): cannot create the temporary directory (\(reason))"
        case .lineTooLong(let file, let line, let maxBytes, let hint):
            return "\(file): line \(line) is longer than \(maxBytes) bytes; expected one document per line"
                + (hint ? " (raise PFLimits.maxInputBytes only for trusted input)" : "")
        case .mongoExportFile(let path):
            return "\(path): holds mongoexport documents (each starting with _id), not a Parse class file; put the collection files in a directory "
                + "(with _SCHEMA.json when there is one) to read them as Parse Server's MongoDB shape"
        case .mongodumpBSON(let path, let file):
            return "\(path): a mongodump of BSON files (\(file)); BSON is not read: export each collection as JSON "
                + "(mongoexport --db DB --collection C --out DIR/C.json, _SCHEMA included) and give that directory, "
                + "read as Parse Server's MongoDB shape"
        case .notAStoreArgument(let argument): return "a store must be a path or a postgres:// URL, not '\(argument)'"
        case .unknownURLScheme(let argument): return "\(argument): unknown store URL scheme; expected a path or postgres://user@host/db"
        case .readingUnavailable(let location, let kind):
            return "\(location): reading \(kind) is not available in this build of pfarchive"
        case .writingUnavailable(let location, let why): return "\(location): \(why)"
        case .noClass(let location, let className): return "\(location): no class \(className)"
        case .noSuchClasses(let location, let missing, let available):
            return "\(location): no class \(missing.joined(separator: ", ")) in the source; it has \(available.prefix(20).joined(separator: ", "))"
        case .wrongClassReturned(let location, let asked, let returned):
            return "\(location): class \(asked) returned an object of class \(returned)"
        case .badName(let name, let problem, let policy): return "\(name): \(problem) (\(policy))"
        case .badClassName(let location, let className, let problem): return "\(location): class '\(className)': \(problem)"
        case .wrongClassInBatch(let location, let index, let objectId, let className, let batchClass):
            return "\(location): object \(index)\(objectId.map { " ('\($0)')" } ?? "") of a \(batchClass) batch is of class \(className)"
        case .importPathRules:
            return "path rules (such as department.head) need a root object; an import copies every object, so it takes Type.key and *.key rules only"
        case .importObjectIdRules:
            return "an import keeps every objectId (Pointers and join rows name them); rules that regenerate, set or omit objectId are for pfarchive copy"
        case .ruleNotADate(let owner, let key): return "\(owner).\(key) can only be set to a date ({\"__type\":\"Date\",\"iso\":…})"
        case .ruleRegeneratesACL(let owner): return "\(owner).ACL cannot be regenerated; set or omit it"
        case .ruleBadACL(let owner, let problem): return "\(owner).ACL: \(problem)"
        case .ruleBadConstant(let owner, let key, let constant, let problem): return "\(owner).\(key) cannot be set to \(constant): \(problem)"
        case .changedWhileCompared(let name): return "\(name): the file changed while it was compared"
        case .notAClassFileName(let className): return "'\(className)' cannot be written as a class file"
        case .notAFileName(let name): return "'\(name)' cannot be a file name"
        case .cannotWriteZip(let path, let reason): return "cannot write the zip \(path): \(reason)"
        case .cannotReopenZip(let location, let reason): return "\(location): cannot reopen the zip: \(reason)"
        case .entryVanished(let location, let entry): return "\(location): entry \(entry) vanished from the zip"
        case .cannotCarryIntoZip(let entry, let reason): return "cannot carry \(entry) over into the new zip: \(reason)"
        case .duplicateJoinFile(let location, let joinClassName):
            return "\(location): two files hold \(joinClassName) (spelling ':' differently: ':', U+A789, %3A or a space); keep one"
        case .duplicateClassFile(let location, let className): return "\(location): two files hold class \(className); keep one"
        case .badJoinRow: return "a join row needs string 'owningId' and 'relatedId'"
        case .notAZip(let path, let reason): return "\(path): not a readable zip archive (\(reason))"
        case .duplicateZipEntry(let path, let name, let first, let second):
            return "\(path): the zip holds two files named \(name) (\(first) and \(second)); extract the one export you mean"
        case .noExportFiles(let path, let found, let more, let folder):
            let listed = found.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
            if let folder {
                return "\(path): holds no <Class>.json file (it holds \(listed)); the export is in \(folder): give that folder"
            }
            return "\(path): holds no <Class>.json file (it holds \(listed)); expected a Parse export: a directory or .zip of "
                + "<Class>.json files (a directory of mongoexport files is read as Parse Server's Mongo shape)"
        case .badJSONLinesJoinRow(let location, let line):
            return "\(location): line \(line): a join row needs className _Join:<field>:<OwningClass>, owningId and relatedId"
        case .cannotListCollections(let path, let reason):
            return "\(path): cannot list the directory (\(reason)); expected a directory of <collection>.json files"
        case .noCollection(let location, let className): return "\(location): no collection '\(className)' (expected \(className).json)"
        case .badDocument(let file, let line, let problem): return "\(file):\(line): \(problem)"
        case .badArrayDocument(let file, let document, let offset, let problem):
            return "\(file): document \(document) of the array (byte \(offset)): \(problem)"
        case .notAJSONLine(let file, let line, _, let problem): return "\(file):\(line): \(problem); expected one JSON document per line"
        case .badStoreArchive(let location, let problem): return "\(location): \(problem)"
        case .unreadableStoreArchive(let location, let problem): return "\(location): \(problem)"
        case .cannotArchive(let problem): return "cannot archive the store: \(problem)"
        }
    }
}
