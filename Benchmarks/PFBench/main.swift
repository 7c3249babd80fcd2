import Foundation

// pfarchive-bench [--filter TEXT] [--quick] [--json FILE]
// Run in release mode: swift run -c release pfarchive-bench
var bench = Bench()
var jsonOut: String?
var args = CommandLine.arguments.dropFirst().makeIterator()
while let arg = args.next() {
    switch arg {
    case "--filter": bench.filter = args.next()
    case "--quick": bench.minTime = 0.2; bench.minRuns = 3
    case "--json": jsonOut = args.next()
    default:
        FileHandle.standardError.write(Data("usage: pfarchive-bench [--filter TEXT] [--quick] [--json FILE]\n".utf8))
        exit(2)
    }
}

JSONBench.run(&bench)
CompressionBench.run(&bench)
BinaryPlistBench.run(&bench)
XMLPlistBench.run(&bench)
CBORBench.run(&bench)

if let jsonOut {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    if let data = try? encoder.encode(bench.results) {
        FileManager.default.createFile(atPath: jsonOut, contents: data)
    }
}
