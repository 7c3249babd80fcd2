import Foundation
import PFCore
import PFKeyedArchive

/// The copy profile as a ``PFKeyedArchive/KeyedArchiverEdgePolicy``: decides, as the keyed
/// archiver meets them, which references of Swift objects (``PFKeyedArchive/ArchiveCoding``
/// classes) are written, and what their attributes become.
///
/// Archiving with it gives a profile's archive (pasteboard, persistence, …); ``ObjectCopier``
/// uses it to copy object graphs. Edges and attributes are named as the objects encode them:
/// the type is ``PFKeyedArchive/ArchiveCoding/archiveClassName``, the key the coding key. The
/// archiver writes breadth-first while a policy is set, so depths and root paths are shortest
/// distances, as in ``GraphCopier``. Only class instances carry depth and path (a struct is
/// part of whatever holds it).
public final class CopyArchivePolicy: KeyedArchiverEdgePolicy {
    /// The rules.
    public let rules: CopyRules
    /// `true` when copying: a `share` edge keeps the original instance (written as an external
    /// placeholder). `false` when archiving: a shared target is written like a copied one
    /// (an archive cannot point outside itself).
    public let copying: Bool
    /// The identity a `reference` edge writes for a target (`objectId` of the Pointer);
    /// `nil` writes a Pointer with the class only.
    public var identify: ((any ArchiveCoding) -> String?)?
    /// What the archive holds, so far.
    public private(set) var report: CopyReport

    var states: [ObjectIdentifier: (depth: Int, path: Int)] = [:]
    var conditionals: [(owner: String, key: String, target: ObjectIdentifier)] = []
    var generator: IDGenerator
    let now: Date
    let hasAttributeRules: Bool

    /// Makes a policy.
    public init(rules: CopyRules, copying: Bool = false, seed: UInt64? = nil, now: Date = Date()) {
        self.rules = rules
        self.copying = copying
        report = CopyReport(profile: rules.profile.name)
        generator = IDGenerator(seed: seed)
        self.now = now
        hasAttributeRules = rules.hasAttributeRules
    }

    func state(of object: KeyedArchiver.EdgeEnd) -> (depth: Int, path: Int) {
        guard let id = object.identity else { return (0, CopyRules.rootPath) }
        return states[id] ?? (0, CopyRules.rootPath)
    }

    public func archiver(
        _ archiver: KeyedArchiver, actionForKey key: String, from owner: KeyedArchiver.EdgeEnd, to target: KeyedArchiver.EdgeEnd
    ) throws -> KeyedArchiver.EdgeAction {
        let ownerType = owner.className
        let targetType = target.className
        let (depth, path) = state(of: owner)
        let rule = rules.ruleAction(ownerType: ownerType, key: key, path: path)
        let action = rules.edgeAction(rule: rule, targetIsTyped: true)
        report.countEdge(ownerType, action)
        // The archiver asks about class instances only, which always have an identity.
        guard let targetID = target.identity else { return .encode }
        switch action {
        case .copy:
            if let max = rules.profile.maxDepth, depth + 1 > max {
                let edge = CopyReport.Edge(ownerType: ownerType, ownerNode: 0, key: key)
                if rules.profile.onDepthExceeded == .error {
                    throw PFError(GraphCopyFailure.keyTooDeep(owner: ownerType, key: key, maxDepth: max), format: .graphCopy, path: archiver.codingPath)
                }
                report.truncatedEdgeCount += 1
                if report.truncatedEdges.count < CopyReport.listLimit { report.truncatedEdges.append(edge) }
                return .omit
            }
            if states[targetID] == nil {
                guard report.totalCopied < rules.profile.maxObjects else {
                    throw PFError(GraphCopyFailure.tooManyObjects(maxObjects: rules.profile.maxObjects), format: .graphCopy, path: archiver.codingPath)
                }
                states[targetID] = (depth + 1, rules.path(from: path, through: key))
                report.copiedObjects[targetType, default: 0] += 1
            }
            return .encode
        case .share:
            return copying ? .external : .encode
        case .omit:
            return .omit
        case .conditional:
            conditionals.append((ownerType, key, targetID))
            return .conditional
        case .reference:
            // A copy keeps the target itself (a reference is an archive's way of sharing).
            if copying { return .external }
            var pointer: PFValue = ["__type": "Pointer", "className": .string(targetType)]
            if let id = identify?(target.object), case .dictionary(var d) = pointer {
                d["objectId"] = .string(id)
                pointer = .dictionary(d)
            }
            return .replace(pointer)
        }
    }

