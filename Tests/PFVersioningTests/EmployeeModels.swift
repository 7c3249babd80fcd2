import Foundation
import PFKeyedArchive
import PFTypedStream

// The Employee/Department model as three releases shipped it. Each release's classes archive
// themselves with the keyed coder and the classic (typedstream) coder, as that release's code
// did; the golden files in Fixtures/ were written by these classes once and are never
// regenerated. Do not edit a released version: add EmployeeV4 instead.

// MARK: - Release 1: Staff v1 (name, salary int32, starRating 1–5, nickname), Department v1 (title)

final class DepartmentV1: ArchiveCoding, ClassicArchiveCoding {
    static let archiveClassName = "Department"
    static let archiveVersion = 1
    static let classicClassName = "Department"
    static let classicVersion = 1
    var title: String

    init(title: String) { self.title = title }

    func encode(with coder: KeyedArchiver) throws { try coder.encode(title, forKey: "title") }
    init(from coder: KeyedUnarchiver) throws { title = try coder.decode(String.self, forKey: "title") }
    func encode(with coder: ClassicArchiver) throws { try coder.encode(title) }
    init(from coder: ClassicUnarchiver) throws { title = try coder.decode(String.self) ?? "" }
}

final class EmployeeV1: ArchiveCoding, ClassicArchiveCoding {
    static let archiveClassName = "Staff"
    static let archiveVersion = 1
    static let classicClassName = "Staff"
    static let classicVersion = 1
    var name: String
    var salary: Int32
    var starRating: Int32
    var nickname: String
    var department: DepartmentV1?

    init(name: String, salary: Int32, starRating: Int32, nickname: String, department: DepartmentV1?) {
        self.name = name
        self.salary = salary
        self.starRating = starRating
        self.nickname = nickname
        self.department = department
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(name, forKey: "name")
        coder.encode(salary, forKey: "salary")
        coder.encode(starRating, forKey: "starRating")
        try coder.encode(nickname, forKey: "nickname")
        try coder.encode(department, forKey: "department")
    }

    init(from coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        salary = try coder.decode(Int32.self, forKey: "salary")
        starRating = try coder.decode(Int32.self, forKey: "starRating")
        nickname = try coder.decode(String.self, forKey: "nickname")
        department = try coder.decodeIfPresent(DepartmentV1.self, forKey: "department")
    }

    func encode(with coder: ClassicArchiver) throws {
        try coder.encode(name)
        coder.encode(salary)
        coder.encode(starRating)
        try coder.encode(nickname)
        try coder.encode(department)
    }

    init(from coder: ClassicUnarchiver) throws {
        name = try coder.decode(String.self) ?? ""
        salary = try coder.decode(Int32.self)
        starRating = try coder.decode(Int32.self)
        nickname = try coder.decode(String.self) ?? ""
        department = try coder.decode(DepartmentV1.self)
    }
}

// MARK: - Release 2: Employee v2 (fullName, salary int64, starRating, nickname, email), Department v2 (name, floor)

final class DepartmentV2: ArchiveCoding, ClassicArchiveCoding {
    static let archiveClassName = "Department"
    static let archiveVersion = 2
    static let classicClassName = "Department"
    static let classicVersion = 2
    var name: String
    var floor: Int32

    init(name: String, floor: Int32) {
        self.name = name
        self.floor = floor
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(name, forKey: "name")
        coder.encode(floor, forKey: "floor")
    }

    init(from coder: KeyedUnarchiver) throws {
        name = try coder.decode(String.self, forKey: "name")
        floor = try coder.decode(Int32.self, forKey: "floor")
    }

    func encode(with coder: ClassicArchiver) throws {
        try coder.encode(name)
        coder.encode(floor)
    }

    init(from coder: ClassicUnarchiver) throws {
        name = try coder.decode(String.self) ?? ""
        floor = try coder.decode(Int32.self)
    }
}

final class EmployeeV2: ArchiveCoding, ClassicArchiveCoding {
    static let archiveClassName = "Employee"
    static let archiveVersion = 2
    static let classicClassName = "Employee"
    static let classicVersion = 2
    var fullName: String
    var salary: Int64
    var starRating: Int32
    var nickname: String
    var email: String
    var department: DepartmentV2?

