import Foundation
import PFParse
import PFStoreTestSupport
import PFStores
import PFTestSupport
import Testing

/// pymongo's `bson.json_util` (MongoDB's own Extended JSON implementation for Python) reads
/// what the store writes, and the store reads what it writes in canonical and relaxed mode.
/// A missing peer is a failure: run scripts/setup.sh or set PFARCHIVE_PYTHON.
@Suite struct MongoPeerTests {
    /// `convert SRC DST`: every `<collection>.json` of SRC, parsed by json_util, written to DST
    /// in canonical mode. `write`: one document, canonical then relaxed.
    static let script = #"""
import sys, os, datetime
from bson import json_util, Int64
from bson.binary import Binary
from bson.json_util import CANONICAL_JSON_OPTIONS, RELAXED_JSON_OPTIONS
if sys.argv[1] == "convert":
    src, dst = sys.argv[2], sys.argv[3]
    os.makedirs(dst)
    for name in sorted(os.listdir(src)):
        with open(os.path.join(src, name), encoding="utf-8") as f, open(os.path.join(dst, name), "w", encoding="utf-8") as out:
            for line in f:
                # Raw UTF-8: PFJSON turns escaped surrogate pairs of U+F0000 and above into U+FFFD.
                out.write(json_util.dumps(json_util.loads(line), json_options=CANONICAL_JSON_OPTIONS, ensure_ascii=False) + "\n")
    print("ok")
else:
    doc = {"_id": "w1", "n": 7, "big": Int64(5000000000), "x": 2.0, "neg": -0.0,
           "at": datetime.datetime(2015, 3, 1, 12, 0, 0, 123000), "old": datetime.datetime(1, 1, 1),
           "raw": Binary(b"\x00\x01\xff", 0), "tags": ["a", {"k": datetime.datetime(1969, 12, 31, 23, 59, 59, 999000)}],
           "_p_owner": "_User$u1", "_rperm": ["*"], "_wperm": [],
           "_created_at": datetime.datetime(2020, 2, 29, 0, 0, 0, 1000)}
    print(json_util.dumps(doc, json_options=CANONICAL_JSON_OPTIONS))
    print(json_util.dumps(doc, json_options=RELAXED_JSON_OPTIONS))
"""#

    static func requireBSON() throws {
        let probe = try? Peers.python("import bson.json_util; print('ok')")
        guard let probe, probe.status == 0, probe.stdoutText.contains("ok") else {
            Issue.record("Python with pymongo's bson.json_util is missing (\(Peers.python)): run scripts/setup.sh or set PFARCHIVE_PYTHON")
            throw PeerMissing()
        }
    }

    struct PeerMissing: Error {}

    @Test(arguments: [-1, 1, 2, 3, 4, 5, 6, 7])
    func pymongoReadsWhatWeWriteWithTheSameTypes(seed: Int) throws {
        try Self.requireBSON()
        let scratch = try MongoScratch()
        defer { scratch.cleanup() }
        let generated = StoreGen.store(seed: UInt64(max(0, seed)))
        let source = seed < 0 ? try MongoShapeStoreTests.sampleStore() : generated.memoryStore()
        let expected = seed < 0 ? source : try MongoPropertyTests.expectedAfterMongo(generated)
        try copyAll(source, into: MongoShapeStore(directory: scratch.dump))
        let canonical = scratch.root.appendingPathComponent("canonical.jsonl")
        let result = try Peers.python(Self.script, ["convert", scratch.dump.path, canonical.path])
        try #require(result.status == 0, "\(result.stderr)")
        // Through pymongo and back in canonical mode, every int stays an int, every double a
        // double, every date the same millisecond and every binary the same bytes.
        let back = MongoShapeStore(directory: canonical)
        let diff = try StoreComparison.firstDifference(expected: expected, actual: back, schema: .ignored)
        #expect(diff == nil, "seed \(seed): \(diff ?? "")")
    }

    @Test func weReadPymongosCanonicalAndRelaxedOutput() throws {
        try Self.requireBSON()
        let result = try Peers.python(Self.script, ["write"])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 2)
        #expect(lines[0].contains(#""$numberInt": "7""#))  // canonical really is canonical
        let expected = try ParseObject(
            className: "Doc", objectId: "w1", createdAt: isoDate("2020-02-29T00:00:00.001Z"), acl: ParseACL([
                "*": .init(read: true)
            ]),
            fields: [
                "n": .int(7), "big": .int(5_000_000_000), "x": .double(2), "neg": .double(-0.0),
                "at": .date(isoDate("2015-03-01T12:00:00.123Z")), "old": .date(isoDate("0001-01-01T00:00:00.000Z")),
                "raw": .bytes(Data([0, 1, 0xFF])),
                "tags": .array([.string("a"), .object(["k": .date(isoDate("1969-12-31T23:59:59.999Z"))])]),
                "owner": .pointer(ParsePointer(className: "_User", objectId: "u1")),
            ])
        for line in lines {
            let scratch = try MongoScratch()
            defer { scratch.cleanup() }
            try scratch.write("Doc", [line])
            #expect(try MongoShapeStore(directory: scratch.dump).objects(in: "Doc") == [expected], "\(line)")
        }
    }
}
