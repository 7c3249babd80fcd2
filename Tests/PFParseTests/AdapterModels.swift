import Foundation
import PFCore
import PFParse
import PFParseAdapter

// MARK: - Models for the adapter tests

struct Address: ParseModel, Equatable {
    var objectId: String?
    var street: String
    var city: String?
    static let parseClassName = "Address"
}

struct Person: ParseModel, Equatable {
    var objectId: String?
    var createdAt: Date?
    var updatedAt: Date?
    var name: String
    var nickname: String?
    var age: Int
    var score: Double
    var born: Date
    var tags: [String]
    var home: Address?
    var friends: [Address]
    var city: String?
    var active: Bool
    var avatar: Data?

    static let parseClassName = "Person"
    static var parseKeyMap: ParseKeyMap { ["name": "full_name", "city": "location.city"] }
}

enum Color: String, Codable, Equatable { case red, green, blue }

struct Widget: ParseModel, Equatable {
    var objectId: String?
    var displayName: String
    var sizeInfo: Size
    var version: String?
    var homepage: URL?
    var serial: UUID?
    var color: Color
    var releasedAt: Date?
    var builtAt: Date?
    var cache: String?
    var priority: Int

    struct Size: Codable, Equatable {
        var width: Int
        var height: Int
    }

    static let parseClassName = "Widget"
    static var parseKeyMap: ParseKeyMap {
        ParseKeyMap([
            "sizeInfo": ["width", "height"],
            "version": .key("app.version"),
            "cache": .excluded,
        ], strategy: .convertToSnakeCase)
    }
    static var parseTransformers: ParseTransformers {
        ParseTransformers()
            .property("color", .valueMap(["R": "red", "G": "green", "B": "blue"], default: "red"))
            .property("releasedAt", .epochSeconds)
            .property("builtAt", .iso8601Date)
    }
    static var parseDefaults: [String: PFValue] { ["priority": 3] }
}

struct Team: ParseModel, Equatable {
    var objectId: String?
    var name: String
    var captain: Address?
    var members: [Address]
    static let parseClassName = "Team"
    static var parseTransformers: ParseTransformers {
        ParseTransformers().property("captain", .pointer).property("members", .pointerArray)
    }
}

struct Post: ParseModel, Equatable {
    var objectId: String?
    var title: String
    var rating: Int
    var author: ParseReference<Address>?
    static let parseClassName = "Post"
    static var parseValidators: [String: [ParsePropertyValidator]] {
        ["title": [.nonEmpty, .maxLength(10)], "rating": [.range(0...5)]]
    }
    func validateParse(_ report: inout ParseValidationReport) {
        if title == title.uppercased(), !title.isEmpty { report.fail("title", "must not be all capitals") }
    }
}

extension ParseReference: Equatable where Model: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case (.pointer(let x), .pointer(let y)): x == y
        case (.object(let x), .object(let y)): x == y
        default: false
        }
    }
}

struct VideoPost: ParseModel, Equatable {
    var objectId: String?
    var kind: String
    var seconds: Int
    static let parseClassName = "Post"
}

struct TextPost: ParseModel, Equatable {
    var objectId: String?
    var kind: String
    var body: String
    static let parseClassName = "Post"
}
