import Foundation
import PFCore
public struct CBORInfo: Sendable { public var tags: [UInt64: Int] = [:]; public var items = 0; public var hasIndefiniteLengths = false; public var hasSelfDescribeTag = false }
public struct CBORReader: Sendable {
    public struct Options: Sendable { public var limits: PFLimits; public init(limits: PFLimits = .default) { self.limits = limits } }
    public init(options: Options = Options()) {}
    public func read(_ bytes: Data) throws(PFError) -> PFValue { .null }
    public static func info(_ bytes: Data, limits: PFLimits = .default) throws(PFError) -> CBORInfo { CBORInfo() }
    public static func hasMagic(_ bytes: Data) -> Bool { false }
}
public struct CBORWriter: Sendable {
    public struct Options: Sendable { public var canonical: Bool; public init(canonical: Bool = false) { self.canonical = canonical } }
    public init(options: Options = Options()) {}
    public func write(_ value: PFValue) throws(PFError) -> Data { Data() }
}
