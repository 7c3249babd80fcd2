import Foundation
import PFGraphCopy
import PFKeyedArchive
import PFTestSupport
import Testing

// The classes of Samples/graphcopy/main.swift (a sample is an executable, so the test keeps
// its own copy of them).
final class Department: ArchiveCoding {
    static let archiveClassName = "Department"
    var name: String
    var head: Employee?
    var employees: [Employee] = []

    init(name: String) { self.name = name }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(name, forKey: "name")
        try coder.encode(head, forKey: "head")
        try coder.encode(employees, forKey: "employees")
    }

    init(from coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        try coder.decodeReference(Employee.self, forKey: "head") { [unowned self] in self.head = $0 }
        try coder.decodeReference([Employee].self, forKey: "employees") { [unowned self] in self.employees = $0 ?? [] }
    }
}

final class Employee: ArchiveCoding {
    static let archiveClassName = "Employee"
    var employeeID: String
    var name: String
    var notes: String
    var department: Department?
    var manager: Employee?
    var reports: [Employee] = []

    init(_ id: String, _ name: String, notes: String = "", department: Department?, manager: Employee? = nil) {
        employeeID = id
        self.name = name
        self.notes = notes
        self.department = department
        self.manager = manager
        manager?.reports.append(self)
        department?.employees.append(self)
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(employeeID, forKey: "employeeID")
        try coder.encode(name, forKey: "name")
        try coder.encode(notes, forKey: "notes")
        try coder.encode(department, forKey: "department")
        try coder.encode(manager, forKey: "manager")
        try coder.encode(reports, forKey: "reports")
    }

    init(from coder: KeyedUnarchiver) throws {
        employeeID = try coder.decodeIfPresent(String.self, forKey: "employeeID") ?? ""
        name = try coder.decode(String.self, forKey: "name")
        notes = try coder.decodeIfPresent(String.self, forKey: "notes") ?? ""
        try coder.decodeReference(Department.self, forKey: "department") { [unowned self] in self.department = $0 }
        try coder.decodeReference(Employee.self, forKey: "manager") { [unowned self] in self.manager = $0 }
        try coder.decodeReference([Employee].self, forKey: "reports") { [unowned self] in self.reports = $0 ?? [] }
    }
}

/// The worked example of Samples/graphcopy, with its rules.json: Ann's team copied with the
/// pasteboard and the duplicate profiles.
@Suite struct EmployeeExampleTests {
    static let rulesURL = Fixtures.repoRoot.appendingPathComponent("Samples/graphcopy/rules.json")
    static let registry = ArchiveClassRegistry([Employee.self, Department.self])

    struct Chart {
        var rnd: Department
        var dana, ann, bob, cy: Employee
        var all: [Employee] { [dana, ann, bob, cy] }
        func unlink() {
            for e in all { e.reports = []; e.manager = nil }
            rnd.employees = []
        }
    }

    func chart() -> Chart {
        let rnd = Department(name: "R&D")
        let dana = Employee("E1", "Dana", notes: "founder", department: rnd)
        rnd.head = dana
        let ann = Employee("E2", "Ann", notes: "promote in May", department: rnd, manager: dana)
        return Chart(rnd: rnd, dana: dana, ann: ann, bob: Employee("E3", "Bob", department: rnd, manager: ann), cy: Employee("E4", "Cy", department: rnd, manager: ann))
    }

    func unlink(_ e: Employee) {
        for r in e.reports { r.manager = nil }
        e.reports = []
    }

    @Test func pasteboardCopiesTheTeamWithoutDraggingTheGraph() throws {
        let c = chart()
        defer { c.unlink() }
        let file = try CopyRulesFile.load(Data(contentsOf: Self.rulesURL))
        let result = try ObjectCopier.copy(c.ann, rules: file.rules(profile: "pasteboard"), registry: Self.registry)
        let ann = result.copy
        defer { unlink(ann) }
        #expect(ann !== c.ann && ann.name == "Ann")
        #expect(ann.employeeID == "" && ann.notes == "", "set and omit rules")
        #expect(ann.department === c.rnd, "refers → reference: a copy keeps the original")
        #expect(ann.manager == nil, "back-pointer to Dana, who is not copied")
        #expect(ann.reports.map(\.name) == ["Bob", "Cy"] && ann.reports.allSatisfy { $0 !== c.bob && $0 !== c.cy })
        #expect(ann.reports.allSatisfy { $0.manager === ann }, "back-pointers to a copied manager point at the copy")
        #expect(result.report.copiedObjects == ["Employee": 3])
        #expect(result.report.droppedConditionalCount == 1)
    }

    @Test func duplicateRegeneratesIdentitiesAndSharesTheDepartment() throws {
        let c = chart()
        defer { c.unlink() }
        let file = try CopyRulesFile.load(Data(contentsOf: Self.rulesURL))
        let result = try ObjectCopier.copy(c.ann, rules: file.rules(profile: "duplicate"), registry: Self.registry, seed: 42)
        let ann = result.copy
        defer { unlink(ann) }
        let ids = [ann.employeeID] + ann.reports.map(\.employeeID)
        #expect(Set(ids).count == 3 && ids.allSatisfy { UUID(uuidString: $0) != nil }, "\(ids)")
        #expect(ann.notes == "promote in May")
        #expect(ann.department === c.rnd && ann.manager == nil)
        #expect(ann.reports.allSatisfy { $0.manager === ann && $0.department === c.rnd })
        #expect(result.map[ObjectIdentifier(c.bob)] === ann.reports.first)
        // The originals are untouched.
        #expect(c.ann.employeeID == "E2" && c.ann.reports.first === c.bob && c.bob.manager === c.ann)
    }

    @Test func pasteboardAndPersistenceArchivesOfOneGraph() throws {
        let c = chart()
        defer { c.unlink() }
        let file = try CopyRulesFile.load(Data(contentsOf: Self.rulesURL))
        let paste = try ObjectCopier.archive(c.ann, rules: file.rules(profile: "pasteboard"))
        let save = try ObjectCopier.archive(c.ann, rules: file.rules(profile: "persistence"))
        #expect(paste.report.copiedObjects == ["Employee": 3])
        #expect(save.report.copiedObjects == ["Employee": 4, "Department": 1])
        // A persistence archive holds the whole department (its head written as a reference,
        // as the shared rule says); a pasteboard one holds the department as a reference.
        let whole = try KeyedArchive.decodeGraph(save.data).jsonValue()
        #expect(try whole.value(atPath: "department.employees[3].name") == "Cy")
        #expect(try whole.value(atPath: "department.head") == ["__type": "Pointer", "className": "Employee"])
        let graph = try KeyedArchive.decodeGraph(paste.data).jsonValue()
        #expect(try graph.value(atPath: "department") == ["__type": "Pointer", "className": "Department"])
        #expect(try graph.value(atPath: "manager") == .null)
    }
}
