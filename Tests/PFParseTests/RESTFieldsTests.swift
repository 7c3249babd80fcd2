import Foundation
import OrderedCollections
import PFCore
import PFJSON
@testable import PFParse
import PFTestSupport
import PropertyBased
import Testing

/// `ParseObject.reading(className:objectId:restFields:)` (what the SQLite source makes each row's
/// object with) gives exactly what `ParseObject(rest:className:checkingNames: false)` gives on
/// `{"objectId": id, …fields}`: equal objects written in the same key order, or equal errors
/// (code, message, key path).
@Suite struct RESTFieldsTests {
    typealias Outcome = NodeRESTTests.Outcome

    static func expectSameOutcome(
        className: String, objectId: String, fields: OrderedDictionary<String, PFValue>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var rest = OrderedDictionary<String, PFValue>()
        rest["objectId"] = .string(objectId)
        for (key, value) in fields { rest[key] = value }
        let viaREST = Outcome { () throws(PFError) in try ParseObject(rest: .dictionary(rest), className: className, checkingNames: false) }
        let viaFields = Outcome { () throws(PFError) in try ParseObject.reading(className: className, objectId: objectId, restFields: fields) }
        #expect(viaFields == viaREST, "\(fields)", sourceLocation: sourceLocation)
        if case .error(let a) = viaREST, case .error(let b) = viaFields {
            #expect(a.path == b.path, sourceLocation: sourceLocation)
        }
    }

    /// Typed values a decoded payload holds besides the REST shapes: dates (rounded to the
    /// millisecond), data, UIDs (an error), integers beyond 64 bits (an error).
    static func typed(_ rng: inout any SeededRandomNumberGenerator) -> PFValue {
        NodeRESTTests.pick([
            .date(Date(timeIntervalSince1970: 1_300_000_000.123456)), .data(Data([1, 2, 3])), .data(Data()), .uid(3),
            .uint(UInt64.max), ["when": .date(Date(timeIntervalSince1970: 1.0005))], [.data(Data([9])), .null],
        ], &rng)
    }

    static let rows = Generator<(OrderedDictionary<String, PFValue>, String), Shrink.None<(OrderedDictionary<String, PFValue>, String)>>(run: { rng in
        guard case .dictionary(var fields) = NodeRESTTests.row(&rng) else { return ([:], "T") }
        // Most rows as a reader has them (no key the REST object reads specially), some with one.
        if Int.random(in: 0..<3, using: &rng) > 0 {
            for key in fields.keys where ParseObject.RESTKey(key) != nil { fields.removeValue(forKey: key) }
        }
        for _ in 0..<Int.random(in: 0...2, using: &rng) { fields["t\(fields.count)"] = typed(&rng) }
        return (fields, NodeRESTTests.pick(["GameScore", "_User", "bad name", "item"], &rng))
    })

    @Test func randomFieldsGiveTheObjectOrErrorOfTheRESTDictionary() async {
        await propertyCheck(count: 1500, input: Self.rows) { row in
            Self.expectSameOutcome(className: row.1, objectId: "id1", fields: row.0)
        }
    }

    /// Fixed cases: each path the initializer takes.
    @Test func specialKeysBadClassNamesAndBadValues() {
        let date = PFValue.date(Date(timeIntervalSince1970: 1_600_000_000.98765))
        let payload: PFValue = ["id": 1, "tags": ["a", "b"], "when": date, "meta": ["n": 2, "s": "x"]]
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["id": 7, "name": "row 7", "payload": payload])
        Self.expectSameOutcome(className: "item", objectId: "7", fields: [:])
        // A field the REST object reads specially: ignored (`__type`), or read as what it names.
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["a": 1, "__type": "x", "b": 2])
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["objectId": "other", "a": 1])
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["createdAt": "2015-05-19T00:53:50.112Z"])
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["ACL": 5])
        Self.expectSameOutcome(className: "bad name", objectId: "7", fields: ["a": 1])
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["a": ["k": .uid(1)]])
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["a": 1, "b": [1, .uint(UInt64.max)]])
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["p": ["__type": "Pointer", "className": "A"]])
        Self.expectSameOutcome(className: "item", objectId: "7", fields: ["a.b": ["$x": 1]])
        // The error names the key path and the object.
        do {
            _ = try ParseObject.reading(className: "item", objectId: "7", restFields: ["a": ["k": [.uid(1)]]])
            Issue.record("a UID is not a Parse value")
        } catch {
            #expect(error.path?.description == "a.k[0]")
            #expect(error.message.contains("item 7"), "\(error.message)")
        }
    }
}
