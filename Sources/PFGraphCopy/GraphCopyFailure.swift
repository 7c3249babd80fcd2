import PFCore

/// Every failure PFGraphCopy reports, with its class and message in one place: a copy rules
/// file or selector that is wrong (format `copy rules`), a copy that passes its profile's
/// limits (format `graph copy`), and Parse objects that do not form a graph (format `parse`).
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: GraphCopyFailure.self)`.
public enum GraphCopyFailure: PFFailure, Hashable {
    // Selectors.
    /// Text that is not a rule selector.
    case notASelector(String)
    /// A `*.key` selector with more than one key.
    case anyKeyArity(String)
    /// A `Type.key` selector with more than one key.
    case typeKeyArity(String)
    /// A selector (`text`) the rules' declared types do not allow: ``SelectorProblem`` says why.
    case selector(String, SelectorProblem)
    /// Two rules for one selector at the same level (`first`, `second` name them).
    case conflict(selector: String, first: String, second: String)
    /// A shared rule (in `rules.section`) conflicts with one of profile `profile`.
    case sharedConflict(selector: String, first: String, second: String, section: String, profile: String)
    /// Two rules, an edge and an attribute rule, for one selector.
    case edgeAndAttributeRule(String)
    // Rules files.
    /// `rulesVersion` is not 1.
    case rulesVersion
    /// A key declared as both an attribute and an edge.
    case attributeAndEdge(String)
    /// `identity` names a key that is not an attribute of the type.
    case identityNotAttribute(String, type: String)
    /// An edge targets a type the file does not declare.
    case unknownTargetType(String)
    /// A profile extends itself.
    case profileCycle(String)
    /// A profile's base could not be resolved.
    case profileUnresolved(String)
    /// `extends` names neither one of the file's profiles nor a built-in one.
    case unknownBaseProfile(String, builtIn: [String])
    /// No profile of that name (`known` lists the file's and the built-in ones).
    case unknownProfile(String, known: [String])
    /// Not `true` or `false`.
    case expectedBool
    /// Not an object (`found` is its kind).
    case expectedObject(found: String)
    /// A member the object may not hold (`allowed` lists those it may).
    case unknownMember(String, allowed: [String])
    /// Not a string (`found` is its kind).
    case expectedString(found: String)
    /// Not an array of strings.
    case expectedStringArray
    /// Not a whole number from 0 to `Int32.max`.
    case expectedWholeNumber
    /// A value outside an enumeration (`allowed` lists its values).
    case unknownValue(String, allowed: [String])
    /// An attribute rule without `action`.
    case missingAction
    /// A `set` rule without `value`.
    case setNeedsValue
    /// An attribute action that does not exist.
    case unknownAttributeAction(String)
    /// `generator` on a rule that does not regenerate.
    case generatorOnlyWithRegenerate
    /// `value` on a rule that does not set.
    case valueOnlyWithSet
    // Rules against an input.
    /// A `Type.key` rule names a class the input does not have (`known`: some it has).
    case noInputClass(String, known: String)
    /// A `Type.key` rule names a key the class does not have (`known`: some it has).
    case noInputKey(type: String, key: String, known: String)
    /// A `*.key` rule names a key no class of the input has.
    case noInputAnyKey(String)
    /// A path segment no class of the input has.
    case noInputPathKey(String, path: String)
    // Copying.
    /// The copy would create more than `maxObjects` nodes.
    case tooManyNodes(maxObjects: Int)
    /// Copying an edge (described) would pass `maxDepth`.
    case edgeTooDeep(edge: String, maxDepth: Int)
    /// Copying `owner.key` would pass `maxDepth`.
    case keyTooDeep(owner: String, key: String, maxDepth: Int)
    /// The copy would hold more than `maxObjects` objects.
    case tooManyObjects(maxObjects: Int)
    // Parse object graphs.
    /// Two objects share an identity (described as a pointer).
    case duplicateIdentity(String)
    /// A value of a kind a Parse object cannot hold.
    case unrepresentable(kind: String)
    /// A Pointer to an object (of `className`) that has no objectId.
    case pointerWithoutId(className: String)

    /// Why a selector does not fit the declared types.
    public enum SelectorProblem: Sendable, Hashable, CustomStringConvertible {
        /// An edge rule for an attribute.
        case isAttribute(type: String, key: String)
        /// An attribute rule for an edge.
        case isEdge(type: String, key: String)
        /// A type the rules do not declare (`declared` lists those they do).
        case unknownType(String, declared: [String])
        /// A key the type does not declare.
        case unknownKey(String, type: String)
        /// A key no declared type has.
        case noTypeHasKey(String)
        /// A path ending in a key no type declares.
        case unknownKeyAtEnd(String)
        /// A path segment that is not a declared edge.
        case notAnEdge(String)
        /// A path edge targeting an undeclared type.
        case edgeTargetsUnknownType(edge: String, target: String)

        public var description: String {
            switch self {
            case .isAttribute(let type, let key): "\(type).\(key) is an attribute; put its rule under attributes"
            case .isEdge(let type, let key): "\(type).\(key) is an edge; put its rule under edges"
            case .unknownType(let type, let declared): "unknown type \(type); the rules declare \(declared.joined(separator: ", "))"
            case .unknownKey(let key, let type): "unknown key \(key) for type \(type)"
            case .noTypeHasKey(let key): "no declared type has the key \(key)"
            case .unknownKeyAtEnd(let segment): "unknown key \(segment) at the end of the path"
            case .notAnEdge(let segment): "\(segment) is not a declared edge"
            case .edgeTargetsUnknownType(let edge, let target): "edge \(edge) targets unknown type \(target)"
            }
        }
    }

    public var code: PFError.Code {
        switch self {
        case .tooManyNodes, .edgeTooDeep, .keyTooDeep, .tooManyObjects: .limitExceeded
        case .unrepresentable: .unrepresentable
        default: .invalidValue
        }
    }

    public var message: String {
        switch self {
        case .notASelector(let text):
            "\"\(text)\" is not a rule selector; expected Type.key, *.key or a root path such as department.head"
        case .anyKeyArity(let text): "\"\(text)\": *.key takes exactly one key"
        case .typeKeyArity(let text): "\"\(text)\": Type.key takes exactly one key; paths start with a lowercase field"
        case .selector(let text, let problem): "\"\(text)\": \(problem)"
        case .conflict(let selector, let first, let second):
            "conflicting rules for \"\(selector)\": \(first) and \(second) at the same level; keep one"
        case .sharedConflict(let selector, let first, let second, let section, let profile):
            Self.conflict(selector: selector, first: first, second: second).message + " (rules.\(section) and profiles.\(profile))"
        case .edgeAndAttributeRule(let selector): "\"\(selector)\" has both an edge and an attribute rule; keep one"
        case .rulesVersion: "rulesVersion must be 1"
        case .attributeAndEdge(let key): "\(key) is declared both as an attribute and as an edge"
        case .identityNotAttribute(let key, let type): "identity names \(key), which is not an attribute of \(type)"
        case .unknownTargetType(let target): "unknown target type \(target)"
        case .profileCycle(let name): "profile \(name) extends itself (a cycle of extends)"
        case .profileUnresolved(let name): "profile \(name) could not be resolved"
        case .unknownBaseProfile(let name, let builtIn):
            "unknown profile \(name); expected one of this file's profiles or \(builtIn.joined(separator: ", "))"
        case .unknownProfile(let name, let known): "unknown profile \(name); expected one of \(known.joined(separator: ", "))"
        case .expectedBool: "expected true or false"
        case .expectedObject(let found): "expected an object, found \(found)"
        case .unknownMember(let key, let allowed): "unknown member \"\(key)\"; expected \(allowed.joined(separator: ", "))"
        case .expectedString(let found): "expected a string, found \(found)"
        case .expectedStringArray: "expected an array of strings"
        case .expectedWholeNumber: "expected a whole number from 0 to \(Int32.max)"
        case .unknownValue(let text, let allowed): "unknown value \"\(text)\"; expected \(allowed.joined(separator: ", "))"
        case .missingAction: "missing \"action\""
        case .setNeedsValue: "a set rule needs \"value\""
        case .unknownAttributeAction(let name): "unknown attribute action \"\(name)\"; expected copy, omit, regenerate, set"
        case .generatorOnlyWithRegenerate: "\"generator\" goes with regenerate only"
        case .valueOnlyWithSet: "\"value\" goes with set only"
        case .noInputClass(let type, let known): "the input has no class \(type) (known: \(known))"
        case .noInputKey(let type, let key, let known): "\(type) has no key \(key) (known: \(known))"
        case .noInputAnyKey(let key): "no class of the input has a key \(key)"
        case .noInputPathKey(let segment, let path): "no class of the input has a key \(segment) (in the path \(path))"
        case .tooManyNodes(let maxObjects):
            "the copy would create more than maxObjects (\(maxObjects)) nodes; raise maxObjects or copy less"
        case .edgeTooDeep(let edge, let maxDepth):
            "copying \(edge) would go deeper than maxDepth (\(maxDepth)); raise maxDepth or use onDepthExceeded truncate"
        case .keyTooDeep(let owner, let key, let maxDepth): "copying \(owner).\(key) would go deeper than maxDepth (\(maxDepth))"
        case .tooManyObjects(let maxObjects): "the copy would hold more than maxObjects (\(maxObjects)) objects"
        case .duplicateIdentity(let pointer): "two objects are \(pointer); identities must be unique"
        case .unrepresentable(let kind): "a \(kind) cannot be part of a Parse object"
        case .pointerWithoutId(let className): "a Pointer to a \(className) without an objectId"
        }
    }
}
