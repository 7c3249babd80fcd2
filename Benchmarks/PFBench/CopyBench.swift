import Foundation
import OrderedCollections
import PFArchive

/// Graph copy with the `deep` profile: an org-chart-shaped graph (employees sharing 1 department
/// per 100, each with a manager back-pointer and a reports list: cycles everywhere), as a
/// generic graph (GraphCopier) and as Swift objects (ObjectCopier, through the archiver).
///
/// For peak memory run one size at a time under /usr/bin/time -v:
///   PFBENCH_RUNS=1 /usr/bin/time -v .build-release/release/pfarchive-bench --group copy --filter 'graph deep 100000'
enum CopyBench {
    /// `count` nodes in all: departments, employees, and one reports array per employee.
    static func graph(_ count: Int) -> KeyedGraph {
        let employees = count * 100 / 201
        let departments = max(1, employees / 100)
        var nodes: [KeyedGraph.Node] = []
        nodes.reserveCapacity(count)
        for d in 0..<departments {
            nodes.append(.object(.init(archivedClass: ArchivedClass(name: "Department"), fields: ["name": .string("dept \(d)")])))
        }
        let first = nodes.count
        for e in 0..<employees {
            let manager: KeyedGraph.Value = e == 0 ? .null : .node(first + (e - 1) / 4)
            nodes.append(.object(.init(archivedClass: ArchivedClass(name: "Employee"), fields: [
                "employeeID": .string("E\(e)"), "name": .string("employee \(e)"), "salary": .int(Int64(e * 10)),
                "department": .node(e % departments), "manager": manager, "reports": .null,
            ])))
        }
        // Reports arrays: the inverse of manager.
        for e in 0..<employees {
            let reports = (1...4).map { 4 * e + $0 }.filter { $0 < employees }.map { KeyedGraph.Value.node(first + $0) }
            nodes.append(.array(className: nil, items: reports))
            if case .object(var o) = nodes[first + e] {
                o.fields["reports"] = .node(nodes.count - 1)
                nodes[first + e] = .object(o)
            }
        }
        return KeyedGraph(nodes: nodes, top: ["root": .node(first)])
    }

    final class Person: ArchiveCoding {
        static let archiveClassName = "Employee"
        var employeeID: String
        var salary: Int
        var manager: Person?
        var reports: [Person] = []

        init(_ id: String, salary: Int) {
            employeeID = id
            self.salary = salary
        }

        func encode(with coder: KeyedArchiver) throws {
            try coder.encode(employeeID, forKey: "employeeID")
            coder.encode(salary, forKey: "salary")
            try coder.encode(manager, forKey: "manager")
            try coder.encode(reports, forKey: "reports")
        }

        init(from coder: KeyedUnarchiver) throws {
            employeeID = try coder.decode(String.self, forKey: "employeeID")
            salary = try coder.decode(Int.self, forKey: "salary")
            try coder.decodeReference(Person.self, forKey: "manager") { [unowned self] in self.manager = $0 }
            try coder.decodeReference([Person].self, forKey: "reports") { [unowned self] in self.reports = $0 ?? [] }
        }
    }

    static func people(_ count: Int) -> [Person] {
        let people = (0..<count).map { Person("E\($0)", salary: $0) }
        for (i, p) in people.enumerated() where i > 0 {
            p.manager = people[(i - 1) / 4]
            people[(i - 1) / 4].reports.append(p)
        }
        return people
    }

    static func run(_ bench: inout Bench) {
        // Inputs are built only for the cases that run, so a filtered run's peak memory is
        // that case's alone.
        func wanted(_ name: String) -> Bool { bench.filter.map { "copy/\(name)".contains($0) } ?? true }
        guard let copier = try? GraphCopier(profile: .deep) else { return }
        for count in [10_000, 100_000] where wanted("graph deep \(count) nodes") {
            let g = graph(count)
            bench.measure("graph deep \(count) nodes", group: "copy", bytes: 0, units: count, unitName: "obj") {
                _ = try? copier.copy(g)
            }
        }
        guard let rules = try? CopyRules(profile: .deep) else { return }
        let registry = ArchiveClassRegistry([Person.self])
        for count in [10_000, 100_000] where wanted("objects deep \(count) objects") {
            let all = people(count)
            bench.measure("objects deep \(count) objects", group: "copy", bytes: 0, units: count, unitName: "obj") {
                if let result = try? ObjectCopier.copy(all[0], rules: rules, registry: registry) {
                    // Break the copy's cycles so it is freed.
                    for case let p as Person in result.map.values { p.manager = nil; p.reports = [] }
                }
            }
            for p in all { p.manager = nil; p.reports = [] }
        }
    }
}
