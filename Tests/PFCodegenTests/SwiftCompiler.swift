import Foundation
import PFTestSupport

/// Compiles generated code against the package's built modules with `swiftc`: typechecks it,
/// or links it with a `main.swift` and runs it.
enum SwiftCompiler {
    /// The modules PFArchive is made of (their object files are linked into a test program).
    static let linkedModules = [
        "PFCore", "PFDoubleFormatting", "PFJSON", "PFCompression", "PFPropertyList", "PFCBOR", "PFSerialization",
        "PFKeyedArchive", "PFTypedStream", "PFParse", "PFParseAdapter", "PFParseExport", "PFVersioning", "PFCoreData",
        "PFFormats", "PFGraphCopy", "PFStores", "PFDiff", "PFRealm", "PFArchive", "PFCodegen", "OrderedCollections",
        "InternalCollectionsUtilities", "ZIPFoundation", "PFSQLiteSource",
        // swift-crypto, for encrypted Realm files (C targets included).
        "Crypto", "_CryptoExtras", "CryptoExtras", "CryptoBoringWrapper", "CCryptoBoringSSL", "CCryptoBoringSSLShims", "SwiftASN1", "CXKCP", "CXKCPShims",
    ]

    static var buildDirectory: URL { Fixtures.repoRoot.appendingPathComponent(".build/debug") }

    /// The flags that let `swiftc` import PFArchive: the module directory and the C modules' maps.
    static var importFlags: [String] {
        let root = Fixtures.repoRoot.path
        return [
            "-I", buildDirectory.appendingPathComponent("Modules").path,
            "-Xcc", "-fmodule-map-file=\(root)/Sources/CPFJSONC/module.modulemap",
            "-Xcc", "-fmodule-map-file=\(root)/Sources/CPFZlib/module.modulemap",
            "-Xcc", "-fmodule-map-file=\(root)/.build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap",
            "-Xcc", "-fmodule-map-file=\(root)/.build/checkouts/ZIPFoundation/Sources/CZLib/module.modulemap",
            "-module-cache-path", FileManager.default.temporaryDirectory.appendingPathComponent("pfcodegen-module-cache").path,
        ]
    }

    /// The object files of the library modules: those of `linkedModules` among the objects SwiftPM
    /// links into the `pfarchive` executable (its link file list names exactly the objects of the
    /// current build, C targets' included; the build directory may hold stale objects of files
    /// that moved).
    static func objectFiles() throws -> [String] {
        let list = buildDirectory.appendingPathComponent("pfarchive.product/Objects.LinkFileList")
        let resolved = buildDirectory.resolvingSymlinksInPath().path
        let prefixes = linkedModules.flatMap { ["\(resolved)/\($0).build/", "\(buildDirectory.path)/\($0).build/"] }
        let lines = try String(contentsOf: list, encoding: .utf8).split(separator: "\n").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: "'\" "))
        }
        return lines.filter { line in prefixes.contains { line.hasPrefix($0) } }.sorted()
    }

    struct Result {
        var status: Int32
        var output: String
    }

    static func run(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    static var swiftc: String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(dir)/swiftc"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/swiftc"
    }

    /// Typechecks Swift files against PFArchive.
    static func typecheck(_ files: [URL]) throws -> Result {
        try run(swiftc, ["-typecheck"] + importFlags + files.map(\.path))
    }

    /// Compiles and links Swift files (one of them `main.swift`) with the library, then runs the program.
    static func buildAndRun(_ files: [URL], in directory: URL, arguments: [String] = []) throws -> Result {
        let program = directory.appendingPathComponent("program")
        let compiled = try run(
            swiftc, importFlags + files.map(\.path) + (try objectFiles()) + ["-ljson-c", "-lz", "-lsqlite3", "-lstdc++", "-o", program.path])
        guard compiled.status == 0 else { return compiled }
        return try run(program.path, arguments)
    }

    /// Runs `pfarchive codegen` with arguments.
    static func codegen(_ arguments: [String]) throws -> Result {
        try run(buildDirectory.appendingPathComponent("pfarchive").path, ["codegen"] + arguments)
    }

    /// A new empty directory.
    static func scratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pfcodegen-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func swiftFiles(in directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }
}
