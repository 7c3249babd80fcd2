import Foundation
import PFArchive

enum XMLPlistBench {
    static func run(_ bench: inout Bench) {}
}
