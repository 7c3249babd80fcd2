import Foundation

// pfarchive-bench [--group NAME] [--filter TEXT] [--quick] [--json FILE]
//                 | --read-export DIR_OR_ZIP [--chunk BYTES] [--infer] | --read-export CLASS.json --stage cut|json|value|object
// Run in release mode: swift run -c release pfarchive-bench
var bench = Bench()
var jsonOut: String?
var group: String?
var exportPath: String?
var exportChunk = 1 << 20
var exportInfer = false
var exportStage: StoresBench.Stage?
var args = CommandLine.arguments.dropFirst().makeIterator()
while let arg = args.next() {
    switch arg {
    case "--filter": bench.filter = args.next()
    case "--group": group = args.next()?.lowercased()
    case "--quick": bench.minTime = 0.2; bench.minRuns = 3
    case "--json": jsonOut = args.next()
    case "--read-export": exportPath = args.next()
    case "--chunk": exportChunk = args.next().flatMap { Int($0) } ?? exportChunk
    case "--infer": exportInfer = true
    case "--stage": exportStage = args.next().flatMap(StoresBench.Stage.init(rawValue:))
    default:
        FileHandle.standardError.write(Data("usage: pfarchive-bench [--group NAME] [--filter TEXT] [--quick] [--json FILE]\n".utf8))
        exit(2)
    }
}

if let exportPath, let exportStage {
    StoresBench.stages(exportPath, chunkSize: exportChunk, stage: exportStage)
    exit(0)
}
if let exportPath {
    StoresBench.readExport(exportPath, chunkSize: exportChunk, inferSchema: exportInfer)
    exit(0)
}

// Each group builds its inputs only when it runs.
let groups: [(String, (inout Bench) -> Void)] = [
    ("json", JSONBench.run), ("compression", CompressionBench.run), ("bplist", BinaryPlistBench.run),
    ("xmlplist", XMLPlistBench.run), ("cbor", CBORBench.run), ("keyed", KeyedBench.run), ("parse", ParseBench.run),
    ("mongo", MongoBench.run), ("copy", CopyBench.run), ("realm", RealmBench.run),
]
for (name, run) in groups where group == nil || group == name {
    run(&bench)
}

if let jsonOut {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    if let data = try? encoder.encode(bench.results) {
        FileManager.default.createFile(atPath: jsonOut, contents: data)
    }
}
