import Foundation
import PFCore
import PFParse
import PFStores
import Testing
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Destinations are never cleaned out, are written by one process at a time, and keep their
/// modes (Docs/Security.md, "Destinations").
@Suite struct DestinationTests {
    /// Imports the real Parse.com export into a destination through the standard openers.
    @discardableResult
    static func importRealExport(into dest: URL, keep: Bool = false) throws(PFError) -> StoreImporter.Report {
        let openers = StoreOpeners.standard(readerThreads: 1)
        let reader = try openers.reader(for: StoreLocation.resolve(realExport.path))
        defer { reader.close() }
        let writer = try openers.writer(for: StoreLocation.resolve(dest.path))
        if keep { writer.foreignEntries = .keep }
        return try StoreImporter(options: .init(overlapWrites: false)).run(from: reader, to: writer)
    }

    /// Every file under a directory (relative path → bytes and mode), symlinks as their target.
    static func snapshot(_ dir: URL) throws -> [String: String] {
        var out: [String: String] = [:]
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: dir.path) else { return out }
        while let relative = walker.nextObject() as? String {
            let path = dir.appendingPathComponent(relative).path
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            let mode = String(status.st_mode & 0o7777, radix: 8)
            switch status.st_mode & S_IFMT {
            case S_IFREG: out[relative] = mode + " " + ((try? Data(contentsOf: URL(fileURLWithPath: path)).base64EncodedString()) ?? "?")
            case S_IFLNK: out[relative] = "link " + ((try? fm.destinationOfSymbolicLink(atPath: path)) ?? "?")
            default: out[relative] = mode + " dir"
            }
        }
        return out
    }

    static func mode(_ url: URL) -> mode_t {
        var status = stat()
        return lstat(url.path, &status) == 0 ? status.st_mode & 0o7777 : 0
    }

    /// A project folder: other files, a dot file, a subfolder, a symlink, a config.json.
    static func projectFolder(_ scratch: Scratch) throws -> URL {
        let dir = try scratch.directory("project", [
            "notes.txt": "my notes\n", ".env": "SECRET=1\n", "config.json": #"{"name":"app","debug":true}"#,
        ])
        try FileManager.default.createDirectory(at: dir.appendingPathComponent(".git/objects"), withIntermediateDirectories: true)
        try Data("ref: refs/heads/main\n".utf8).write(to: dir.appendingPathComponent(".git/HEAD"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("src"), withIntermediateDirectories: true)
        try Data("print(1)\n".utf8).write(to: dir.appendingPathComponent("src/main.swift"))
        _ = chmod(dir.appendingPathComponent("notes.txt").path, 0o640)
        _ = chmod(dir.appendingPathComponent("src").path, 0o750)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link").path, withDestinationPath: "notes.txt")
        return dir
    }

    // MARK: - Foreign entries

    /// The first foreign entry, the count of the others and the store a refusal names.
    struct Foreign: Equatable {
        var first: String
        var more: Int
        var store: String
    }

    static func foreign(_ error: any Error) -> Foreign? {
        guard case .foreignEntries(_, let first, let more, let store, _)? = (error as? PFError)?.failure(as: StoreFailure.self) else { return nil }
        return Foreign(first: first, more: more, store: store)
    }

    /// What a destination that is not pfarchive's own was refused as.
    static func refusal(_ error: any Error) -> StoreFailure.Refusal? {
        guard case .notPfarchiveOutput(_, let what)? = (error as? PFError)?.failure(as: StoreFailure.self) else { return nil }
        return what
    }

    /// Who holds a destination's lock, by a refusal.
    static func holder(_ error: any Error) -> StoreFailure.Holder? {
        guard case .beingWritten(_, let holder)? = (error as? PFError)?.failure(as: StoreFailure.self) else { return nil }
        return holder
    }

    @Test func aFolderWithOtherFilesIsRefusedAndLeftAsItWas() throws {
        let scratch = try Scratch()
        let project = try Self.projectFolder(scratch)
        let before = try Self.snapshot(project)
        do {
            try Self.importRealExport(into: project)
            Issue.record("the import into a project folder succeeded")
        } catch {
            #expect(
                error.failure(as: StoreFailure.self)
                    == .foreignEntries(path: project.path, first: ".env", more: 5, store: "a Parse export", keepable: true), "\(error)")
        }
        #expect(try Self.snapshot(project) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["project"], "no lock or staging left")
    }

    @Test func aConfigJSONThatIsNotAClassFileIsForeign() throws {
        let scratch = try Scratch()
        let dir = try scratch.directory("out", ["config.json": #"{"name":"app","debug":true}"#])
        let before = try Self.snapshot(dir)
        #expect { try Self.importRealExport(into: dir) } throws: { error in
            Self.foreign(error) == .init(first: "config.json", more: 0, store: "a Parse export")
        }
        #expect(try Self.snapshot(dir) == before)
        // A class file in any of the export shapes is the export's own, and is merged.
        let export = try scratch.directory("export", [
            "Post.json": #"{"results":[{"objectId":"p1","title":"kept"}]}"#, "Tag.json": #"[{"objectId":"t1"}]"#,
            "One.json": #"{"objectId":"o1","name":"single"}"#, "Empty.json": "",
        ])
        try Self.importRealExport(into: export)
        let merged = ParseExportStore(url: export)
        #expect(try merged.objects(in: "Post").map(\.objectId) == ["p1"])
        #expect(try merged.objects(in: "One").map(\.objectId) == ["o1"])
        #expect(try merged.objects(in: "Comment").count == 1)
    }

    @Test func keepForeignCarriesEveryForeignEntryOverUntouched() throws {
        let scratch = try Scratch()
        let project = try Self.projectFolder(scratch)
        let before = try Self.snapshot(project)
        try Self.importRealExport(into: project, keep: true)
        let after = try Self.snapshot(project)
        for (path, entry) in before { #expect(after[path] == entry, "\(path)") }
        #expect(Set(after.keys).subtracting(before.keys) == ["Comment.json", "NameWord.json", "_Role.json", "_SCHEMA.json"])
        #expect(try ParseExportStore(url: project).objects(in: "Comment").count == 1)
        // Again, now over an export with foreign entries: still untouched, the store merged.
        try Self.importRealExport(into: project, keep: true)
        #expect(try Self.snapshot(project) == after)
    }

    @Test func aZipWithOtherMembersIsRefusedOrKeepsThem() throws {
        let scratch = try Scratch()
        let zip = scratch.path("out.zip")
        do {
            let archive = try Archive(url: zip, accessMode: .create)
            for (name, text, mode) in [("Post.json", #"{"results":[{"objectId":"p1"}]}"#, UInt16(0o644)),
                                       ("README.md", "read me\n", 0o600), ("docs/guide.txt", "guide\n", 0o640)] {
                let data = Data(text.utf8)
                try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), permissions: mode, compressionMethod: .deflate) { position, size in
                    data.subdata(in: Int(position) ..< min(data.count, Int(position) + size))
                }
            }
        }
        let before = try Data(contentsOf: zip)
        #expect { try Self.importRealExport(into: zip) } throws: { error in
            Self.foreign(error) == .init(first: "README.md", more: 1, store: "a Parse export")
        }
        #expect(try Data(contentsOf: zip) == before)
        try Self.importRealExport(into: zip, keep: true)
        let archive = try Archive(url: zip, accessMode: .read)
        var members: [String: (String, UInt16?)] = [:]
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            members[entry.path] = (String(decoding: data, as: UTF8.self), (entry.fileAttributes[.posixPermissions] as? NSNumber)?.uint16Value)
        }
        #expect(members["README.md"]?.0 == "read me\n" && members["README.md"]?.1 == 0o600)
        #expect(members["docs/guide.txt"]?.0 == "guide\n" && members["docs/guide.txt"]?.1 == 0o640)
        let store = ParseExportStore(url: zip)
        #expect(try store.objects(in: "Post").map(\.objectId) == ["p1"])
        #expect(try store.objects(in: "Comment").count == 1)
    }

    @Test func everyKindRefusesWhatIsNotItsOwn() throws {
        let scratch = try Scratch()
        // A .jsonl directory with a README and a pretty-printed package.json.
        let mongo = try scratch.directory("dump.jsonl", ["README": "hello\n", "package.json": "{\n  \"name\": \"x\"\n}\n"])
        let mongoBefore = try Self.snapshot(mongo)
        #expect { try Self.importRealExport(into: mongo) } throws: { error in
            Self.foreign(error) == .init(first: "README", more: 1, store: "the Mongo shape")
        }
        #expect(try Self.snapshot(mongo) == mongoBefore)
        try Self.importRealExport(into: mongo, keep: true)
        let mongoAfter = try Self.snapshot(mongo)
        #expect(mongoAfter["README"] == mongoBefore["README"] && mongoAfter["package.json"] == mongoBefore["package.json"])
        #expect(try MongoShapeStore(directory: mongo).objects(in: "Comment").count == 1)
        // A file that is not a store archive, and a symlink, are never replaced.
        let archive = scratch.path("notes.archive")
        try Data("not an archive\n".utf8).write(to: archive)
        #expect { try Self.importRealExport(into: archive, keep: true) } throws: { error in
            guard case .unreadable("a pfarchive store archive", _)? = Self.refusal(error) else { return false }
            return true
        }
        #expect(try Data(contentsOf: archive) == Data("not an archive\n".utf8))
        let link = scratch.path("link.zip")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "elsewhere.zip")
        #expect { try Self.importRealExport(into: link) } throws: { error in
            Self.refusal(error) == .symbolicLink
        }
        // A file where an export directory belongs.
        let plain = scratch.path("plain")
        try Data("text\n".utf8).write(to: plain)
        #expect { try Self.importRealExport(into: plain) } throws: { error in
            Self.refusal(error) == .fileWhereDirectoryBelongs("an export directory")
        }
        #expect(try Data(contentsOf: plain) == Data("text\n".utf8))
    }

    // MARK: - Locks and staging

    /// Writers of every file kind this module has.
    static func writers(_ scratch: Scratch) -> [(String, () -> any ObjectStoreWriter)] {
        [
            ("export", { ParseExportStore(url: scratch.path("export")) }),
            ("zip", { ParseExportStore(url: scratch.path("out.zip")) }),
            ("archive", { KeyedArchiveStore(url: scratch.path("out.archive")) }),
            ("mongo", { MongoShapeStore(directory: scratch.path("out.jsonl")) }),
        ]
    }

    @Test func aSecondWriterIsRefusedWhileTheFirstHoldsTheLock() throws {
        let scratch = try Scratch()
        let object = try ParseObject(rest: ["objectId": "a1", "n": 1], className: "Item")
        for (kind, make) in Self.writers(scratch) {
            let first = make()
            try first.begin(schema: ParseSchema())
            try first.write([object], className: "Item")
            let second = make()
            #expect(throws: PFError.self, "\(kind)") { try second.begin(schema: ParseSchema()) }
            do { try second.begin(schema: ParseSchema()) } catch {
                #expect(Self.holder(error) == .process(pid: getpid()), "\(kind): \(error.message)")
            }
            try first.commit()
            // Released at commit: the second writer may go now, and merges.
            try second.begin(schema: ParseSchema())
            try second.write([try ParseObject(rest: ["objectId": "b1", "n": 2], className: "Item")], className: "Item")
            try second.commit()
        }
        #expect(Set(try ParseExportStore(url: scratch.path("export")).objects(in: "Item").map(\.objectId)) == ["a1", "b1"])
        #expect(try KeyedArchiveStore(url: scratch.path("out.archive")).objects(in: "Item").count == 2)
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        #expect(left == ["export", "out.archive", "out.jsonl", "out.zip"], "no lock file or staging left")
    }

    @Test func staleLocksAndStagingOfDeadProcessesAreTakenOverAndNothingElseIsTouched() throws {
        let scratch = try Scratch()
        // The pid of a process that has ended.
        let process = try Process.run(URL(fileURLWithPath: "/bin/true"), arguments: [])
        process.waitUntilExit()
        let dead = process.processIdentifier
        let dest = scratch.path("export")
        // A killed swap left the committed export aside and the destination missing; a
        // killed run left its staging and its lock; someone else's files sit beside them.
        try FileManager.default.createDirectory(at: scratch.path(".export.pfarchive-old-\(dead)-1a2b"), withIntermediateDirectories: true)
        try Data(#"{"results":[{"objectId":"old1"}]}"#.utf8).write(to: scratch.path(".export.pfarchive-old-\(dead)-1a2b/Item.json"))
        try FileManager.default.createDirectory(at: scratch.path(".export.pfarchive-tmp-\(dead)-3c4d"), withIntermediateDirectories: true)
        try Data("partial".utf8).write(to: scratch.path(".export.pfarchive-tmp-\(dead)-3c4d/Item.json"))
        try Data("\(dead)\n".utf8).write(to: scratch.path(".export.pfarchive-lock"))
        try Data("mine".utf8).write(to: scratch.path(".export.notes"))
        try Data("alive".utf8).write(to: scratch.path(".export.pfarchive-tmp-1-5e6f"))
        let writer = ParseExportStore(url: dest)
        try writer.begin(schema: ParseSchema())
        try writer.write([try ParseObject(rest: ["objectId": "new1"], className: "Item")], className: "Item")
        try writer.commit()
        #expect(Set(try ParseExportStore(url: dest).objects(in: "Item").map(\.objectId)) == ["old1", "new1"])
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted()
        // pid 1 is alive: its staging is not ours to remove.
        #expect(left == [".export.notes", ".export.pfarchive-tmp-1-5e6f", "export"])
    }

    // MARK: - Modes

    @Test func replacedFilesAndDirectoriesKeepTheirModes() throws {
        let scratch = try Scratch()
        let export = scratch.path("export")
        let zip = scratch.path("out.zip")
        let archive = scratch.path("out.archive")
        let mongo = scratch.path("out.jsonl")
        for dest in [export, zip, archive, mongo] { try Self.importRealExport(into: dest) }
        #expect(Self.mode(zip) == Destination.newFileMode && Self.mode(archive) == Destination.newFileMode)
        #expect(Self.mode(export) == Destination.newDirectoryMode)
        #expect(Self.mode(export.appendingPathComponent("Comment.json")) == Destination.newFileMode)
        for dir in [export, mongo] {
            _ = chmod(dir.path, 0o700)
            _ = chmod(dir.appendingPathComponent("_Role.json").path, 0o600)
        }
        _ = chmod(zip.path, 0o600)
        _ = chmod(archive.path, 0o600)
        for dest in [export, zip, archive, mongo] { try Self.importRealExport(into: dest) }
        #expect(Self.mode(zip) == 0o600)
        #expect(Self.mode(archive) == 0o600)
        for dir in [export, mongo] {
            #expect(Self.mode(dir) == 0o700, "\(dir.lastPathComponent)")
            #expect(Self.mode(dir.appendingPathComponent("_Role.json")) == 0o600, "\(dir.lastPathComponent)")
            #expect(Self.mode(dir.appendingPathComponent("Comment.json")) == Destination.newFileMode)
        }
    }

    @Test func writeFileKeepsTheModeAndLeavesNoTemporaryFile() throws {
        let scratch = try Scratch()
        let out = scratch.path("out.json")
        try Destination.writeFile(Data("1".utf8), to: out, format: .output)
        #expect(Self.mode(out) == Destination.newFileMode)
        _ = chmod(out.path, 0o600)
        try Destination.writeFile(Data("2".utf8), to: out, format: .output)
        #expect(Self.mode(out) == 0o600)
        #expect(try Data(contentsOf: out) == Data("2".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["out.json"])
    }
}
