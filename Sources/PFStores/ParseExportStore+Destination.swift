import Foundation
import PFCompression
import PFCore
import PFJSON
import PFParse
import PFParseExport
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - What is part of an export

/// What a Parse export destination holds, entry by entry: its own files, and the rest.
///
/// Part of an export are only regular files named `<Class>.json`, `_Join:<field>:<Class>.json`
/// (also with U+A789 for `:`) or `_SCHEMA.json` whose bytes read as an export file: empty,
/// a JSON array, `{"results": …}`, or one JSON object with a string `objectId`. In a zip the
/// same, as file members at the top or in one folder (and that folder's own entry). Anything
/// else — other files, dot files, subdirectories, symbolic links, a `config.json` that is not
/// a class file — is foreign.
struct ExportDestinationEntries {
    /// The foreign entries' names (a zip member's path), sorted.
    var foreign: [String] = []
    /// The names (zip paths) of the export's own files.
    var store: Set<String> = []
    /// A reason the destination itself is foreign (a file where a directory belongs, a file
    /// that is not a zip, a symbolic link), or `nil`.
    var wholeForeign: StoreFailure.Refusal?
}

extension ParseExportStore {
    /// The largest one-object class file read whole to see whether it is a Parse object.
    static let singleObjectProbeBytes = 16 << 20

    /// Whether a file name can be one of an export's files.
    static func isExportFileName(_ name: String) -> Bool {
        guard !name.hasPrefix("."), name.lowercased().hasSuffix(".json") else { return false }
        if name == schemaFileName { return true }
        let className = ParseExport.className(forFile: URL(fileURLWithPath: name))
        if ParseRelationKey(joinClassName: className) != nil { return true }
        return ParseRules.classNameProblem(className) == nil && !className.contains("/")
    }

    /// Whether bytes read as an export file, from their start: empty, an array, `{"results"`,
    /// or (asking `whole` for the file, at most ``singleObjectProbeBytes``) one object with a
    /// string `objectId`.
    static func readsAsExportFile(prefix: [UInt8], whole: () -> [UInt8]?) -> Bool {
        var i = 0
        if prefix.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        func skipSpace() { while i < prefix.count, [0x20, 0x0A, 0x0D, 0x09].contains(prefix[i]) { i += 1 } }
        skipSpace()
        guard i < prefix.count else { return prefix.count < 64 }
        switch prefix[i] {
        case UInt8(ascii: "["): return true
        case UInt8(ascii: "{"):
            i += 1
            skipSpace()
            if prefix[i...].starts(with: Array("\"results\"".utf8)) { return true }
            guard let bytes = whole() else { return false }
            let reader = JSONReader(options: .init(mode: .strict, typedValues: false))
            guard let value = try? reader.read(Data(bytes)), case .string? = value["objectId"] else { return false }
            return true
        default: return false
        }
    }

