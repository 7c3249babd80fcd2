import Foundation
import OrderedCollections
import PFCore
import PFParse

/// A set of Parse-like objects at rest that can be read: a Parse export, a SQLite store, a
/// keyed archive, Parse Server's MongoDB or PostgreSQL shape, a Core Data store.
///
/// Readers stream: ``forEachObject(in:_:)`` hands over one object at a time, so memory is
/// bounded by the largest object, not by the store.
public protocol ObjectStoreReader: AnyObject {
    /// Where the store is (a path or URL without credentials), for messages.
    var location: String { get }

    /// The classes with objects or a schema in the store, in a stable order. Join tables are
    /// not classes: they are listed by ``relations()``.
    func classNames() throws(PFError) -> [String]

    /// The fields and types per class: the store's own schema where it keeps one, otherwise
    /// inferred from the data.
    func schema() throws(PFError) -> ParseSchema

    /// The schema when the store can give it without reading its objects, or `nil` when
    /// ``schema()`` would infer it from every row (a Parse export without `_SCHEMA.json`).
    /// An import then gathers the schema during its one pass over the objects instead of
    /// reading them twice: after ``forEachObject(in:_:)`` has read every object of a class,
    /// ``schema()`` knows that class without reading it again.
    func declaredSchema() throws(PFError) -> ParseSchema?

    /// The number of objects of a class when the store knows it cheaply (for progress), or `nil`.
    func estimatedObjectCount(in className: String) -> Int?

    /// Calls `body` with each object of a class, in the store's order.
    /// - Throws: ``PFCore/PFError`` naming the store, the class and the row for bad data, or
    ///   what `body` throws.
    func forEachObject(in className: String, _ body: (ParseObject) throws(PFError) -> Void) throws(PFError)

    /// The relations that have join rows (or a Relation field in the schema).
    func relations() throws(PFError) -> [ParseRelationKey]

    /// Calls `body` with each join row of a relation.
    func forEachJoinRow(of relation: ParseRelationKey, _ body: (ParseJoinRow) throws(PFError) -> Void) throws(PFError)

    /// Releases files, connections and temporary copies. Calling it twice does nothing.
    func close()

    /// The links read so far whose target is not in the source and which were therefore
    /// read as null (a Realm file's unresolved links); empty for stores whose pointers keep
    /// their target's id. An import puts them in its report.
    func unresolvedLinks() -> UnresolvedLinks

    /// What the store holds and does not read as objects or join rows (a file that is no
    /// collection, a collection no Parse class can be), one line each naming it and why, for
    /// the caller to show: nothing a source holds is passed over without a word.
    func unreadContents() -> [String]
}

/// Links a source read as null because their target object is not in it.
public struct UnresolvedLinks: Sendable, Equatable {
    /// How many in all.
    public var count: Int
    /// The first ones, each as `Class.property -> Target key N`.
    public var listed: [String]

    /// Makes a tally.
    public init(count: Int = 0, listed: [String] = []) {
        self.count = count
        self.listed = listed
    }
}

/// A store that can be written. An import calls ``begin(schema:)`` once, then ``write(_:className:)``
/// and ``write(_:relation:)`` in batches, then ``commit()`` — or ``abort()`` on any error.
///
/// The contract every writer keeps: until ``commit()`` returns, a destination that did not
/// exist stays absent and an existing one stays unchanged (writes go to a temporary sibling
/// that is renamed into place, or into one database transaction). A process killed half way
/// may leave only a temporary sibling or an uncommitted transaction, which the next run of
/// the same import discards or completes. A file-based writer holds the destination's lock
/// from ``begin(schema:)`` to ``commit()`` or ``abort()`` and refuses a destination holding
/// anything it did not write (``foreignEntries``); see ``Destination``.
public protocol ObjectStoreWriter: AnyObject {
    /// Where the store is, for messages.
    var location: String { get }

    /// Starts writing; `schema` names every class that will be written, with the fields and
    /// relations known so far. Fields of written objects that it does not name are added as
    /// they come (typed by their first value), and ``extend(schema:)`` adds the rest.
    func begin(schema: ParseSchema) throws(PFError)

    /// Adds fields and relations learned after ``begin(schema:)`` — an import from a store
    /// whose schema is inferred while it is read calls it once the objects are written, before
    /// the join rows. A field already known keeps its type.
    func extend(schema: ParseSchema) throws(PFError)

