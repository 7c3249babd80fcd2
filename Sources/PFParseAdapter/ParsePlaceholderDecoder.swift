import Foundation

/// A decoder that never fails and answers zero values (`0`, `""`, `false`, empty
/// containers, the epoch). In collecting mode it stands in for a property that failed, so the
/// rest of the model still decodes and every failure is reported at once; the model it builds
/// is thrown away.
struct ParsePlaceholderDecoder: Decoder, SingleValueDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>())
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { false }
    func decode(_ type: String.Type) throws -> String { "" }
    func decode(_ type: Double.Type) throws -> Double { 0 }
    func decode(_ type: Float.Type) throws -> Float { 0 }
    func decode(_ type: Int.Type) throws -> Int { 0 }
    func decode(_ type: Int8.Type) throws -> Int8 { 0 }
    func decode(_ type: Int16.Type) throws -> Int16 { 0 }
    func decode(_ type: Int32.Type) throws -> Int32 { 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { 0 }
    func decode(_ type: UInt.Type) throws -> UInt { 0 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Self.zero(T.self) }

    static func zero<T: Decodable>(_ type: T.Type) throws -> T {
        if let d = Date(timeIntervalSince1970: 0) as? T { return d }
        if let d = Data() as? T { return d }
        if let u = URL(string: "about:blank") as? T { return u }
        if let u = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) as? T { return u }
        return try T(from: ParsePlaceholderDecoder())
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try ParsePlaceholderDecoder.zero(T.self) }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
            KeyedDecodingContainer(Keyed<N>())
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Unkeyed() }
        func superDecoder() throws -> any Decoder { ParsePlaceholderDecoder() }
        func superDecoder(forKey key: Key) throws -> any Decoder { ParsePlaceholderDecoder() }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        mutating func decodeNil() throws -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try ParsePlaceholderDecoder.zero(T.self) }
        mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
            KeyedDecodingContainer(Keyed<N>())
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed() }
        mutating func superDecoder() throws -> any Decoder { ParsePlaceholderDecoder() }
    }
}
