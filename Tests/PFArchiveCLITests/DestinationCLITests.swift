import Foundation
import PFParse
import PFStores
import PFTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Destinations as a user meets them through the tool: foreign entries refused, one writer at
/// a time, modes kept, nothing left behind by an interrupted run (Docs/Security.md,
/// "Destinations").
@Suite struct DestinationCLITests {
    /// A scratch directory removed at the end.
    final class Scene {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("pfdest-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> URL { url.appendingPathComponent(name) }
        func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }

        /// An export directory with `count` Items `<tag>-<i>` (field `src` = tag) and a join row each.
        @discardableResult
        func source(_ tag: String, count: Int) throws -> URL {
            let dir = path("src-\(tag)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let schema = #"{"results":[{"className":"Item","fields":{"src":{"type":"String"},"n":{"type":"Number"},"likes":{"type":"Relation","targetClass":"Item"}}}]}"#
            try Data(schema.utf8).write(to: dir.appendingPathComponent("_SCHEMA.json"))
            let rows = (0 ..< count).map { #"{"objectId":"\#(tag)-\#($0)","src":"\#(tag)","n":\#($0)}"# }
            try Data((#"{"results":["# + rows.joined(separator: ",\n") + "]}\n").utf8).write(to: dir.appendingPathComponent("Item.json"))
            let joins = (0 ..< count).map { #"{"owningId":"\#(tag)-\#($0)","relatedId":"\#(tag)-0"}"# }
            try Data((#"{"results":["# + joins.joined(separator: ",") + "]}\n").utf8).write(to: dir.appendingPathComponent("_Join:likes:Item.json"))
            return dir
        }
    }

    static func mode(_ url: URL) -> mode_t {
        var status = stat()
        return lstat(url.path, &status) == 0 ? status.st_mode & 0o7777 : 0
    }

    static func expectOneLineFailure(_ run: Peers.Result, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 1, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.hasPrefix("pfarchive: ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.contains(text), "\(run.stderr)", sourceLocation: sourceLocation)
    }

    // MARK: - Foreign entries

    @Test func importingIntoAProjectFolderIsRefusedAndTouchesNothing() throws {
        let scene = try Scene()
        let source = try scene.source("a", count: 3)
        let project = scene.path("project")
        try FileManager.default.createDirectory(at: project.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: project.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("ref\n".utf8).write(to: project.appendingPathComponent(".git/HEAD"))
        try Data("notes\n".utf8).write(to: project.appendingPathComponent("notes.txt"))
        try Data(#"{"debug":true}"#.utf8).write(to: project.appendingPathComponent("config.json"))
        let run = try CLI.run(["import", source.path, project.path])
        Self.expectOneLineFailure(run, "holds .git (and 3 more), which is not part of a Parse export; pfarchive never deletes or rewrites files it did not write")
        #expect(try FileManager.default.contentsOfDirectory(atPath: project.path).sorted() == [".git", "config.json", "notes.txt", "sub"])
        #expect(try Data(contentsOf: project.appendingPathComponent("config.json")) == Data(#"{"debug":true}"#.utf8))
        #expect(scene.names() == ["project", "src-a"], "no lock or staging left")

        let kept = try CLI.run(["import", source.path, project.path, "--keep-foreign"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try Data(contentsOf: project.appendingPathComponent("notes.txt")) == Data("notes\n".utf8))
        #expect(try Data(contentsOf: project.appendingPathComponent(".git/HEAD")) == Data("ref\n".utf8))
        #expect(try ParseExportStore(url: project).objects(in: "Item").count == 3)
    }

    @Test func theImportHelpDocumentsKeepForeignAndTheLock() throws {
        let help = try CLI.run(["import", "--help"])
        #expect(help.stdoutText.contains("--keep-foreign"))
        #expect(help.stdoutText.contains("is being written by pfarchive pid N"))
    }

    // MARK: - Concurrent imports

    /// Starts `pfarchive` processes at once; returns their exit statuses and standard errors.
    static func runTogether(_ argumentLists: [[String]], in scene: Scene) throws -> [(status: Int32, stderr: String)] {
        var processes: [(Process, URL)] = []
        for (i, arguments) in argumentLists.enumerated() {
            let process = Process()
            process.executableURL = CLI.executable
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env["SWIFT_BACKTRACE"] = "enable=no"
            process.environment = env
            let errors = scene.path("stderr-\(i)")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errors)
            process.standardOutput = FileHandle.nullDevice
            processes.append((process, errors))
        }
        for (process, _) in processes { try process.run() }
        var results: [(Int32, String)] = []
        for (process, errors) in processes {
            process.waitUntilExit()
            results.append((process.terminationStatus, (try? String(contentsOf: errors, encoding: .utf8)) ?? ""))
            try? FileManager.default.removeItem(at: errors)
        }
        return results
    }

    /// The Items (id → src) and join rows of any store, read back through `pfarchive import`
    /// into an export (which also proves the store is readable, not corrupt).
    static func contents(of dest: URL, in scene: Scene) throws -> (items: [String: String], joins: Set<String>) {
        try contents(ofStore: dest.path, in: scene)
    }

    /// ``contents(of:in:)`` for any store argument (a path or a `postgres://` URL).
    static func contents(ofStore dest: String, in scene: Scene) throws -> (items: [String: String], joins: Set<String>) {
        let check = scene.path("check-\(UUID().uuidString.prefix(6))")
        defer { try? FileManager.default.removeItem(at: check) }
        let run = try CLI.run(["import", dest, check.path])
        #expect(run.status == 0, "reading \(dest) back: \(run.stderr)")
        let store = ParseExportStore(url: check)
        var items: [String: String] = [:]
        for object in try store.objects(in: "Item") {
            guard let id = object.objectId else { continue }
            #expect(items[id] == nil, "\(id) twice")
            if case .string(let tag)? = object.fields["src"] { items[id] = tag } else { items[id] = "?" }
        }
        let joins = try store.joinRows(of: ParseRelationKey(owningClass: "Item", field: "likes")).map { "\($0.owningId)>\($0.relatedId)" }
        return (items, Set(joins))
    }

    @Test func concurrentImportsIntoOneDestinationGiveExactlyTheCompletedImports() throws {
        let scene = try Scene()
        let tags = ["a", "b", "c"]
        let count = 40
        var sources: [String: URL] = [:]
        for tag in tags { sources[tag] = try scene.source(tag, count: count) }
        let seed = try scene.source("seed", count: 5)
        func expected(_ tag: String) -> (items: [String: String], joins: Set<String>) {
            var items: [String: String] = [:]
            var joins = Set<String>()
            for i in 0 ..< (tag == "seed" ? 5 : count) {
                items["\(tag)-\(i)"] = tag
                joins.insert("\(tag)-\(i)>\(tag)-0")
            }
            return (items, joins)
        }
        let kinds = ["export", "out.zip", "new.sqlite", "existing.sqlite", "out.archive", "out.jsonl"]
        for round in 0 ..< 3 {
            for kind in kinds {
                let dest = scene.path(kind)
                try? FileManager.default.removeItem(at: dest)
                var completed: [String] = []
                if kind == "existing.sqlite" {
                    let seeded = try CLI.run(["import", seed.path, dest.path])
                    #expect(seeded.status == 0, "\(seeded.stderr)")
                    completed.append("seed")
                }
                let results = try Self.runTogether(tags.map { ["import", sources[$0]?.path ?? "", dest.path, "--jobs", "1"] }, in: scene)
                for (tag, result) in zip(tags, results) {
                    if result.status == 0 {
                        completed.append(tag)
                    } else {
                        #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "\(kind) round \(round): \(result.stderr)")
                        #expect(result.stderr.contains("is being written by pfarchive pid"), "\(kind) round \(round): \(result.stderr)")
                    }
                }
                #expect(!completed.isEmpty, "\(kind) round \(round): no import completed")
                var union: (items: [String: String], joins: Set<String>) = ([:], [])
                for tag in completed {
                    union.items.merge(expected(tag).items) { a, _ in a }
                    union.joins.formUnion(expected(tag).joins)
                }
                let found = try Self.contents(of: dest, in: scene)
                #expect(found.items == union.items, "\(kind) round \(round): completed \(completed), found \(found.items.count) items")
                #expect(found.joins == union.joins, "\(kind) round \(round)")
                let left = Set(scene.names()).subtracting(kinds).subtracting(sources.values.map(\.lastPathComponent) + [seed.lastPathComponent])
                #expect(left.isEmpty, "\(kind) round \(round): left beside it: \(left)")
            }
        }
    }

    /// The PostgreSQL server of scripts/test.sh, when there is one.
    static let postgresServer = ProcessInfo.processInfo.environment["PFARCHIVE_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// PostgreSQL merges by objectId in one transaction per import: imports started together
    /// into one new database each complete or fail cleanly (one line, exit 1), and the database
    /// holds exactly the union of the completed ones, readable, never a mixture.
    @Test(.enabled(if: postgresServer != nil, "needs PFARCHIVE_POSTGRES_URL (scripts/test.sh starts a server)"))
    func concurrentImportsIntoOnePostgreSQLDatabaseGiveTheUnionOfTheCompletedImports() throws {
        guard let server = Self.postgresServer, let slash = server.range(of: "/", options: .backwards) else { return }
        let scene = try Scene()
        let tags = ["a", "b", "c"]
        var sources: [String: URL] = [:]
        for tag in tags { sources[tag] = try scene.source(tag, count: 40) }
        for round in 0 ..< 3 {
            let database = "pfa_concurrent_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
            let created = try Peers.run("/usr/bin/env", ["psql", server, "-qc", "CREATE DATABASE \(database)"])
            #expect(created.status == 0, "\(created.stderr)")
            defer { _ = try? Peers.run("/usr/bin/env", ["psql", server, "-qc", "DROP DATABASE IF EXISTS \(database)"]) }
            let dest = String(server[..<slash.upperBound]) + database
            let results = try Self.runTogether(tags.map { ["import", sources[$0]?.path ?? "", dest, "--jobs", "1"] }, in: scene)
            var union: (items: [String: String], joins: Set<String>) = ([:], [])
            for (tag, result) in zip(tags, results) {
                if result.status == 0 {
                    for i in 0 ..< 40 {
                        union.items["\(tag)-\(i)"] = tag
                        union.joins.insert("\(tag)-\(i)>\(tag)-0")
                    }
                } else {
                    #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "round \(round): \(result.stderr)")
                }
            }
            #expect(!union.items.isEmpty, "round \(round): no import completed: \(results.map(\.stderr))")
            let found = try Self.contents(ofStore: dest, in: scene)
            #expect(found.items == union.items, "round \(round): found \(found.items.count) items, expected \(union.items.count)")
            #expect(found.joins == union.joins, "round \(round)")
        }
    }

    // MARK: - Interrupted runs

    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedImportLeavesNoStagingAndNoLock(signal number: Int32) throws {
        let scene = try Scene()
        let source = try scene.source("big", count: 150_000)
        let dest = scene.path("dest")
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["import", source.path, dest.path, "--jobs", "1"]
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, b in b }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until it is writing (its staging directory is there), then interrupt it.
        let deadline = Date().addingTimeInterval(30)
        var staging: String?
        while staging == nil, process.isRunning, Date() < deadline {
            staging = scene.names().first { $0.hasPrefix(".dest.pfarchive-tmp") }
            if staging == nil { usleep(2_000) }
        }
        #expect(staging != nil, "the import never started writing")
        kill(process.processIdentifier, number)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == number,
                "ended with \(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)")
        #expect(scene.names() == ["src-big"], "left after the signal: \(scene.names())")
    }

    /// An SQLite source is read through a private copy in TMPDIR (the user's data): a signal
    /// removes it too, not only the destination's staging (it was left behind before).
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedImportFromSQLiteLeavesNoPrivateCopy(signal number: Int32) throws {
        let scene = try Scene()
        let database = scene.path("big.sqlite")
        let made = try CLI.run(["import", try scene.source("big", count: 150_000).path, database.path])
        #expect(made.status == 0, "\(made.stderr)")
        let temporary = scene.path("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        func copies() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).sorted() }
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["import", database.path, scene.path("dest.zip").path]
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no", "TMPDIR": temporary.path]) { _, b in b }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until it is writing (the copy is made before), then interrupt it.
        let deadline = Date().addingTimeInterval(30)
        var staging: String?
        while staging == nil, process.isRunning, Date() < deadline {
            staging = scene.names().first { $0.hasPrefix(".dest.zip.pfarchive-tmp") }
            if staging == nil { usleep(2_000) }
        }
        #expect(staging != nil && !copies().isEmpty, "the import never started writing")
        kill(process.processIdentifier, number)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == number,
                "ended with \(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)")
        #expect(copies().isEmpty, "left in TMPDIR after the signal: \(copies())")
        #expect(scene.names() == ["big.sqlite", "src-big", "tmp"], "left after the signal: \(scene.names())")
    }

    /// A FIFO named like an SQLite store is refused at once: telling Core Data from SQLite
    /// by its first bytes once opened it and waited for a writer forever.
    @Test func aFIFONamedLikeAnSQLiteStoreIsRefusedWithoutWaiting() throws {
        let scene = try Scene()
        let source = try scene.source("s", count: 3)
        let fifo = scene.path("dest.sqlite")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["import", source.path, fifo.path]
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, b in b }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        guard !process.isRunning else {
            // SIGKILL: a child of a test thread may have SIGTERM blocked (its mask is inherited).
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Issue.record("still waiting on the FIFO after 20 s")
            return
        }
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 1 && stderr.split(separator: "\n").count == 1, "\(stderr)")
        #expect(stderr.contains("not a regular file"), "\(stderr)")
        #expect(scene.names() == ["dest.sqlite", "src-s"], "\(scene.names())")
    }

    @Test func aKilledConvertsTemporaryFileIsRemovedByTheNextRun() throws {
        let scene = try Scene()
        let input = scene.path("in.json")
        try Data(("[" + (0 ..< 2000).map { "\"value \($0)\"" }.joined(separator: ",") + "]").utf8).write(to: input)
        let output = scene.path("out.cbor")
        // A file-size limit of 1 KiB: the kernel kills the convert with SIGXFSZ while it
        // writes its temporary file, as a kill -9 would, leaving it behind.
        // (Python resets SIGXFSZ to its default and unblocks it: a test runner may ignore or block it.)
        let killed = try Peers.python(
            "import os, resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_DFL); "
                + "signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGXFSZ]); "
                + "resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024)); os.environ['SWIFT_BACKTRACE'] = 'enable=no'; "
                + "os.execv(sys.argv[1], sys.argv[1:2] + ['convert'] + sys.argv[2:])",
            [CLI.executable.path, input.path, output.path])
        #expect(killed.status != 0)
        let temporary = scene.names().filter { $0.hasPrefix(".out.cbor.pfarchive-") }
        #expect(temporary.count == 1, "\(scene.names()); status \(killed.status): \(killed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let again = try CLI.run(["convert", input.path, output.path])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(scene.names() == ["in.json", "out.cbor"], "the killed run's temporary file is gone")
    }

    // MARK: - Convert outputs

    @Test func convertIntoADirectoryPathIsRefused() throws {
        let scene = try Scene()
        let input = scene.path("in.json")
        try Data("[1,2,3]".utf8).write(to: input)
        let newdir = scene.path("newdir").path + "/"
        for arguments in [[newdir, "--to", "json"], [newdir], [scene.url.path, "--to", "json"], [scene.url.path + "/.", "--to", "cbor"]] {
            let run = try CLI.run(["convert", input.path] + arguments)
            Self.expectOneLineFailure(run, "names a directory; OUTPUT must be a file path")
        }
        #expect(scene.names() == ["in.json"], "no file named newdir, nothing else written")
    }

    /// An OUTPUT that is a symbolic link: the file it points to gets the output and the link
    /// stays a link (a rename over the link replaced it with a file and left the target old);
    /// a link to a file not made yet makes that file.
    @Test func convertThroughASymbolicLinkWritesTheFileItPointsTo() throws {
        let scene = try Scene()
        let input = scene.path("in.json")
        try Data(#"{"a":1}"#.utf8).write(to: input)
        try Data("old".utf8).write(to: scene.path("real.json"))
        try FileManager.default.createSymbolicLink(atPath: scene.path("link.json").path, withDestinationPath: "real.json")
        try FileManager.default.createSymbolicLink(atPath: scene.path("later.json").path, withDestinationPath: "made.json")
        for output in ["link.json", "later.json"] {
            let run = try CLI.run(["convert", input.path, scene.path(output).path])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scene.path("link.json").path) == "real.json")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scene.path("later.json").path) == "made.json")
        #expect(try Data(contentsOf: scene.path("real.json")) == Data(#"{"a":1}"#.utf8))
        #expect(try Data(contentsOf: scene.path("made.json")) == Data(#"{"a":1}"#.utf8))
        #expect(scene.names() == ["in.json", "later.json", "link.json", "made.json", "real.json"], "nothing else beside them")

        // `..` in a link is resolved from the directory the link really is in, as the kernel
        // does (work → data/a/b, whose out.json → ../../c/out.json, that is data/c/out.json).
        let fm = FileManager.default
        try fm.createDirectory(at: scene.path("data/a/b"), withIntermediateDirectories: true)
        try fm.createDirectory(at: scene.path("data/c"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: scene.path("work").path, withDestinationPath: "data/a/b")
        try fm.createSymbolicLink(atPath: scene.path("data/a/b/out.json").path, withDestinationPath: "../../c/out.json")
        #expect(try CLI.run(["convert", input.path, scene.path("work/out.json").path]).status == 0)
        #expect(try Data(contentsOf: scene.path("data/c/out.json")) == Data(#"{"a":1}"#.utf8))
        // A loop of links is refused, as the kernel refuses it, and stays a link.
        try fm.createSymbolicLink(atPath: scene.path("loop1.json").path, withDestinationPath: "loop2.json")
        try fm.createSymbolicLink(atPath: scene.path("loop2.json").path, withDestinationPath: "loop1.json")
        Self.expectOneLineFailure(try CLI.run(["convert", input.path, scene.path("loop1.json").path]), "too many levels of symbolic links")
        #expect(try fm.destinationOfSymbolicLink(atPath: scene.path("loop1.json").path) == "loop2.json")
        // A link another user owns in a sticky, world-writable directory (/tmp) is not
        // followed (fs.protected_symlinks): it could point at any file of the user's.
        if geteuid() == 0 {
            let shared = scene.path("shared")
            try fm.createDirectory(at: shared, withIntermediateDirectories: true)
            #expect(chmod(shared.path, 0o1777) == 0)
            let planted = shared.appendingPathComponent("report.json")
            try fm.createSymbolicLink(atPath: planted.path, withDestinationPath: scene.path("victim").path)
            #expect(lchown(planted.path, 65534, 65534) == 0)
            Self.expectOneLineFailure(try CLI.run(["convert", input.path, planted.path]), "another user owns in a shared directory")
            #expect(!fm.fileExists(atPath: scene.path("victim").path))
        }
    }

    /// `/dev/stdout`, `/dev/fd/1` and a link to `/dev/null` are written in place: a rename
    /// replaced the device node or the link with a regular file (as root, `/dev/null` itself).
    @Test func convertToADeviceWritesInPlace() throws {
        let scene = try Scene()
        let input = scene.path("in.json")
        try Data(#"[{"a":1},{"b":2}]"#.utf8).write(to: input)
        for device in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            let run = try CLI.run(["convert", input.path, device, "--to", "jsonl"])
            #expect(run.status == 0, "\(device): \(run.stderr)")
            #expect(run.stdoutText == "{\"a\":1}\n{\"b\":2}\n", "\(device)")
        }
        let null = scene.path("null.json")
        try FileManager.default.createSymbolicLink(atPath: null.path, withDestinationPath: "/dev/null")
        let run = try CLI.run(["convert", input.path, null.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: null.path) == "/dev/null")
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        #expect(scene.names() == ["in.json", "null.json"])
        let closed = try CLI.run(["convert", input.path, "/dev/fd/987", "--to", "json"])
        Self.expectOneLineFailure(closed, "/dev/fd/987 is not a descriptor this process was given")
    }

    /// A FIFO OUTPUT is written in place, by `convert` and by `convert --table` of an SQLite
    /// database; a conversion that fails writes nothing into it and leaves it a FIFO.
    @Test func convertIntoAFIFOWritesInPlace() throws {
        let scene = try Scene()
        let input = scene.path("in.json")
        try Data(#"{"a":[1,2]}"#.utf8).write(to: input)
        let database = scene.path("d.db")
        _ = try Peers.python(
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT)'); "
                + "c.execute(\"INSERT INTO t VALUES (1, 'x')\"); c.commit()", [database.path])
        let fifo = scene.path("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // The reading end, opened first without waiting, so the writer's open returns at once.
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        func drain() -> String {
            var bytes = [UInt8](repeating: 0, count: 65536)
            let n = read(reader, &bytes, bytes.count)
            return n > 0 ? String(decoding: bytes[..<n], as: UTF8.self) : ""
        }
        let run = try CLI.run(["convert", input.path, fifo.path, "--to", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(drain() == #"{"a":[1,2]}"#)
        let table = try CLI.run(["convert", database.path, fifo.path, "--table", "t"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(drain() == "{\"objectId\":\"1\",\"id\":1,\"name\":\"x\"}\n")
        try Data("{".utf8).write(to: input)
        let failed = try CLI.run(["convert", input.path, fifo.path, "--to", "json"])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(drain() == "")
        var status = stat()
        #expect(lstat(fifo.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(scene.names() == ["d.db", "in.json", "pipe"])
    }

    @Test func convertKeepsTheModeOfTheFileItReplaces() throws {
        let scene = try Scene()
        let input = scene.path("in.json")
        try Data(#"{"sessionToken":"r:secret"}"#.utf8).write(to: input)
        let output = scene.path("out.json")
        try Data("old".utf8).write(to: output)
        _ = chmod(output.path, 0o600)
        let run = try CLI.run(["convert", input.path, output.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.mode(output) == 0o600)
        #expect(try Data(contentsOf: output) != Data("old".utf8))
        let fresh = scene.path("new.json")
        #expect(try CLI.run(["convert", input.path, fresh.path]).status == 0)
        #expect(Self.mode(fresh) == Destination.newFileMode)
    }

    @Test func newOutputsGetTheUmasksModeNotAFixedOne() throws {
        let scene = try Scene()
        let source = try scene.source("a", count: 3)
        // umask 002 (group-writable, as many systems set it): new files 0664, directories 0775.
        for dest in ["export", "new.sqlite", "out.jsonl", "out.archive"] {
            let run = try Peers.python(
                "import os, sys; os.umask(0o002); os.environ['SWIFT_BACKTRACE'] = 'enable=no'; os.execv(sys.argv[1], sys.argv[1:])",
                [CLI.executable.path, "import", source.path, scene.path(dest).path])
            #expect(run.status == 0, "\(dest): \(run.stderr)")
        }
        #expect(Self.mode(scene.path("new.sqlite")) == 0o664)
        #expect(Self.mode(scene.path("out.archive")) == 0o664)
        for dir in ["export", "out.jsonl"] {
            #expect(Self.mode(scene.path(dir)) == 0o775, "\(dir)")
            #expect(Self.mode(scene.path(dir).appendingPathComponent("Item.json")) == 0o664, "\(dir)")
        }
    }

    @Test func importIntoAnExistingExportKeepsItsModes() throws {
        let scene = try Scene()
        let source = try scene.source("a", count: 3)
        let dest = scene.path("export")
        #expect(try CLI.run(["import", source.path, dest.path]).status == 0)
        _ = chmod(dest.path, 0o700)
        _ = chmod(dest.appendingPathComponent("Item.json").path, 0o600)
        #expect(try CLI.run(["import", source.path, dest.path]).status == 0)
        #expect(Self.mode(dest) == 0o700)
        #expect(Self.mode(dest.appendingPathComponent("Item.json")) == 0o600)
    }
}
