/// The classes an unarchiver may instantiate, by archived class name: the heart of secure
/// decoding. Nothing that is not registered is ever created, whatever the archive says.
///
/// Register each ``ArchiveCoding`` type under its ``ArchiveCoding/archiveClassName`` and
/// any other names archives may carry: a Swift `Module.Class` name, the name before a rename.
///
/// ```swift
/// var registry = ArchiveClassRegistry([Employee.self, Department.self])
/// registry.register(Employee.self, as: "OldApp.Employee", "Staff")
/// ```
public struct ArchiveClassRegistry: Sendable {
    // Metatypes are immutable values; the dictionary is only read after construction.
    private var types: [String: any ArchiveCoding.Type] = [:]

    /// Makes a registry of types, each under its own archive class name.
    public init(_ types: [any ArchiveCoding.Type] = []) {
        for type in types { register(type) }
    }

    /// Registers a type under its archive class name and any extra names (aliases).
    /// - Parameters:
    ///   - type: the type to instantiate.
    ///   - aliases: other class names that mean this type, such as `"MyApp.Employee"`.
    public mutating func register(_ type: any ArchiveCoding.Type, as aliases: String...) {
        types[type.archiveClassName] = type
        for alias in aliases { types[alias] = type }
    }

    /// The type registered for a class name, or `nil`.
    public func type(forClassName name: String) -> (any ArchiveCoding.Type)? { types[name] }

    /// The registered class names.
    public var classNames: [String] { types.keys.sorted() }
}
