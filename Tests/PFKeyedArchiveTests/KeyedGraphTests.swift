import Foundation
import PFCore
import PFKeyedArchive
import Testing

@Suite struct KeyedGraphTests {
    @Test func jsonShapeRoundTripsThroughAnArchive() throws {
        let json: PFValue = [
            "name": "root", "when": .date(Date(timeIntervalSinceReferenceDate: 1.5)), "bytes": .data(Data([1, 2])),
            "list": [1, 2.5, true, nil, "x"], "$$dollar": "escaped",
        ]
        for container in [KeyedArchiveContainer.bplist, .xmlplist] {
            let bytes = try KeyedArchive.archive(KeyedGraph(json: json), container: container)
            let back = try KeyedArchive.decodeGraph(bytes).jsonValue()
            #expect(back == json, "\(container)")
        }
    }
}