    /// Sorts the destination's entries into the export's own and foreign ones.
    /// - Throws: ``PFCore/PFError`` with code `io` when the destination cannot be listed.
    func destinationEntries() throws(PFError) -> ExportDestinationEntries {
        var result = ExportDestinationEntries()
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return result }
        let type = status.st_mode & S_IFMT
        if type == S_IFLNK {
            result.wholeForeign = .symbolicLink
            return result
        }
        if isZip {
            guard type == S_IFREG else {
                result.wholeForeign = type == S_IFDIR ? .directoryWhereFileBelongs("a .zip file") : .notARegularFile
                return result
            }
            return try zipEntries()
        }
        guard type == S_IFDIR else {
            result.wholeForeign = .fileWhereDirectoryBelongs("an export directory")
            return result
        }
        for entry in try Destination.entries(of: url, format: Self.format) {
            let file = url.appendingPathComponent(entry.name)
            let own =
                Destination.isRegularFile(entry.status) && Self.isExportFileName(entry.name)
                && Self.readsAsExportFile(
                    prefix: Destination.prefix(of: file, count: 64) ?? [],
                    whole: {
                        guard Int(entry.status.st_size) <= Self.singleObjectProbeBytes else { return nil }
                        return (try? Data(contentsOf: file)).map { Array($0) }
                    })
            if own { result.store.insert(entry.name) } else { result.foreign.append(entry.name) }
        }
        return result
    }

    /// A stop signal for ZIPFoundation's consumer.
    private struct EnoughBytes: Error {}

    private func zipEntries() throws(PFError) -> ExportDestinationEntries {
        var result = ExportDestinationEntries()
        guard ZipEntryData.hasEndRecord(atPath: url.path), let archive = try? Archive(url: url, accessMode: .read) else {
            result.wholeForeign = .notAZip
            return result
        }
        let files = Array(archive)
        // The one folder the export may sit in: that of the first member that is an export file.
        var folder: String?
        for entry in files where entry.type == .file {
            let parts = entry.path.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 2, Self.isExportFileName(String(parts[1])) {
                folder = String(parts[0])
                break
            }
            if parts.count == 1 { break }
        }
        for entry in files {
            let path = entry.path
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            var own = false
            switch entry.type {
            case .directory:
                if let folder { own = path == folder + "/" || path == folder }
            case .file:
                let inPlace = parts.count == 1 || (parts.count == 2 && parts[0] == folder)
                if inPlace, let last = parts.last, Self.isExportFileName(last) {
                    own = Self.readsAsExportFile(
                        prefix: memberBytes(entry, of: archive, upTo: 64) ?? [],
                        whole: { Int(exactly: entry.uncompressedSize).flatMap { $0 <= Self.singleObjectProbeBytes ? memberBytes(entry, of: archive, upTo: $0) : nil } })
                }
            case .symlink:
                own = false
            }
            if own { result.store.insert(path) } else { result.foreign.append(path) }
        }
        return result
    }

    /// The first `count` bytes of a zip member (`nil` when it cannot be read).
    private func memberBytes(_ entry: Entry, of archive: Archive, upTo count: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        do {
            _ = try archive.extract(entry, bufferSize: 16 << 10, skipCRC32: true) { data in
                bytes.append(contentsOf: data.prefix(count - bytes.count))
                if bytes.count >= count { throw EnoughBytes() }
            }
        } catch is EnoughBytes {
        } catch {
            return nil
        }
        return bytes
    }

    /// Copies the foreign members of the destination zip into the new one untouched: the
    /// same path, type, permissions, date and bytes (inflated through the zip-bomb guard and
    /// deflated again when they were compressed).
    func carryOverZipMembers(_ paths: [String], into target: Archive) throws(PFError) {
        guard !paths.isEmpty else { return }
        let source: Archive
        do { source = try Archive(url: url, accessMode: .read) } catch {
            throw PFError(StoreFailure.cannotReopenZip(location: location, reason: "\(error)"), format: Self.format)
        }
        let container = try ExportContainer(url: url, limits: options.limits, excluding: Set(paths))
        for path in paths {
            guard let entry = source[path] else {
                throw PFError(StoreFailure.entryVanished(location: location, entry: path), format: Self.format)
            }
            let attributes = entry.fileAttributes
            let date = attributes[.modificationDate] as? Date ?? Date()
            let permissions = (attributes[.posixPermissions] as? NSNumber).map { UInt16(truncatingIfNeeded: $0.intValue) }
            var bytes = Data()
            if entry.type != .directory {
                guard let file = container.member(atPath: path) else {
                    throw PFError(StoreFailure.entryVanished(location: location, entry: path), format: Self.format)
                }
                // Carried over as stored: a foreign member is never rewritten.
                try container.forEachChunk(of: file, chunkSize: options.chunkSize, decompressing: false) { chunk throws(PFError) in
                    bytes.append(contentsOf: chunk)
                }
            }
            let data = bytes
            do {
                try target.addEntry(
                    with: path, type: entry.type, uncompressedSize: Int64(data.count), modificationDate: date, permissions: permissions,
                    compressionMethod: entry.isCompressed ? .deflate : .none, bufferSize: max(1 << 16, options.chunkSize)
                ) { position, size in
                    let start = Int(position)
                    return data.subdata(in: start ..< min(data.count, start + size))
                }
            } catch {
                throw PFError(StoreFailure.cannotCarryIntoZip(entry: path, reason: "\(error)"), format: Self.format)
            }
        }
    }
}
