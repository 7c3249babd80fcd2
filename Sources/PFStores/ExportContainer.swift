import Foundation
import PFCompression
import PFCore
import PFParse
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a Parse export's files are: a directory, or a `.zip` of one (files at the top or in
/// one folder). Hands out each file's bytes in chunks so nothing reads a file whole.
final class ExportContainer {
    /// One file of the export.
    struct File {
        /// The file name (last path component), such as `_Join:likes:Post.json`.
        var name: String
        /// The path in the directory, or the zip entry's path.
        var path: String
        /// Bytes, when known.
        var size: Int?
    }

    enum Kind {
        case directory(URL)
        case zip(URL, Archive)
    }

    let kind: Kind
    let location: String
    let limits: PFLimits
    /// The `.json` files, sorted by name.
    let files: [File]

    /// Opens a directory or a zip.
    /// - Parameters:
    ///   - url: the directory or zip.
    ///   - limits: budgets.
    ///   - excluding: names (in a directory) or member paths (in a zip) that are not part of
    ///     the export (foreign entries of a destination), left out of ``files``.
    /// - Throws: ``PFCore/PFError`` with code `io` when it cannot be opened or listed,
    ///   `invalidValue` when two zip entries have the same file name.
    init(url: URL, limits: PFLimits, excluding: Set<String> = []) throws(PFError) {
        location = url.path
        self.limits = limits
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PFError(.io, format: ParseExportStore.format, "\(url.path): no such file or directory")
        }
        if isDirectory.boolValue {
            kind = .directory(url)
            files = try ParseExport.classFiles(in: url).filter { !excluding.contains($0.lastPathComponent) }.map { file in
                let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
                return File(name: file.lastPathComponent, path: file.path, size: size)
            }
            return
        }
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw PFError(.io, format: ParseExportStore.format, "\(url.path): not a readable zip archive (\(error))")
        }
        kind = .zip(url, archive)
        var byName: [String: File] = [:]
        for entry in archive where entry.type == .file {
            let path = entry.path
            if excluding.contains(path) { continue }
            // macOS adds resource forks under __MACOSX/; hidden files are not classes.
            if path.hasPrefix("__MACOSX/") { continue }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            guard name.lowercased().hasSuffix(".json"), !name.hasPrefix(".") else { continue }
            if let other = byName[name] {
                throw PFError(.invalidValue, format: ParseExportStore.format,
                              "\(url.path): the zip holds two files named \(name) (\(other.path) and \(path)); extract the one export you mean")
            }
            byName[name] = File(name: name, path: path, size: Int(exactly: entry.uncompressedSize))
        }
        files = byName.values.sorted { $0.name < $1.name }
    }

    /// Calls `body` with the file's bytes in chunks of at most `chunkSize` bytes.
    /// - Throws: ``PFCore/PFError`` with code `io` when reading fails, `limitExceeded` when a
    ///   zip entry inflates past its declared size, `maxDecompressedBytes` or
    ///   `maxCompressionRatio` (a zip bomb), or what `body` throws.
    func forEachChunk(
        of file: File, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        switch kind {
        case .directory:
            try Self.readFile(atPath: file.path, chunkSize: chunkSize, body)
        case .zip(_, let archive):
            try extract(file, from: archive, chunkSize: chunkSize, body)
        }
    }

    /// Calls `body` with each row of a class file, cut as the chunks arrive.
    func forEachRow(of file: File, chunkSize: Int, _ body: ParseExportRowCutter.RowHandler) throws(PFError) {
        var cutter = ParseExportRowCutter(limits: limits)
        try forEachChunk(of: file, chunkSize: chunkSize) { chunk throws(PFError) in
            try cutter.feed(chunk, body)
        }
        try cutter.finish(body)
    }

    static func readFile(
        atPath path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw PFError(.io, format: ParseExportStore.format, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let size = max(1, chunkSize)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while true {
            let n = read(fd, buffer.baseAddress, size)
            if n < 0 {
                if errno == EINTR { continue }
                throw PFError(.io, format: ParseExportStore.format, "cannot read \(path): \(String(cString: strerror(errno)))",
                              offset: offset)
            }
            if n == 0 { return }
            offset += n
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// A failure inside ZIPFoundation's consumer, carried out of its untyped `throws`.
    private struct Carried: Error { var error: PFError }

    private func extract(
        _ file: File, from archive: Archive, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        guard let entry = archive[file.path] else {
            throw PFError(.io, format: ParseExportStore.format, "\(location): entry \(file.path) vanished from the zip")
        }
        let where_ = "\(location): \(file.path)"
        var budget = InflationGuard(name: where_, declaredSize: entry.uncompressedSize, compressedSize: entry.compressedSize,
                                    limits: limits, format: ParseExportStore.format)
        try budget.checkDeclared()
        do {
            let crc = try archive.extract(entry, bufferSize: max(1, chunkSize), skipCRC32: false) { data in
                // Zip bombs: an entry may not inflate past what its header declares, nor past
                // the limits, whatever the header says.
                do throws(PFError) { try budget.consume(data.count) } catch { throw Carried(error: error) }
                let result: Result<Void, PFError> = data.withUnsafeBytes { raw in
                    Result { () throws(PFError) in try body(raw) }
                }
                if case .failure(let error) = result { throw Carried(error: error) }
            }
            guard crc == entry.checksum, budget.total == entry.uncompressedSize else {
                throw Carried(error: PFError(.invalidValue, format: ParseExportStore.format,
                                             "\(where_): CRC-32 or size mismatch (the zip is corrupt)"))
            }
        } catch let carried as Carried {
            throw carried.error
        } catch {
            throw PFError(.io, format: ParseExportStore.format, "\(where_): cannot extract (\(error))")
        }
    }
}

/// The POSIX calls the export store uses, named apart from the stores' own `close()` and
/// `write(_:)` methods.
enum POSIX {
    static func write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, bytes, count)
        #elseif canImport(Musl)
        Musl.write(fd, bytes, count)
        #else
        Darwin.write(fd, bytes, count)
        #endif
    }

    static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(fd)
        #elseif canImport(Musl)
        Musl.close(fd)
        #else
        Darwin.close(fd)
        #endif
    }

    static func rename(_ from: String, _ to: String) -> Int32 {
        #if canImport(Glibc)
        Glibc.rename(from, to)
        #elseif canImport(Musl)
        Musl.rename(from, to)
        #else
        Darwin.rename(from, to)
        #endif
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}
