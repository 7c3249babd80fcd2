import Foundation
import PFArchive

enum PropertyListBench {
    static func run(_ bench: inout Bench) {}
}
