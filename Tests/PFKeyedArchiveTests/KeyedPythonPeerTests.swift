import Foundation
import PFCore
import PFKeyedArchive
import PFTestSupport
import Testing

/// Python's decoders read our archives. Missing Python is a failure (run scripts/setup.sh).
@Suite struct KeyedPythonPeerTests {
    /// Prints plistlib's view (UIDs as {"CF$UID": n}, data as hex) and nska's flattened view.
    static let script = #"""
import sys, json, plistlib, nska_deserialize
data = sys.stdin.buffer.read()
def plain(v):
    if isinstance(v, plistlib.UID): return {"CF$UID": v.data}
    if isinstance(v, dict): return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list): return [plain(x) for x in v]
    if isinstance(v, bytes): return {"$bytes_hex": v.hex()}
    return v
def nska(v):
    if isinstance(v, dict): return {k: nska(x) for k, x in v.items()}
    if isinstance(v, list): return [nska(x) for x in v]
    if isinstance(v, bytes): return {"$bytes_hex": v.hex()}
    if hasattr(v, "isoformat"): return {"$date": v.isoformat()}
    return v
print(json.dumps({"plistlib": plain(plistlib.loads(data)), "nska": nska(nska_deserialize.deserialize_plist_from_string(data))}))
"""#

    func peers(_ archive: Data) throws -> (plistlib: PFValue, nska: PFValue) {
        try requirePython()
        let result = try Peers.python(Self.script, input: archive)
        #expect(result.status == 0, "\(result.stderr)")
        let both = try OracleJSON.parse(result.stdout)
        return (both["plistlib"] ?? .null, both["nska"] ?? .null)
    }

    @Test(arguments: [KeyedArchiveContainer.bplist, .xmlplist])
    func plistlibSeesTheEnvelopeAndNSKAFlattensTheGraph(_ container: KeyedArchiveContainer) throws {
        let json: PFValue = [
            "name": "x", "n": 3, "when": .date(Date(timeIntervalSinceReferenceDate: 509_523_358.5)), "bytes": .data(Data([0xAB])),
            "list": [true, 2.5, "s"], "shared": ["$id": 1, "$value": ["k": "v"]], "again": ["$ref": 1],
            "obj": ["$class": "My.Thing", "field": 7, "$$escaped": "e"],
        ]
        let archive = try KeyedArchive.archive(KeyedGraph(json: json), container: container)
        let (plist, nska) = try peers(archive)
        #expect(plist["$archiver"] == "NSKeyedArchiver")
        #expect(plist["$version"] == 100_000)
        #expect(plist["$top"]?["root"]?["CF$UID"] != nil)
        #expect(plist["$objects"]?[0] == "$null")
        // Every class dictionary has $classname and $classes.
        let classes = plist["$objects"]?.arrayValue?.filter { $0["$classname"] != nil } ?? []
        #expect(classes.contains { $0["$classname"] == "My.Thing" && $0["$classes"] == ["My.Thing", "NSObject"] })
        #expect(classes.allSatisfy { $0["$classes"]?.arrayValue?.first == $0["$classname"] })

        let expected: PFValue = [
            "name": "x", "n": 3, "when": ["$date": "2017-02-23T06:15:58.500000"], "bytes": ["$bytes_hex": "ab"],
            "list": [true, 2.5, "s"], "shared": ["k": "v"], "again": ["k": "v"], "obj": ["field": 7, "$escaped": "e"],
        ]
        #expect(canonical(nska) == canonical(expected))
        // Our normaliser predicts nska's view from our own decoding.
        #expect(canonical(NSKANormaliser.normalise(try KeyedArchive.decodeGraph(archive).jsonValue())) == canonical(nska))
    }

    @Test func typedArchivesReadInPython() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: PFNode(name: "root", count: 1, child: PFNode(name: "leaf", count: 2, child: nil)))
        let (plist, nska) = try peers(data)
        #expect(plist["$top"]?["root"] == ["CF$UID": 1])
        #expect(canonical(nska) == canonical(["name": "root", "count": 1, "child": ["name": "leaf", "count": 2]]))
    }
}