    public func archiver(_ archiver: KeyedArchiver, attributeActionForKey key: String, of owner: KeyedArchiver.EdgeEnd)
        throws -> KeyedArchiver.AttributeAction
    {
        guard hasAttributeRules else { return .keep }
        let ownerType = owner.className
        let action = rules.attributeAction(ownerType: ownerType, key: key, path: state(of: owner).path)
        if action != .copy { report.attributes[ownerType, default: [:]][action.name, default: 0] += 1 }
        switch action {
        case .copy: return .keep
        case .omit: return .omit
        case .set(let value): return .replace(value)
        case .regenerate(.now): return .replace(.date(now))
        case .regenerate(.uuid): return .replace(.string(generator.uuid()))
        case .regenerate(.objectId): return .replace(.string(generator.objectId(avoiding: [])))
        }
    }

    /// Registers the root before archiving starts (depth 0, the root path, copied).
    func begin(root: some ArchiveCoding & AnyObject) {
        states[ObjectIdentifier(root)] = (0, CopyRules.rootPath)
        report.copiedObjects[type(of: root).archiveClassName, default: 0] += 1
    }

    /// Completes the report once archiving is done: conditional edges whose target was not
    /// written are counted as dropped.
    func finish() {
        for (owner, key, target) in conditionals where states[target] == nil {
            report.droppedConditionalCount += 1
            if report.droppedConditionals.count < CopyReport.listLimit {
                report.droppedConditionals.append(CopyReport.Edge(ownerType: owner, ownerNode: 0, key: key))
            }
        }
        conditionals.removeAll()
    }
}

/// The result of copying Swift objects.
public struct ObjectCopyResult<Root> {
    /// The copy of the root.
    public var copy: Root
    /// Each original instance that was copied → its copy.
    public var map: [ObjectIdentifier: AnyObject]
    /// What the copy did.
    public var report: CopyReport
}

/// Copies graphs of ``PFKeyedArchive/ArchiveCoding`` classes under copy rules: the objects are
/// archived with a ``CopyArchivePolicy`` (so omitted, conditional and truncated edges are
/// never even walked) and unarchived again, shared targets substituted by the originals.
/// Identity, sharing and cycles survive as in any keyed archive; the classes' own
/// `encode(with:)`/`init(from:)` are the only field access, so nothing needs reflection.
public enum ObjectCopier {
    /// Copies the graph reachable from `root`.
    /// - Parameters:
    ///   - root: the root object (always copied).
    ///   - rules: the profile and schema.
    ///   - registry: the classes the copy may instantiate (every class in the graph).
    ///   - seed: seeds regenerated ids, for reproducible copies.
    /// - Returns: the copy, the original→copy map and the report.
    /// - Throws: ``PFCore/PFError`` from the rules (limits) or the unarchiver (a class not in
    ///   the registry), or what an `encode(with:)`/`init(from:)` throws.
    public static func copy<Root: ArchiveCoding & AnyObject>(
        _ root: Root, rules: CopyRules, registry: ArchiveClassRegistry, seed: UInt64? = nil, now: Date = Date()
    ) throws -> ObjectCopyResult<Root> {
        let policy = CopyArchivePolicy(rules: rules, copying: true, seed: seed, now: now)
        let archiver = KeyedArchiver()
        archiver.edgePolicy = policy
        policy.begin(root: root)
        try archiver.encode(root, forKey: KeyedObjectTable.rootKey)
        let table = try archiver.finishedTable()
        policy.finish()
        let unarchiver = KeyedUnarchiver(table: table, registry: registry)
        for (uid, original) in archiver.externalObjects { try unarchiver.substitute(original, forUID: uid) }
        let copy = try unarchiver.decodeTopLevel(Root.self, forKey: KeyedObjectTable.rootKey)
        var map: [ObjectIdentifier: AnyObject] = [:]
        for (id, _) in policy.states {
            // States are keyed by the originals the archiver retains, so the ids are live.
            if let uid = archiver.uid(ofIdentifier: id), let made = unarchiver.decodedValue(forUID: uid), type(of: made) is AnyClass {
                map[id] = made as AnyObject
            }
        }
        return ObjectCopyResult(copy: copy, map: map, report: policy.report)
    }

    /// Archives the graph reachable from `root` the way a profile says: a pasteboard and a
    /// persistence archive of one graph differ only in the rules passed here.
    /// - Returns: the archive (in `options.container`) and what it holds.
    /// - Throws: as ``PFKeyedArchive/KeyedArchiver/archivedData(withRootObject:options:)``,
    ///   and ``PFCore/PFError`` `limitExceeded` from the profile's limits.
    public static func archive(
        _ root: some ArchiveCoding & AnyObject, rules: CopyRules, options: KeyedArchiver.Options = .init(), seed: UInt64? = nil
    ) throws -> (data: Data, report: CopyReport) {
        let policy = CopyArchivePolicy(rules: rules, copying: false, seed: seed)
        let archiver = KeyedArchiver(options: options)
        archiver.edgePolicy = policy
        policy.begin(root: root)
        try archiver.encode(root, forKey: KeyedObjectTable.rootKey)
        let data = try archiver.finishEncoding()
        policy.finish()
        return (data, policy.report)
    }
}
