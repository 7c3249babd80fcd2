import Foundation
import OrderedCollections
import PFArchive

/// Reading inputs and writing outputs the way the CLI contract requires.
enum FileIO {
    /// Reads a whole file, or standard input for `-`, refusing more than `limit` bytes.
    ///
    /// A regular file is mapped; anything else that can be read — a FIFO, `<(…)`, a
    /// character device — is read as a stream, stopping as soon as it passes `limit`.
    static func read(_ path: String, limit: Int) throws -> Data {
        if path == "-" {
            return try readStream(FileHandle.standardInput, name: path, limit: limit)
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw CLIFailure("\(path): no such file") }
            throw CLIFailure("\(path): cannot read: \(String(cString: strerror(code)))")
        }
        let type = info.st_mode & S_IFMT
        guard type != S_IFDIR else { throw CLIFailure("\(path): is a directory, expected a file") }
        guard type == S_IFREG else {
            // A FIFO or `<(…)` has no size and cannot be mapped: stream it.
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CLIFailure("\(path): cannot read: \(String(cString: strerror(errno)))")
            }
            defer { try? handle.close() }
            return try readStream(handle, name: path, limit: limit)
        }
        if Int(info.st_size) > limit {
            throw CLIFailure(file: path, PFLimits.exceeded("maxInputBytes", limit, format: "input"))
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw CLIFailure("\(path): cannot read: \(error.localizedDescription)")
        }
    }

    /// Reads a stream to its end, refusing more than `limit` bytes as soon as it passes them.
    private static func readStream(_ handle: FileHandle, name: String, limit: Int) throws -> Data {
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                data.append(chunk)
                if data.count > limit {
                    throw CLIFailure(file: name, PFLimits.exceeded("maxInputBytes", limit, format: "input"))
                }
            }
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure("\(name == "-" ? "<stdin>" : name): cannot read: \(error.localizedDescription)")
        }
        return data
    }

    /// Writes bytes to a file atomically (a temporary file in the same directory, then a
    /// rename), or to standard output for `-`. On any failure the destination is untouched.
    static func writeAtomically(_ data: Data, to path: String) throws {
        if path == "-" {
            try StandardOutput.write(data)
            return
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw CLIFailure("\(path): the directory \(directory.path) does not exist") }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).pfarchive-\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
            // rename(2) replaces the destination in one step on the same file system.
            guard rename(temporary.path, url.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temporary)
                throw CLIFailure("\(path): cannot write: \(reason)")
            }
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw CLIFailure("\(path): cannot write: \(error.localizedDescription)")
        }
    }
}

extension FileIO {
    /// Writes a directory of files atomically: into a temporary directory beside it, then
    /// renamed into place. The destination must not exist or be an empty directory; on any
    /// failure it is untouched.
    static func writeDirectoryAtomically(_ files: OrderedDictionary<String, Data>, to path: String) throws {
        guard path != "-" else { throw CLIFailure("\(path): a directory input is copied to a directory, not standard output") }
        let url = URL(fileURLWithPath: path)
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? manager.contentsOfDirectory(atPath: path))?.isEmpty == true else {
                throw CLIFailure("\(path): already exists; expected a new or empty directory")
            }
        }
        let parent = url.deletingLastPathComponent()
        let temporary = parent.appendingPathComponent(".\(url.lastPathComponent).pfarchive-\(UUID().uuidString).tmp")
        do {
            try manager.createDirectory(at: temporary, withIntermediateDirectories: false)
            for (name, data) in files { try data.write(to: temporary.appendingPathComponent(name)) }
            if manager.fileExists(atPath: path) { try manager.removeItem(at: url) }
            guard rename(temporary.path, url.path) == 0 else {
                let reason = String(cString: strerror(errno))
                throw CLIFailure("\(path): cannot write: \(reason)")
            }
        } catch let failure as CLIFailure {
            try? manager.removeItem(at: temporary)
            throw failure
        } catch {
            try? manager.removeItem(at: temporary)
            throw CLIFailure("\(path): cannot write: \(error.localizedDescription)")
        }
    }
}
