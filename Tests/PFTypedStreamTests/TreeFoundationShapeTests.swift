import Foundation
import PFCore
import PFTypedStream
import Testing

/// The tree shapes `TypedStream.decodeValue` gives Foundation objects that are neither
/// collections nor scalars are written back as those objects, not as dictionaries with a
/// `$class` key (which pfarchive reads back as the same tree, and every other reader as an
/// NSDictionary).
@Suite struct TreeFoundationShapeTests {
    @Test func nsURLTreesAreWrittenAsNSURLs() throws {
        let base: PFValue = ["$class": "NSURL", "string": "https://example.com/a/"]
        let relative: PFValue = ["$class": "NSURL", "base": base, "string": "b?c=1"]
        for (tree, expected) in [(base, "https://example.com/a/"), (relative, "https://example.com/a/b?c=1")] {
            let data = try TypedStream.encodeValue(tree)
            let url = try ClassicUnarchiver.unarchivedObject(ofType: URL.self, from: data)
            #expect(url.absoluteString == expected)
            #expect(try TypedStream.decodeValue(data) == tree)
        }
    }

    @Test func nsValueTreesAreWrittenAsNSValues() throws {
        let tree: PFValue = ["$class": "NSValue", "type": "{CGSize=dd}", "value": [826.0, 615.0]]
        let data = try TypedStream.encodeValue(tree)
        let value = try ClassicUnarchiver.unarchivedObject(ofType: ClassicValue.self, from: data)
        #expect(value.type.description == "{CGSize=dd}")
        #expect(try TypedStream.decodeValue(data) == tree)
        // A dictionary that only looks like one (another key) stays a dictionary.
        let other: PFValue = ["$class": "NSValue", "type": "i", "value": 1, "note": "mine"]
        #expect(try TypedStream.decodeValue(TypedStream.encodeValue(other)) == other)
    }

    @Test func classValuesKeepTheirChain() throws {
        let chain: PFValue = ["$classRef": "GView2D", "$version": 2, "$classes": ["GView2D", "GView", "NSObject"], "$versions": [2, 1, 0]]
        let tree: PFValue = [
            "$class": "Holder", "$version": 0,
            "$values": [["types": "#", "values": [chain]], ["types": "#", "values": [.null]]],
        ]
        let data = try TypedStream.encodeValue(tree)
        #expect(try TypedStream.decodeValue(data) == tree)
        let document = try TypedStream.readDocument(data)
        #expect(document.entries.contains { entry in
            if case .class(let c) = entry { return c.name == "GView" && c.version == 1 }
            return false
        })
    }
}
