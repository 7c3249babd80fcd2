import Foundation
import PFArchive

enum BinaryPlistBench {
    static func run(_ bench: inout Bench) {}
}