    init(fullName: String, salary: Int64, starRating: Int32, nickname: String, email: String, department: DepartmentV2?) {
        self.fullName = fullName
        self.salary = salary
        self.starRating = starRating
        self.nickname = nickname
        self.email = email
        self.department = department
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(fullName, forKey: "fullName")
        coder.encode(salary, forKey: "salary")
        coder.encode(starRating, forKey: "starRating")
        try coder.encode(nickname, forKey: "nickname")
        try coder.encode(email, forKey: "email")
        try coder.encode(department, forKey: "department")
    }

    init(from coder: KeyedUnarchiver) throws {
        fullName = try coder.decode(String.self, forKey: "fullName")
        salary = try coder.decode(Int64.self, forKey: "salary")
        starRating = try coder.decode(Int32.self, forKey: "starRating")
        nickname = try coder.decode(String.self, forKey: "nickname")
        email = try coder.decode(String.self, forKey: "email")
        department = try coder.decodeIfPresent(DepartmentV2.self, forKey: "department")
    }

    func encode(with coder: ClassicArchiver) throws {
        try coder.encode(fullName)
        coder.encode(salary)
        coder.encode(starRating)
        try coder.encode(nickname)
        try coder.encode(email)
        try coder.encode(department)
    }

    init(from coder: ClassicUnarchiver) throws {
        fullName = try coder.decode(String.self) ?? ""
        salary = try coder.decode(Int64.self)
        starRating = try coder.decode(Int32.self)
        nickname = try coder.decode(String.self) ?? ""
        email = try coder.decode(String.self) ?? ""
        department = try coder.decode(DepartmentV2.self)
    }
}

// MARK: - Release 3: Employee v3 (fullName, salary, rating enum, email), Department v2

final class EmployeeV3: ArchiveCoding, ClassicArchiveCoding {
    static let archiveClassName = "Employee"
    static let archiveVersion = 3
    static let classicClassName = "Employee"
    static let classicVersion = 3
    var fullName: String
    var salary: Int64
    var rating: String
    var email: String
    var department: DepartmentV2?

    init(fullName: String, salary: Int64, rating: String, email: String, department: DepartmentV2?) {
        self.fullName = fullName
        self.salary = salary
        self.rating = rating
        self.email = email
        self.department = department
    }

    func encode(with coder: KeyedArchiver) throws {
        try coder.encode(fullName, forKey: "fullName")
        coder.encode(salary, forKey: "salary")
        try coder.encode(rating, forKey: "rating")
        try coder.encode(email, forKey: "email")
        try coder.encode(department, forKey: "department")
    }

    init(from coder: KeyedUnarchiver) throws {
        fullName = try coder.decode(String.self, forKey: "fullName")
        salary = try coder.decode(Int64.self, forKey: "salary")
        rating = try coder.decode(String.self, forKey: "rating")
        email = try coder.decode(String.self, forKey: "email")
        department = try coder.decodeIfPresent(DepartmentV2.self, forKey: "department")
    }

    func encode(with coder: ClassicArchiver) throws {
        try coder.encode(fullName)
        coder.encode(salary)
        try coder.encode(rating)
        try coder.encode(email)
        try coder.encode(department)
    }

    init(from coder: ClassicUnarchiver) throws {
        fullName = try coder.decode(String.self) ?? ""
        salary = try coder.decode(Int64.self)
        rating = try coder.decode(String.self) ?? ""
        email = try coder.decode(String.self) ?? ""
        department = try coder.decode(DepartmentV2.self)
    }
}

// MARK: - Today's model: plain synthesized Codable, no versioning code at all

enum Rating: String, Codable, Equatable, Sendable { case love, meh, hate }

struct Department: Codable, Equatable, Sendable {
    var name: String
    var floor: Int32
}

struct Employee: Codable, Equatable, Sendable {
    var fullName: String
    var salary: Int64
    var rating: Rating
    var email: String
    var department: Department?
}

// MARK: - The release-2 → release-3 rating rule, in Swift, for expected values

func rating(forStars stars: Int32) -> Rating {
    switch stars {
    case 4...5: .love
    case 3: .meh
    case 1...2: .hate
    default: .meh
    }
}
