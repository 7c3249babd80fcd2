import Foundation
import PFArchive

enum JSONBench {
    static func run(_ bench: inout Bench) {}
}
