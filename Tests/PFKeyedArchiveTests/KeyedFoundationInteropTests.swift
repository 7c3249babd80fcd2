import Foundation
import PFCore
import PFKeyedArchive
import Testing

/// An NSSecureCoding class as an app would write it; Foundation archives it as
/// "PFKeyedArchiveTests.FoundationNode". Its init(coder:) checks containsValue first, since
/// Foundation on Linux traps on a missing key.
final class FoundationNode: NSObject, NSSecureCoding {
    static let supportsSecureCoding = true
    let name: String
    let count: Int
    let child: FoundationNode?

    init(name: String, count: Int, child: FoundationNode?) {
        self.name = name
        self.count = count
        self.child = child
    }

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(count, forKey: "count")
        if let child { coder.encode(child, forKey: "child") }
    }

    init?(coder: NSCoder) {
        guard coder.containsValue(forKey: "name"), let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
        count = coder.decodeInteger(forKey: "count")
        child = coder.containsValue(forKey: "child") ? coder.decodeObject(of: FoundationNode.self, forKey: "child") : nil
    }
}

/// pfarchive's counterpart, registered under Foundation's name.
final class PFNode: ArchiveCoding {
    static let archiveClassName = "PFKeyedArchiveTests.FoundationNode"
    var name: String
    var count: Int
    var child: PFNode?

    init(name: String, count: Int, child: PFNode?) {
        self.name = name
        self.count = count
        self.child = child
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(name, forKey: "name")
        coder.encode(count, forKey: "count")
        if let child { try coder.encode(child, forKey: "child") }
    }

    init(from coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        count = try coder.decode(Int.self, forKey: "count")
        child = try coder.decodeIfPresent(PFNode.self, forKey: "child")
    }
}

@Suite struct KeyedFoundationInteropTests {
    static let date = Date(timeIntervalSinceReferenceDate: 700_000_000.25)

    func foundationGraph() -> NSDictionary {
        let shared = NSArray(array: ["x" as NSString, 2 as NSNumber])
        return NSDictionary(dictionary: [
            "string": "héllo ☃" as NSString, "int": -7 as NSNumber, "double": 2.5 as NSNumber, "bool": true as NSNumber,
            "date": Self.date as NSDate, "data": NSData(bytes: [1, 2, 3] as [UInt8], length: 3), "null": NSNull(),
            // Not 1 in the set: CF's bplist writer uniques equal numbers, and NSNumber(true) == 1,
            // so a 1 beside a true is archived as true.
            "set": NSSet(array: [7 as NSNumber]), "a": shared, "b": shared,
            "nested": NSDictionary(dictionary: ["k": NSArray(array: [NSNull(), "v" as NSString])]),
        ])
    }

