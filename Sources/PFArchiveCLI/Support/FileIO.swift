import Foundation
import OrderedCollections
import PFArchive

/// Reading inputs and writing outputs the way the CLI contract requires.
enum FileIO {
    /// Reads a whole file, or standard input for `-`, refusing more than `limit` bytes.
    static func read(_ path: String, limit: Int) throws -> Data {
        if path == "-" {
            var data = Data()
            while let chunk = try FileHandle.standardInput.read(upToCount: 1 << 20), !chunk.isEmpty {
                data.append(chunk)
                if data.count > limit {
                    throw CLIFailure(file: path, PFLimits.exceeded("maxInputBytes", limit, format: "input"))
                }
            }
            return data
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CLIFailure("\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw CLIFailure("\(path): is a directory, expected a file") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > limit {
            throw CLIFailure(file: path, PFLimits.exceeded("maxInputBytes", limit, format: "input"))
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw CLIFailure("\(path): cannot read: \(error.localizedDescription)")
        }
    }

    /// Writes bytes to a file atomically (a temporary file in the same directory, then a
    /// rename), or to standard output for `-`. On any failure the destination is untouched.
    static func writeAtomically(_ data: Data, to path: String) throws {
        if path == "-" {
            FileHandle.standardOutput.write(data)
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
