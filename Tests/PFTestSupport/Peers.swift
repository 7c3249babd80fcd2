import Foundation

/// Runs the Python peers (plistlib, cbor2, bpylist2, nska-deserialize, pytypedstream) and
/// other programs from tests.
///
/// The Python interpreter is `$PFARCHIVE_PYTHON`, else `.venv/bin/python` in the repository
/// (which `scripts/setup.sh` creates with every peer installed), else `python3`.
public enum Peers {
    /// The Python interpreter the tests use.
    public static var python: String {
        if let env = ProcessInfo.processInfo.environment["PFARCHIVE_PYTHON"], !env.isEmpty { return env }
        let venv = Fixtures.repoRoot.appendingPathComponent(".venv/bin/python").path
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        return "/usr/bin/env"
    }

    /// The result of running a program.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs a program with arguments and optional standard input, and waits for it.
    /// - Parameters:
    ///   - executable: the program's path (`/usr/bin/env` looks the first argument up on `PATH`).
    ///   - arguments: its arguments.
    ///   - input: bytes for its standard input.
    ///   - environment: extra environment variables.
    public static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let outPipe = Pipe()
        let errPipe = Pipe()
        let inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        // Drain stdout and stderr concurrently so a chatty child cannot block on a full pipe.
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = errPipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        if let input {
            DispatchQueue.global().async {
                try? inPipe.fileHandleForWriting.write(contentsOf: input)
                try? inPipe.fileHandleForWriting.close()
            }
        } else {
            try? inPipe.fileHandleForWriting.close()
        }
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: out, stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    /// Runs a Python script (given as source text) with the peers' interpreter.
    /// - Parameters:
    ///   - script: Python source; `sys.argv[1:]` are `arguments`.
    ///   - arguments: arguments for the script.
    ///   - input: bytes for its standard input.
    public static func python(_ script: String, _ arguments: [String] = [], input: Data? = nil) throws -> Result {
        let interpreter = python
        if interpreter == "/usr/bin/env" {
            return try run(interpreter, ["python3", "-c", script] + arguments, input: input)
        }
        return try run(interpreter, ["-c", script] + arguments, input: input)
    }
}

final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// Runs the built `pfarchive` binary, as a user would.
public enum CLI {
    /// The directory holding the built products (the test bundle's directory).
    public static var productsDirectory: URL {
        if let bin = ProcessInfo.processInfo.environment["PFARCHIVE_BIN_DIR"], !bin.isEmpty {
            return URL(fileURLWithPath: bin)
        }
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        #endif
        return Bundle.main.bundleURL
    }

    /// The `pfarchive` executable.
    public static var executable: URL { productsDirectory.appendingPathComponent("pfarchive") }

    /// Runs `pfarchive` with arguments and optional standard input.
    public static func run(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws
        -> Peers.Result
    {
        try Peers.run(executable.path, arguments, input: input, environment: environment)
    }
}