    /// Writes a batch of objects of one class. An object whose `objectId` is already in the
    /// store replaces it.
    func write(_ objects: [ParseObject], className: String) throws(PFError)

    /// Writes a batch of join rows of one relation (a row already present is not duplicated).
    func write(_ rows: [ParseJoinRow], relation: ParseRelationKey) throws(PFError)

    /// Makes everything written visible at once.
    func commit() throws(PFError)

    /// Discards everything written since ``begin(schema:)``. Never throws; calling it after
    /// ``commit()`` or twice does nothing.
    func abort()

    /// The names the store can hold. Objects are handed over with their original names; a
    /// writer whose policy is not ``PFParse/ParseNamePolicy/unrestricted`` encodes the names it
    /// cannot hold (``PFParse/ParseNameCoding``), keeps the originals in the schema it writes,
    /// and decodes them when the store is read.
    var namePolicy: ParseNamePolicy { get }

    /// The names encoded by the last write (since ``begin(schema:)``), per class and field.
    var encodedNames: ParseNameTally { get }

    /// What ``begin(schema:)`` does with what the destination holds that is not part of the
    /// store: refuse it (the default), or carry it over untouched. Stores on a server, which
    /// never touch what they did not write, ignore it.
    var foreignEntries: ForeignEntries { get set }
}

/// A writer that stores a field held as prepared REST JSON (``PFParse/ParsePreparedValue``)
/// as it is, reading ``PFParse/ParseObject/storedFields`` and the prepared values instead of
/// ``PFParse/ParseObject/fields``: an import into it lets a source hand decoded payloads on as
/// prepared JSON (``SQLiteDatabaseObjectStore/preparesJSON``).
package protocol StoresPreparedJSON: ObjectStoreWriter {}

extension ObjectStoreWriter {
    /// Any name (the store holds names as they are).
    public var namePolicy: ParseNamePolicy { .unrestricted }
    /// Nothing encoded.
    public var encodedNames: ParseNameTally { ParseNameTally() }
    /// Stores that write only their own tables leave foreign entries alone whatever is asked.
    public var foreignEntries: ForeignEntries {
        get { .refuse }
        set {}
    }
}

extension ParseSchema {
    /// Adds a relation's field to its owning class as a `Relation` (with the relation's target
    /// class) when the schema does not have that field yet.
    /// - Parameter relation: the relation.
    public mutating func addRelation(_ relation: ParseRelationKey) {
        guard classes[relation.owningClass]?[relation.field] == nil else { return }
        classes[relation.owningClass, default: [:]][relation.field] = Field(.relation, targetClass: relation.targetClass)
    }
}

extension ParseSchema {
    /// The schema without its Pointer and Relation fields that name no target class, and
    /// those fields apart.
    func withoutUnknownTargets() -> (kept: ParseSchema, heldBack: ParseSchema) {
        var kept = self
        var heldBack = ParseSchema()
        for (className, fields) in classes {
            for (name, field) in fields where field.type.refersToClass && field.targetClass == nil {
                kept.classes[className]?[name] = nil
                heldBack.classes[className, default: [:]][name] = field
            }
        }
        return (kept, heldBack)
    }
}

extension ObjectStoreReader {
    /// The store's ``schema()``: stores that keep a schema give it without reading rows.
    public func declaredSchema() throws(PFError) -> ParseSchema? { try schema() }

    /// None: the store's pointers keep their target's id, found or not.
    public func unresolvedLinks() -> UnresolvedLinks { UnresolvedLinks() }

    /// Nothing: the store reads all it holds, or refuses what it cannot.
    public func unreadContents() -> [String] { [] }

    /// Every object of a class, read whole (for tests and small stores).
    /// - Parameter className: the class.
    /// - Returns: the objects in store order.
    public func objects(in className: String) throws(PFError) -> [ParseObject] {
        var all: [ParseObject] = []
        try forEachObject(in: className) { all.append($0) }
        return all
    }

    /// Every join row of a relation, read whole.
    public func joinRows(of relation: ParseRelationKey) throws(PFError) -> [ParseJoinRow] {
        var all: [ParseJoinRow] = []
        try forEachJoinRow(of: relation) { all.append($0) }
        return all
    }
}
