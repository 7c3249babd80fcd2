import Foundation
import PFCore
import PFGraphCopy
import Testing

/// The rules file: strict validation with JSON paths, precedence, conflicts.
@Suite struct RulesFileTests {
    static let types = #""types": {"Employee": {"attributes": ["name", "employeeID", "notes"], "identity": ["employeeID"], "edges": {"department": {"ownership": "refers", "target": "Department"}, "manager": {"ownership": "back", "target": "Employee"}}}, "Department": {"attributes": ["name"], "edges": {"head": {"ownership": "refers", "target": "Employee"}}}}"#

    func load(_ body: String) throws(PFError) -> CopyRulesFile {
        try CopyRulesFile.load(Data("{\(Self.types)\(body.isEmpty ? "" : ", ")\(body)}".utf8))
    }

    func failure(_ body: String) -> PFError? {
        do { _ = try load(body).rules(profile: "p") } catch { return error }
        return nil
    }

    @Test func unknownNamesAreErrorsWithTheirPath() {
        let cases: [(String, String, GraphCopyFailure)] = [
            (#""profiles": {"p": {"edges": {"Manager.boss": "copy"}}}"#, #"profiles.p.edges["Manager.boss"]"#, .selector("Manager.boss", .unknownType("Manager", declared: ["Department", "Employee"]))),
            (#""profiles": {"p": {"edges": {"Employee.boss": "copy"}}}"#, #"profiles.p.edges["Employee.boss"]"#, .selector("Employee.boss", .unknownKey("boss", type: "Employee"))),
            (#""profiles": {"p": {"attributes": {"*.salary": "omit"}}}"#, #"profiles.p.attributes["*.salary"]"#, .selector("*.salary", .noTypeHasKey("salary"))),
            (#""profiles": {"p": {"edges": {"department.boss": "omit"}}}"#, #"profiles.p.edges["department.boss"]"#, .selector("department.boss", .unknownKeyAtEnd("boss"))),
            (#""profiles": {"p": {"edges": {"name.head": "omit"}}}"#, #"profiles.p.edges["name.head"]"#, .selector("name.head", .notAnEdge("name"))),
            (#""profiles": {"p": {"edges": {"Employee.name": "omit"}}}"#, #"profiles.p.edges["Employee.name"]"#, .selector("Employee.name", .isAttribute(type: "Employee", key: "name"))),
            (#""profiles": {"p": {"edges": {"Employee.manager": "clone"}}}"#, #"profiles.p.edges["Employee.manager"]"#, .unknownValue("clone", allowed: ["copy", "share", "omit", "conditional", "reference"])),
            (#""profiles": {"p": {"attributes": {"Employee.name": {"action": "regenerate", "generator": "sha"}}}}"#, #"profiles.p.attributes["Employee.name"].generator"#, .unknownValue("sha", allowed: ["objectId", "uuid", "now"])),
            (#""profiles": {"p": {"maxdepth": 3}}"#, "profiles.p.maxdepth", .unknownMember("maxdepth", allowed: ["attributes", "defaultEdge", "edges", "extends", "maxDepth", "maxObjects", "onDepthExceeded", "ownership", "regenerateIdentities", "valueEdge"])),
            (#""profiles": {"p": {"extends": "deeper"}}"#, "profiles.p.extends", .unknownBaseProfile("deeper", builtIn: ["shallow", "pasteboard", "persistence", "deep", "duplicate"])),
            (#""profiles": {"p": {"extends": "q"}, "q": {"extends": "p"}}"#, "profiles.p", .profileCycle("p")),
            (#""rules": {"edges": {"Employee.manager": "omit"}}, "profiles": {"p": {"edges": {"Employee.manager": "share"}}}"#, #"rules.edges["Employee.manager"]"#, .sharedConflict(selector: "Employee.manager", first: "share", second: "omit", section: "edges", profile: "p")),
            (#""profiles": {"p": {"edges": {"Employee.manager": "omit"}, "attributes": {"Employee.manager": "omit"}}}"#, #"profiles.p.attributes["Employee.manager"]"#, .edgeAndAttributeRule("Employee.manager")),
        ]
        for (body, path, expected) in cases {
            let error = failure(body)
            #expect(error?.path?.description == path, "\(body): \(String(describing: error))")
            #expect(error?.failure(as: GraphCopyFailure.self) == expected, "\(body): \(String(describing: error))")
        }
        // Types themselves are checked too.
        #expect(throws: PFError.self) { try CopyRulesFile.load(Data(#"{"types": {"A": {"edges": {"x": {"target": "B"}}}}}"#.utf8)) }
        #expect(throws: PFError.self) { try CopyRulesFile.load(Data(#"{"types": {"A": {"attributes": ["x"], "identity": ["y"]}}}"#.utf8)) }
        #expect(throws: PFError.self) { try CopyRulesFile.load(Data(#"{"rulesVersion": 2}"#.utf8)) }
    }

    @Test func precedenceIsPathThenTypeKeyThenAnyKeyThenOwnershipThenDefault() throws {
        let file = try load(#""profiles": {"p": {"extends": "pasteboard", "edges": {"department.head": "omit", "Department.head": "copy", "*.head": "share", "*.manager": "copy", "Employee.manager": "omit"}}}"#)
        let rules = try file.rules(profile: "p")
        let department = rules.path(from: CopyRules.rootPath, through: "department")
        #expect(rules.ruleAction(ownerType: "Department", key: "head", path: department) == .omit, "path")
        #expect(rules.ruleAction(ownerType: "Department", key: "head", path: CopyRules.noPath) == .copy, "Type.key")
        #expect(rules.ruleAction(ownerType: "Other", key: "head", path: CopyRules.noPath) == .share, "*.key")
        #expect(rules.ruleAction(ownerType: "Employee", key: "manager", path: CopyRules.rootPath) == .omit, "Type.key over *.key")
        #expect(rules.ruleAction(ownerType: "Employee", key: "department", path: CopyRules.rootPath) == .reference, "pasteboard: refers → reference")
        #expect(rules.ruleAction(ownerType: "Employee", key: "unknown", path: CopyRules.rootPath) == nil)
        #expect(rules.edgeAction(rule: nil, targetIsTyped: true) == .conditional, "pasteboard default")
        #expect(rules.edgeAction(rule: nil, targetIsTyped: false) == .copy, "values belong to their owner")
        // Built-in profiles through a file without profiles, shared rules added.
        let shared = try load(#""rules": {"attributes": {"*.notes": "omit"}}"#)
        let deep = try shared.rules(profile: "deep")
        #expect(deep.attributeAction(ownerType: "Employee", key: "notes", path: 0) == .omit)
        #expect(deep.ruleAction(ownerType: "Employee", key: "manager", path: 0) == .copy)
        let duplicate = try shared.rules(profile: "duplicate")
        #expect(duplicate.attributeAction(ownerType: "Employee", key: "employeeID", path: 0) == .regenerate(.uuid))
        #expect(duplicate.attributeAction(ownerType: "Employee", key: "objectId", path: 0) == .regenerate(.objectId))
        #expect(throws: PFError.self) { try shared.rules(profile: "nope") }
    }

    @Test func conflictingRulesInTheSwiftAPIAreErrors() throws {
        let p = try CopyProfile.deep.edge("Employee.manager", .omit)
        #expect(throws: PFError.self) { try p.edge("Employee.manager", .share) }
        #expect(throws: PFError.self) { try p.attribute("Employee.manager", .omit) }
        #expect(try p.edge("Employee.manager", .omit) == p)
        #expect(throws: PFError.self) { try CopyRules(profile: CopyProfile.deep.edge("nodot", .omit)) }
    }
}
