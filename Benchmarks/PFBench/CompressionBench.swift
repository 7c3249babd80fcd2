import Foundation
import PFArchive

enum CompressionBench {
    static func run(_ bench: inout Bench) {}
}
