// The Employee/Department/Manager example of Docs/GraphCopy.md: one org chart, copied with
// the pasteboard and the duplicate profiles of rules.json, side by side.
//
//   swift run sample-graphcopy [path/to/rules.json]
import Foundation
import PFArchive

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

/// R&D: Dana heads it; Ann reports to Dana; Bob and Cy report to Ann.
func makeOrgChart() -> (department: Department, ann: Employee, all: [Employee]) {
    let rnd = Department(name: "R&D")
    let dana = Employee("E1", "Dana", notes: "founder", department: rnd)
    rnd.head = dana
    let ann = Employee("E2", "Ann", notes: "promote in May", department: rnd, manager: dana)
    let bob = Employee("E3", "Bob", department: rnd, manager: ann)
    let cy = Employee("E4", "Cy", department: rnd, manager: ann)
    return (rnd, ann, [dana, ann, bob, cy])
}

func describe(_ e: Employee?, originals: Set<ObjectIdentifier>) -> String {
    guard let e else { return "nil" }
    return originals.contains(ObjectIdentifier(e)) ? "\(e.name) (original)" : "\(e.name) (copy)"
}

let rulesPath = CommandLine.arguments.dropFirst().first ?? "Samples/graphcopy/rules.json"
do {
    let file = try CopyRulesFile.load(Data(contentsOf: URL(fileURLWithPath: rulesPath)))
    let registry = ArchiveClassRegistry([Employee.self, Department.self])
    let chart = makeOrgChart()
    let originals = Set(chart.all.map(ObjectIdentifier.init) + [ObjectIdentifier(chart.department)])
    var rows: [(String, String, String)] = []
    var copies: [String: ObjectCopyResult<Employee>] = [:]
    for profile in ["pasteboard", "duplicate"] {
        copies[profile] = try ObjectCopier.copy(chart.ann, rules: file.rules(profile: profile), registry: registry, seed: 42)
    }
    guard let paste = copies["pasteboard"]?.copy, let dup = copies["duplicate"]?.copy else { exit(1) }
    func row(_ label: String, _ f: (Employee) -> String) { rows.append((label, f(paste), f(dup))) }
    row("copy of Ann: employeeID") { "\"\($0.employeeID)\"" }
    row("notes") { "\"\($0.notes)\"" }
    row("department") { e in e.department.map { originals.contains(ObjectIdentifier($0)) ? "\($0.name) (original)" : "\($0.name) (copy)" } ?? "nil" }
    row("manager (back-pointer)") { describe($0.manager, originals: originals) }
    row("reports") { $0.reports.map { describe($0, originals: originals) }.joined(separator: ", ") }
    row("Bob's employeeID") { "\"\($0.reports.first?.employeeID ?? "-")\"" }
    row("Bob's manager") { ($0.reports.first?.manager === $0) ? "the copy of Ann" : describe($0.reports.first?.manager, originals: originals) }
    print("                          pasteboard                 duplicate")
    for (label, a, b) in rows {
        print(label.padding(toLength: 26, withPad: " ", startingAt: 0) + a.padding(toLength: 27, withPad: " ", startingAt: 0) + b)
    }
    for profile in ["pasteboard", "duplicate"] {
        guard let report = copies[profile]?.report else { continue }
        print("\(profile): copied \(report.copiedObjects), dropped conditionals \(report.droppedConditionalCount)")
    }
    // The same rules shape archives: a pasteboard archive holds Ann's team only; a
    // persistence archive holds the whole department.
    let pasteArchive = try ObjectCopier.archive(chart.ann, rules: file.rules(profile: "pasteboard"))
    let saveArchive = try ObjectCopier.archive(chart.ann, rules: file.rules(profile: "persistence"))
    print("pasteboard archive: \(pasteArchive.data.count) bytes, objects \(pasteArchive.report.copiedObjects)")
    print("persistence archive: \(saveArchive.data.count) bytes, objects \(saveArchive.report.copiedObjects)")
    // Break the cycles so everything is freed.
    for e in chart.all { e.reports = []; e.manager = nil }
    chart.department.employees = []
} catch {
    FileHandle.standardError.write(Data("sample-graphcopy: \(error)\n".utf8))
    exit(1)
}