    @Test func foundationArchivesDecodeAsGraphs() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: foundationGraph(), requiringSecureCoding: true)
        let graph = try KeyedArchive.decodeGraph(data)
        let json = try graph.jsonValue()
        #expect(json["string"] == "héllo ☃")
        #expect(json["int"] == -7)
        #expect(json["double"] == 2.5)
        #expect(json["bool"] == true)
        #expect(json["date"] == .date(Self.date))
        #expect(json["data"] == .data(Data([1, 2, 3])))
        #expect(json["null"] == .null)
        #expect(json["set"] == [7])
        #expect(json["nested"]?["k"] == [nil, "v"])
        // The shared array is one node: $id where first met, $ref at the other key.
        let a = json["a"], b = json["b"]
        let (full, ref) = a?["$value"] != nil ? (a, b) : (b, a)
        #expect(full?["$value"] == ["x", 2])
        #expect(ref?["$ref"] == full?["$id"])
    }

    /// NSKeyedArchiver's own top-level `encode(Bool/Int/Double, forKey:)` writes the value in
    /// `$top` itself, not as a reference: CloudKit's record system fields (a Core Data store's
    /// `ZSERVERRECORDDATA`) are such archives. They decode, beside the referenced entries,
    /// and keep their `$top` through a plist round trip.
    @Test func topLevelValuesWrittenInPlaceDecode() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(true, forKey: "KnownToServer")
        archiver.encode(1, forKey: "Permission")
        archiver.encode(0.5, forKey: "Ratio")
        archiver.encode("Folder" as NSString, forKey: "RecordType")
        archiver.finishEncoding()
        let data = archiver.encodedData
        let table = try KeyedArchive.readTable(data).table
        #expect(table.topEntries["KnownToServer"] == .bool(true), "Foundation wrote it in place")
        #expect(table.top.keys.elements == ["RecordType"])
        let json = try KeyedArchive.decodeGraph(data).jsonValue()
        // Several $top entries are written under "$top", in the archive's order.
        let top = try #require(json["$top"]?.dictionaryValue)
        #expect(Array(top.keys) == Array(table.topEntries.keys))
        #expect(Dictionary(uniqueKeysWithValues: top.map { ($0.key, $0.value) })
            == ["KnownToServer": true, "Permission": 1, "Ratio": 0.5, "RecordType": "Folder"])
        #expect(try KeyedObjectTable(plist: table.plist) == table)
        // Changing the references keeps the values written in place.
        var changed = table
        changed.top["RecordType"] = table.top["RecordType"]
        #expect(changed.topEntries == table.topEntries)
        changed.top = [:]
        #expect(changed.topEntries.count == table.topEntries.count - 1 && changed.topEntries["Permission"] == .int(1))
        // A container in place is no archiver's: still refused, naming the entry.
        var broken = table
        broken.topEntries["Permission"] = [1, 2]
        #expect(throws: PFError.self) { try KeyedObjectTable(plist: broken.plist) }
    }

    @Test func foundationArchivesDecodeWithTheTypedAPI() throws {
        let leaf = FoundationNode(name: "leaf", count: 2, child: nil)
        let root = FoundationNode(name: "root", count: 1, child: leaf)
        let data = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: true)
        let table = try KeyedArchive.readTable(data).table
        // Foundation's key order in the class dictionary varies from run to run: compare members.
        #expect(table.objects.contains { $0["$classname"] == "PFKeyedArchiveTests.FoundationNode" && $0["$classes"] == ["PFKeyedArchiveTests.FoundationNode", "NSObject"] })
        let back = try KeyedUnarchiver.unarchivedObject(ofType: PFNode.self, from: data, registry: ArchiveClassRegistry([PFNode.self]))
        #expect(back.name == "root" && back.count == 1 && back.child?.name == "leaf" && back.child?.count == 2 && back.child?.child == nil)
        // Also as plain Foundation values.
        let dict = try NSKeyedArchiver.archivedData(withRootObject: foundationGraph(), requiringSecureCoding: true)
        let strings = try KeyedUnarchiver.unarchivedObject(ofType: [String: PFValue].self, from: dict)
        #expect(strings["date"] == .date(Self.date) && strings["a"] == ["x", 2])
    }

    @Test(arguments: [KeyedArchiveContainer.bplist, .xmlplist])
    func ourGraphArchivesDecodeWithFoundation(_ container: KeyedArchiveContainer) throws {
        let json: PFValue = [
            "string": "héllo", "int": 42, "double": 0.5, "bool": false, "date": .date(Self.date), "data": .data(Data([9])),
            "list": [1, "two", nil, ["deep": true]],
        ]
        let data = try KeyedArchive.archive(KeyedGraph(json: json), container: container)
        let object = try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSNull.self], from: data)
        let dict = try #require(object as? NSDictionary)
        #expect(dict["string"] as? String == "héllo")
        #expect((dict["int"] as? NSNumber)?.intValue == 42)
        #expect((dict["double"] as? NSNumber)?.doubleValue == 0.5)
        #expect((dict["bool"] as? NSNumber)?.boolValue == false)
        #expect((dict["date"] as? Date) == Self.date)
        #expect((dict["data"] as? Data) == Data([9]))
        let list = try #require(dict["list"] as? NSArray)
        #expect(list.count == 4 && list[2] is NSNull && (list[1] as? String) == "two")
        #expect(((list[3] as? NSDictionary)?["deep"] as? NSNumber)?.boolValue == true)
    }

    @Test func ourTypedArchivesDecodeWithFoundation() throws {
        let root = PFNode(name: "root", count: 1, child: PFNode(name: "leaf", count: 2, child: nil))
        let data = try KeyedArchiver.archivedData(withRootObject: root)
        let object = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [FoundationNode.self, NSString.self], from: data)
        let node = try #require(object as? FoundationNode)
        #expect(node.name == "root" && node.count == 1 && node.child?.name == "leaf" && node.child?.count == 2)

        // Foundation values written by the typed API.
        let values: [String: [Double]] = ["a": [1, 2.5]]
        let valueData = try KeyedArchiver.archivedData(withRootObject: values)
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self], from: valueData)
        #expect((decoded as? [String: [Double]]) == values)
        let uuid = UUID()
        let uuidData = try KeyedArchiver.archivedData(withRootObject: uuid)
        #expect(try (NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSUUID.self], from: uuidData) as? NSUUID) as UUID? == uuid)
        let url = URL(string: "https://example.com/a?b=c")!
        let urlData = try KeyedArchiver.archivedData(withRootObject: url)
        #expect(try (NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSURL.self], from: urlData) as? NSURL)?.absoluteString == url.absoluteString)
    }
}
