import Foundation
import PFCore
public struct JSONReader: Sendable {
    public enum Mode: Sendable { case strict, lenient }
    public struct Options: Sendable { public var mode: Mode; public var typedValues: Bool; public var limits: PFLimits
        public init(mode: Mode = .strict, typedValues: Bool = true, limits: PFLimits = .default) { self.mode = mode; self.typedValues = typedValues; self.limits = limits } }
    public var options: Options
    public init(options: Options = Options()) { self.options = options }
    public func read(_ bytes: Data) throws(PFError) -> PFValue { .null }
}
public struct JSONWriter: Sendable {
    public struct Options: Sendable { public var pretty: Bool; public var typedValues: Bool
        public init(pretty: Bool = false, typedValues: Bool = true) { self.pretty = pretty; self.typedValues = typedValues } }
    public init(options: Options = Options()) {}
    public func write(_ value: PFValue) throws(PFError) -> Data { Data() }
}
