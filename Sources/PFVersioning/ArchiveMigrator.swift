import Foundation
import PFCore

/// Migrates whole archives: reads the bytes (keyed archive, typedstream or JSON), migrates
/// every described object to its current version, and writes the result in the same form —
/// what `pfarchive migrate` runs.
public struct ArchiveMigrator: Sendable {
    /// The schema.
    public var schema: ArchiveSchema
    /// Migration options.
    public var options: MigrationOptions

    /// Makes an archive migrator.
    public init(schema: ArchiveSchema, options: MigrationOptions = MigrationOptions()) {
        self.schema = schema
        self.options = options
    }

    /// What migrating an archive produced.
    public struct Result: Sendable {
        /// The migrated archive, in the input's kind, container and compression.
        public var data: Data
        /// How the archive was stored.
        public var kind: ArchiveDocument.Kind
        /// What changed.
        public var report: MigrationReport
    }

    /// Migrates an archive's bytes.
    /// - Parameter data: the archive.
    /// - Returns: the rewritten archive and the report.
    /// - Throws: ``PFCore/PFError`` from reading, migrating (see ``Migrator/migrate(_:)``),
    ///   classic layouts, or writing.
    public func migrate(_ data: Data) throws(PFError) -> Result {
        var document = try ArchiveDocument.read(data, limits: options.limits)
        var report = try migrate(&document)
        if document.kind == .typedstream {
            let (lowered, dropped) = try ClassicLayout.lower(document.tree, schema: schema, limits: options.limits)
            document.tree = lowered
            report.notes += dropped.map { "\($0) has no position in the classic layout and was not written" }
        }
        return Result(data: try document.write(limits: options.limits), kind: document.kind, report: report)
    }

    /// Migrates a document's tree in place (lifting classic objects to named fields first).
    /// - Returns: the report.
    public func migrate(_ document: inout ArchiveDocument) throws(PFError) -> MigrationReport {
        if document.kind == .typedstream {
            document.tree = try ClassicLayout.lift(document.tree, schema: schema, limits: options.limits)
        }
        let outcome = try Migrator(schema: schema, options: options).migrate(document.tree)
        document.tree = outcome.tree
        return outcome.report
    }
}

/// One finding of ``SchemaValidator``.
public struct SchemaIssue: Sendable, Equatable, CustomStringConvertible {
    /// How serious a finding is.
    public enum Severity: String, Sendable {
        /// Decoding or migrating would fail.
        case error
        /// Works, but worth knowing (an old version, unknown fields kept, best-effort reads).
        case warning
    }

    /// How serious.
    public var severity: Severity
    /// Where in the decoded tree.
    public var path: PFKeyPath
    /// The object's type, when the finding is about one.
    public var className: String?
    /// What is wrong and what was expected.
    public var message: String

    /// Makes an issue.
    public init(severity: Severity, path: PFKeyPath, className: String?, message: String) {
        self.severity = severity
        self.path = path
        self.className = className
        self.message = message
    }

    public var description: String {
        "\(severity.rawValue): \(path.isRoot ? "(root)" : path.description): \(message)"
    }
}

/// Checks an archive against a schema without changing it: what `pfarchive validate INPUT
/// --schema FILE` reports for archives.
public enum SchemaValidator {
    /// Checks an archive (keyed, typedstream or JSON).
    ///
    /// Errors are what would fail: a field missing without a default, a value of the wrong
    /// type or out of range, an unknown enum symbol without a fallback, a newer version under
    /// `reject`, an unknown field under `error`, a step that would fail, an unreadable
    /// archive. Warnings are objects at older versions (migrate them), unknown fields kept,
    /// and newer versions read best-effort. A current archive that fits gives no issues.
    /// - Parameters:
    ///   - data: the archive.
    ///   - schema: the schema.
    ///   - options: policies, transforms, root type and limits.
    /// - Returns: every issue found, in tree order; empty when the archive is current and fits.
    public static func validate(_ data: Data, schema: ArchiveSchema, options: MigrationOptions = MigrationOptions()) -> [SchemaIssue] {
        do {
            var document = try ArchiveDocument.read(data, limits: options.limits)
            if document.kind == .typedstream {
                document.tree = try ClassicLayout.lift(document.tree, schema: schema, limits: options.limits)
            }
            return validate(tree: document.tree, schema: schema, options: options)
        } catch {
            return [SchemaIssue(severity: .error, path: error.path ?? .root, className: nil, message: error.description)]
        }
    }

    /// Checks a decoded tree.
    /// - Returns: every issue found.
    public static func validate(tree: PFValue, schema: ArchiveSchema, options: MigrationOptions = MigrationOptions()) -> [SchemaIssue] {
        var engine = MigrationEngine(schema: schema, options: options, collecting: true)
        do {
            _ = try engine.run(tree)
        } catch {
            engine.issues.append(SchemaIssue(severity: .error, path: error.path ?? .root, className: nil, message: error.description))
        }
        return engine.issues
    }
}
