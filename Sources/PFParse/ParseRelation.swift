import Foundation
import OrderedCollections
import PFCore

/// A relation of a class: the `Relation` field `field` of `owningClass`, whose rows live in
/// Parse's `_Join:<field>:<owningClass>` table.
public struct ParseRelationKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The class that has the relation field, such as `Post`.
    public var owningClass: String
    /// The relation field, such as `likes`.
    public var field: String
    /// The class the relation points at, when the schema says (`_User`).
    public var targetClass: String?

    /// Makes a relation key.
    /// - Parameters:
    ///   - owningClass: the class with the relation field.
    ///   - field: the field.
    ///   - targetClass: the related class, when known.
    public init(owningClass: String, field: String, targetClass: String? = nil) {
        self.owningClass = owningClass
        self.field = field
        self.targetClass = targetClass
    }

    /// The same relation without its target class: what names a relation (its owning class
    /// and field), for matching it between stores that do and do not know the target.
    public var untargeted: ParseRelationKey { ParseRelationKey(owningClass: owningClass, field: field) }

    /// Parse's join-table name, `_Join:<field>:<owningClass>`.
    public var joinClassName: String { "_Join:\(field):\(owningClass)" }

    /// Reads a join-table name `_Join:<field>:<owningClass>` (also with U+A789 `꞉` for `:`).
    /// - Parameter name: the table or file name (without `.json`).
    /// - Returns: the key (no target class), or `nil` when the name is not a join table.
    public init?(joinClassName name: String) {
        let normalized = name.replacingOccurrences(of: "\u{A789}", with: ":")
        let parts = normalized.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "_Join", !parts[1].isEmpty, !parts[2].isEmpty else { return nil }
        self.init(owningClass: String(parts[2]), field: String(parts[1]))
    }

    /// Reads a join table's name as a file name spells it: `_Join:<field>:<Class>`, with
    /// U+A789 `꞉`, `%3A` (URL-escaped, as mongodump names files) or a space for each `:`
    /// (file systems that forbid `:`). Parse's field and class names hold none of these, so
    /// the spelling is never ambiguous.
    /// - Parameter stem: the file name without `.json`.
    /// - Returns: the key (no target class), or `nil` when the name is not a join table's.
    public init?(joinFileStem stem: String) {
        guard stem.hasPrefix("_Join") else { return nil }
        if let key = ParseRelationKey(joinClassName: stem) {
            self = key
            return
        }
        for separator in ["%3A", "%3a", " "] where stem.contains(separator) {
            if let key = ParseRelationKey(joinClassName: stem.replacingOccurrences(of: separator, with: ":")) {
                self = key
                return
            }
        }
        return nil
    }

    public var description: String { joinClassName }

    public static func < (a: ParseRelationKey, b: ParseRelationKey) -> Bool {
        (a.owningClass, a.field) < (b.owningClass, b.field)
    }
}

/// One row of a relation: the owning object relates to the related object.
public struct ParseJoinRow: Sendable, Hashable {
    /// The objectId of the object with the relation field.
    public var owningId: String
    /// The objectId of the related object.
    public var relatedId: String

    /// Makes a join row.
    /// - Parameters:
    ///   - owningId: the owning object's id.
    ///   - relatedId: the related object's id.
    public init(owningId: String, relatedId: String) {
        self.owningId = owningId
        self.relatedId = relatedId
    }
}

/// What the related ids of a relation say about its target class when no schema names it (a
/// Parse.com export has no `_SCHEMA.json` and no Relation field in its rows: only the join
/// file `_Join:<field>:<Class>.json`, whose rows hold bare objectIds).
///
/// The target is the one class that holds an object with every related id that is found
/// anywhere. Ids found in no class are listed (the target is still inferred from the others,
/// as a dangling Pointer keeps its class); ids found only in different classes, or a
/// relation none of whose ids is found, leave the target unknown and say why — nothing is
/// guessed. `pfarchive import` and `pfarchive copy` both decide with this.
public struct RelationTargetInference: Sendable, Equatable, CustomStringConvertible {
    /// What the ids said.
    public enum Outcome: Sendable, Equatable {
        /// Every found id is an object of this class.
        case inferred(String)
        /// The ids are objects of these classes, and no one class holds them all (or several do).
        case ambiguous([String])
        /// No related id is an object of any class read (or the relation has no rows).
        case notFound
    }

    /// The relation (its ``ParseRelationKey/targetClass`` is the inferred class, or `nil`).
    public var relation: ParseRelationKey
    /// What the ids said.
    public var outcome: Outcome
    /// Distinct related ids looked up.
    public var idCount: Int
    /// Distinct related ids in no class, counted.
    public var missingCount: Int
    /// The first ten of them.
    public var missingIds: [String]

    /// How many missing ids are listed.
    public static let maxListed = 10

    /// Infers a relation's target class.
    /// - Parameters:
    ///   - relation: the relation (its target is ignored).
    ///   - relatedIds: the `relatedId` of each join row (repeats are looked up once).
    ///   - classesHaving: the classes holding an object with an id.
    public init(_ relation: ParseRelationKey, relatedIds: some Sequence<String>, classesHaving: (String) -> [String]) {
        var looked = Set<String>()
        var common: Set<String>?
        var all = Set<String>()
        var missing: [String] = []
        var missingCount = 0
        for id in relatedIds where looked.insert(id).inserted {
            let classes = classesHaving(id)
            if classes.isEmpty {
                missingCount += 1
                if missing.count < Self.maxListed { missing.append(id) }
                continue
            }
            all.formUnion(classes)
            common = common.map { $0.intersection(classes) } ?? Set(classes)
        }
        var key = relation
        if let common, common.count == 1, let target = common.first {
            key.targetClass = target
            outcome = .inferred(target)
        } else if let common {
            key.targetClass = nil
            outcome = .ambiguous((common.isEmpty ? all : common).sorted())
        } else {
            key.targetClass = nil
            outcome = .notFound
        }
        self.relation = key
        idCount = looked.count
        self.missingCount = missingCount
        missingIds = missing
    }

    public var description: String {
        let name = relation.joinClassName
        let missingText = missingIds.joined(separator: ", ") + (missingCount > missingIds.count ? ", …" : "")
        switch outcome {
        case .inferred(let target):
            var line = "relation \(name): target class \(target) inferred from \(idCount) related id\(idCount == 1 ? "" : "s")"
            if missingCount > 0 { line += "; \(missingCount) related id\(missingCount == 1 ? " is" : "s are") in no class: \(missingText)" }
            return line
        case .ambiguous(let classes):
            return "relation \(name): target class unknown: its related ids are objects of \(classes.joined(separator: " and ")), not of one class"
        case .notFound:
            return idCount == 0
                ? "relation \(name): target class unknown: no schema names it and it has no rows"
                : "relation \(name): target class unknown: none of its \(idCount) related ids is an object of the source (\(missingText))"
        }
    }

    /// The finding as JSON (for `--json` reports).
    public var jsonValue: PFValue {
        var out: OrderedDictionary<String, PFValue> = ["relation": .string(relation.joinClassName)]
        switch outcome {
        case .inferred(let target): out["targetClass"] = .string(target)
        case .ambiguous(let classes): out["ambiguousClasses"] = .array(classes.map { .string($0) })
        case .notFound: out["targetClass"] = .null
        }
        out["relatedIds"] = .int(Int64(idCount))
        out["missingIdCount"] = .int(Int64(missingCount))
        out["missingIds"] = .array(missingIds.map { .string($0) })
        return .dictionary(out)
    }
}
