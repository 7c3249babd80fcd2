import Foundation
import PFKeyedArchive

// An Employee/Department graph with sharing and a cycle, archived with KeyedArchiver and
// decoded with KeyedUnarchiver. Also compiled into PFKeyedArchiveTests (through a symlink),
// so the sample is tested exactly as shipped.

final class Department: ArchiveCoding {
    static let archiveClassName = "Sample.Department"
    var name: String
    var head: Employee?
    var staff: [Employee] = []

    init(name: String) { self.name = name }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(name, forKey: "name")
        try coder.encode(head, forKey: "head")
        try coder.encode(staff, forKey: "staff")
    }

    init(from coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        // head and staff point back at employees whose `department` points here: a cycle,
        // so they are assigned in phase two, once every object exists.
        try coder.decodeReference(Employee.self, forKey: "head") { [unowned self] in self.head = $0 }
        try coder.decodeReference([Employee].self, forKey: "staff") { [unowned self] in self.staff = $0 ?? [] }
    }
}

final class Employee: ArchiveCoding {
    static let archiveClassName = "Sample.Employee"
    var name: String
    var salary: Int
    var department: Department?
    var manager: Employee?

    init(name: String, salary: Int) {
        self.name = name
        self.salary = salary
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(name, forKey: "name")
        coder.encode(salary, forKey: "salary")
        try coder.encode(department, forKey: "department")
        try coder.encode(manager, forKey: "manager")
    }

    init(from coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        salary = try coder.decode(Int.self, forKey: "salary")
        try coder.decodeReference(Department.self, forKey: "department") { [unowned self] in self.department = $0 }
        try coder.decodeReference(Employee.self, forKey: "manager") { [unowned self] in self.manager = $0 }
    }
}

enum KeyedSample {
    /// Builds the graph, round-trips it, and returns what the sample prints.
    static func run() throws -> String {
        var out: [String] = []
        let research = Department(name: "Research")
        let ada = Employee(name: "Ada", salary: 120)
        let alan = Employee(name: "Alan", salary: 100)
        for e in [ada, alan] { e.department = research }  // shared: one department
        alan.manager = ada
        research.head = ada                                 // cycle: ada → research → ada
        research.staff = [ada, alan]
        defer { research.staff = []; research.head = nil }  // break the cycle for ARC

        let data = try KeyedArchiver.archivedData(withRootObject: research)
        out.append("archive: \(data.count) bytes")

        let registry = ArchiveClassRegistry([Department.self, Employee.self])
        let back = try KeyedUnarchiver.unarchivedObject(ofType: Department.self, from: data, registry: registry)
        defer { back.staff.forEach { $0.department = nil; $0.manager = nil }; back.head = nil; back.staff = [] }
        let (a, b) = (back.staff[0], back.staff[1])
        out.append("head is staff[0]: \(back.head === a)")
        out.append("staff share one department: \(a.department === b.department)")
        out.append("cycle closed: \(a.department === back)")
        out.append("Alan's manager is Ada: \(b.manager === a)")

        let json = try KeyedArchive.decodeGraph(data).jsonValue()
        out.append("JSON shape: \(json["$class"]?.stringValue ?? "?") with $id \(json["$id"]?.int64Value ?? 0)")
        return out.joined(separator: "\n")
    }
}
