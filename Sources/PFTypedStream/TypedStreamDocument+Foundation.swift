import Foundation
import PFCore

/// A Foundation object recognised by its class and layout, as NSArchiver writes it.
enum FoundationObject {
    case string(String)
    case number(type: TypeEncoding, value: TypedStreamValue)
    case value(type: TypeEncoding, value: TypedStreamValue)
    case data(Data)
    case date(Double)
    /// Elements as `@` values (object indices or `.null`).
    case array([TypedStreamValue], set: Bool)
    case dictionary([(key: TypedStreamValue, value: TypedStreamValue)])
    case null
    case url(base: TypedStreamValue, relative: TypedStreamValue)
    case attributedString(string: TypedStreamValue, runs: [(length: Int, attributes: TypedStreamValue)])
}

extension TypedStreamDocument {
    static let stringClasses: Set<String> = ["NSString", "NSMutableString"]
    static let arrayClasses: Set<String> = ["NSArray", "NSMutableArray"]
    static let setClasses: Set<String> = ["NSSet", "NSMutableSet"]
    static let dictionaryClasses: Set<String> = ["NSDictionary", "NSMutableDictionary"]
    static let dataClasses: Set<String> = ["NSData", "NSMutableData"]
    static let attributedClasses: Set<String> = ["NSAttributedString", "NSMutableAttributedString"]
}

extension TypedStreamObjects {
    private typealias Classes = TypedStreamDocument

    /// Interprets the object at `index` as a Foundation object when its class is one pfarchive
    /// knows and its groups have that class's layout; `nil` otherwise (a generic object).
    func foundationObject(at index: Int) -> FoundationObject? {
        guard let object = objectEntry(index), let cls = classEntry(object.classIndex) else { return nil }
        var groups = GroupCursor(groups: object.groups)
        let result: FoundationObject?
        switch cls.name {
        case let n where Classes.stringClasses.contains(n):
            guard case .bytes(let b)? = groups.single(.bytes), let s = String(validating: b, as: UTF8.self) else { return nil }
            result = .string(s)
        case "NSNumber", "NSValue":
            guard case .cString(let t)? = groups.single(.cString),
                let types = try? TypeEncoding.parseList(t), types.count == 1, let type = types.first,
                let value = groups.single(type)
            else { return nil }
            result = cls.name == "NSNumber" ? .number(type: type, value: value) : .value(type: type, value: value)
        case let n where Classes.dataClasses.contains(n):
            guard case .int(let length)? = groups.single(.int32), length >= 0, case .byteArray(let b)? = groups.single(.byteArray(Int(length))) else {
                return nil
            }
            result = .data(Data(b))
        case "NSDate":
            guard case .double(let d)? = groups.single(.double) else { return nil }
            result = .date(d)
        case "NSNull":
            result = .null
        case let n where Classes.arrayClasses.contains(n) || Classes.setClasses.contains(n):
            let isSet = Classes.setClasses.contains(n)
            let countValue = groups.single(isSet ? .uint32 : .int32)
            let count: Int
            switch countValue {
            case .int(let c)? where c >= 0: count = Int(c)
            case .uint(let c)?: count = Int(clamping: c)
            default: return nil
            }
            var elements: [TypedStreamValue] = []
            for _ in 0..<min(count, object.groups.count) {
                guard let e = groups.single(.object) else { return nil }
                elements.append(e)
            }
            guard elements.count == count else { return nil }
            result = .array(elements, set: isSet)
        case let n where Classes.dictionaryClasses.contains(n):
            guard case .int(let count)? = groups.single(.int32), count >= 0 else { return nil }
            var pairs: [(TypedStreamValue, TypedStreamValue)] = []
            for _ in 0..<min(Int(count), object.groups.count) {
                guard let k = groups.single(.object), let v = groups.single(.object) else { return nil }
                pairs.append((k, v))
            }
            guard pairs.count == Int(count) else { return nil }
            result = .dictionary(pairs.map { (key: $0.0, value: $0.1) })
        case "NSURL":
            guard case .int(let relative)? = groups.single(.char) else { return nil }
            var base = TypedStreamValue.null
            if relative == 1 {
                guard let b = groups.single(.object) else { return nil }
                base = b
            } else if relative != 0 {
                return nil
            }
            guard let string = groups.single(.object) else { return nil }
            result = .url(base: base, relative: string)
        case let n where Classes.attributedClasses.contains(n):
            guard let string = groups.single(.object) else { return nil }
            var dictionaries: [Int: TypedStreamValue] = [:]
            var runs: [(Int, TypedStreamValue)] = []
            while !groups.atEnd {
                guard let pair = groups.next([.int32, .uint32]), pair.count == 2,
                    case .int(let number) = pair[0], case .uint(let length) = pair[1], length <= UInt64(Int32.max)
                else { return nil }
                let key = Int(truncatingIfNeeded: number)
                if dictionaries[key] == nil {
                    guard let dict = groups.single(.object) else { return nil }
                    dictionaries[key] = dict
                }
                runs.append((Int(length), dictionaries[key] ?? .null))
            }
            result = .attributedString(string: string, runs: runs.map { (length: $0.0, attributes: $0.1) })
        default:
            return nil
        }
        // A known class whose groups do not all belong to its layout is a subclass's data or
        // something else: keep it generic so nothing is lost.
        return groups.atEnd ? result : nil
    }
}

/// Walks an object's groups, matching expected types.
struct GroupCursor {
    let groups: [TypedStreamGroup]
    var next = 0

    var atEnd: Bool { next >= groups.count }

    mutating func next(_ types: [TypeEncoding]) -> [TypedStreamValue]? {
        guard next < groups.count else { return nil }
        let group = groups[next]
        guard group.encodings.count == types.count, zip(group.encodings, types).allSatisfy({ ClassicUnarchiver.matches($0, $1) }) else {
            return nil
        }
        next += 1
        return group.values
    }

    /// The next group's one value when it holds exactly one, of `type` (no array of types is
    /// made: this runs for every element of every array and dictionary).
    mutating func single(_ type: TypeEncoding) -> TypedStreamValue? {
        guard next < groups.count, groups[next].encodings.count == 1,
            ClassicUnarchiver.matches(groups[next].encodings[0], type), let value = groups[next].values.first
        else { return nil }
        next += 1
        return value
    }
}
