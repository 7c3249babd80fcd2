import Foundation
import PFTypedStream
import Testing

@testable import PFDiff

/// A typedstream object with a name, a weight and two object references, written by
/// ``ClassicArchiver`` so that sharing and cycles are real typedstream back references.
final class Link: ClassicArchiveCoding {
    static let classicClassName = "Link"
    static let classicVersion = 1
    var name: String
    var weight: Int32
    var left: Link?
    var right: Link?

    init(_ name: String, _ weight: Int32 = 1, left: Link? = nil, right: Link? = nil) {
        self.name = name
        self.weight = weight
        self.left = left
        self.right = right
    }

    func encode(with coder: ClassicArchiver) throws {
        try coder.encode(name)
        coder.encode(weight)
        try coder.encode(left)
        try coder.encode(right)
    }

    init(from coder: ClassicUnarchiver) throws {
        name = try coder.decode(String.self) ?? ""
        weight = try coder.decode(Int32.self)
        try coder.decodeReference(Link.self) { [unowned self] in self.left = $0 }
        try coder.decodeReference(Link.self) { [unowned self] in self.right = $0 }
    }
}

/// Typedstreams compared as object graphs: sharing and cycles written by the classic archiver.
@Suite struct TypedStreamGraphDiffTests {
    static func lines(_ a: Link, _ b: Link) throws -> [String] {
        let x = try DiffInput.read(ClassicArchiver.archivedData(withRootObject: a))
        let y = try DiffInput.read(ClassicArchiver.archivedData(withRootObject: b))
        #expect(x.isGraph && y.isGraph)
        #expect(x.format == .typedstream)
        var options = DiffOptions()
        options.graph = true
        return ValueDiff.compare(x.value, y.value, options: options).differences.map(\.description)
    }

    @Test func sameGraphIsEqual() throws {
        let shared = Link("leaf")
        let again = Link("leaf")
        #expect(try Self.lines(Link("root", left: shared, right: shared), Link("root", left: again, right: again)).isEmpty)
    }

    @Test func sharingVersusCopiesIsReported() throws {
        let shared = Link("leaf")
        let a = Link("root", left: shared, right: shared)
        let b = Link("root", left: Link("leaf"), right: Link("leaf"))
        let found = try Self.lines(a, b)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("~ ") == true)
        #expect(found.first?.contains("shared with") == true && found.first?.contains("a separate copy in B") == true)
    }

    @Test func cyclesAreReportedAsCycles() throws {
        let ring = Link("a")
        ring.left = Link("b", left: ring)
        let loop = Link("a")
        let b = Link("b")
        b.left = b
        loop.left = b
        let found = try Self.lines(ring, loop)
        #expect(found.count == 1)
        #expect(found.first?.contains("a cycle back to (root) in A") == true, "\(found)")
    }

    @Test func changedScalarInASharedObjectIsOneDifference() throws {
        let x = Link("leaf", 1)
        let y = Link("leaf", 2)
        let found = try Self.lines(Link("root", left: x, right: x), Link("root", left: y, right: y))
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.contains("1 → 2") == true, "\(found)")
    }
}
