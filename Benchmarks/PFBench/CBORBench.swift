import Foundation
import PFArchive

enum CBORBench {
    static func run(_ bench: inout Bench) {}
}
