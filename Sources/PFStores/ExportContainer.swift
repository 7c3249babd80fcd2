import Foundation
import PFCompression
import PFCore
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

/// Where a Parse export's files are: a directory, a `.zip` of one (files at the top or in
/// one folder), or one class file read as an export of that class (`GameScore.json`, as
/// a source only). Hands out each file's bytes in chunks so nothing reads a file whole.
final class ExportContainer {
    /// One file of the export.
    struct File {
        /// The file name (last path component), such as `_Join:likes:Post.json`.
        var name: String
        /// The path in the directory, or the zip entry's path.
        var path: String
        /// Bytes, when known.
        var size: Int?
        /// The zip entry's index in the central directory (``PFCompression/ZipEntryData``).
        var entryIndex: Int? = nil
    }

    enum Kind {
        case directory(URL)
        case zip(URL, Archive)
        /// One class file (`.json` or `.json.gz`, not a zip): an export of that one class.
        case classFile(URL)
    }

    let kind: Kind
    let location: String
    let limits: PFLimits
    /// The class files (``PFParseExport/ParseExport/isClassFileName(_:)``: `.json`, and
    /// `.json.gz`), sorted by name.
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
            throw PFError(StoreFailure.noSuchFile(path: url.path), format: ParseExportStore.format)
        }
        if isDirectory.boolValue {
            kind = .directory(url)
            files = try ParseExport.classFiles(in: url).filter { !excluding.contains($0.lastPathComponent) }.map { file in
                let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
                return File(name: file.lastPathComponent, path: file.path, size: size)
            }
            return
        }
        guard ZipEntryData.hasEndRecord(atPath: url.path) else {
            // One class file, as Parse's dashboard exports a class: an export of that class.
            let name = url.lastPathComponent
            if url.pathExtension.lowercased() != "zip" && ParseExport.isClassFileName(name) && !excluding.contains(name) {
                kind = .classFile(url)
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
                files = [File(name: name, path: url.path, size: size)]
                return
            }
            // A file of another name was taken for a Parse export: say what one is.
            let hint = url.pathExtension.lowercased() == "zip" ? "" : "; a Parse export is a directory, a .zip of class files or one <Class>.json file"
            throw PFError(StoreFailure.notAZip(path: url.path, reason: "no end of central directory record" + hint), format: ParseExportStore.format)
        }
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw PFError(StoreFailure.notAZip(path: url.path, reason: "\(error)"), format: ParseExportStore.format)
        }
        kind = .zip(url, archive)
        var byName: [String: File] = [:]
        for (index, entry) in archive.enumerated() where entry.type == .file {
            let path = entry.path
            if excluding.contains(path) { continue }
            // macOS adds resource forks under __MACOSX/; hidden files are not classes.
            if path.hasPrefix("__MACOSX/") { continue }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            guard ParseExport.isClassFileName(name) else { continue }
            if let other = byName[name] {
                throw PFError(
                    StoreFailure.duplicateZipEntry(path: url.path, name: name, first: other.path, second: path), format: ParseExportStore.format)
            }
            byName[name] = File(name: name, path: path, size: Int(exactly: entry.uncompressedSize), entryIndex: index)
        }
        files = byName.values.sorted { $0.name < $1.name }
    }

    /// Any member of a zip by its path (also one that is not a class file), to read it
    /// through ``forEachChunk(of:chunkSize:_:)``; `nil` when the zip has none (or this is a
    /// directory).
    func member(atPath path: String) -> File? {
        guard case .zip(_, let archive) = kind else { return nil }
        for (index, entry) in archive.enumerated() where entry.path == path {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return File(name: name, path: path, size: Int(exactly: entry.uncompressedSize), entryIndex: index)
        }
        return nil
    }

    /// Calls `body` with the file's JSON in chunks of at most `chunkSize` bytes.
    ///
    /// A file whose bytes start with gzip's or zlib's magic (``PFCompression/Compression/detect(_:)``),
    /// whatever its name, is inflated on the way, under the decompression limits; with
    /// `decompressing: false` the bytes are handed over as stored.
    /// - Throws: ``PFCore/PFError`` with code `io` when reading fails, `limitExceeded` when a
    ///   zip entry inflates past its declared size, `maxDecompressedBytes` or
    ///   `maxCompressionRatio` (a zip bomb, or a bomb of a compressed class file), `syntax`
    ///   or `truncated` for a damaged compressed file, or what `body` throws.
    func forEachChunk(
        of file: File, chunkSize: Int, decompressing: Bool = true, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        guard decompressing else { return try forEachStoredChunk(of: file, chunkSize: chunkSize, body) }
        var inflating = InflatingChunks(limits: limits)
        var bodyFailed = false
        func deliver(_ chunk: UnsafeRawBufferPointer) throws(PFError) {
            do { try body(chunk) } catch {
                bodyFailed = true
                throw error
            }
        }
        // A damaged or oversized compressed file: the inflater's error says which file.
        try forEachStoredChunk(of: file, chunkSize: chunkSize) { chunk throws(PFError) in
            do throws(PFError) { try inflating.feed(chunk, deliver) } catch { throw bodyFailed ? error : named(error, file) }
        }
        do throws(PFError) { try inflating.finish(deliver) } catch { throw bodyFailed ? error : named(error, file) }
    }

    /// Whether the file is stored as plain JSON in a directory, so that a row can be read
    /// again at its offset in the file; `false` for a zip's member and a compressed file.
    func isPlainFileOnDisk(_ file: File) -> Bool {
        if case .zip = kind { return false }
        let fd = open(file.path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var start = [UInt8](repeating: 0, count: InflatingChunks.magicBytes)
        let n = start.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return n >= 0 && Compression.detect(Data(start[0..<n])) == nil
    }

    /// Calls `body` with the file's stored bytes in chunks of at most `chunkSize` bytes.
    private func forEachStoredChunk(
        of file: File, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        switch kind {
        case .directory, .classFile:
            try Self.readFile(atPath: file.path, chunkSize: chunkSize, body)
        case .zip(let url, _):
            try extract(file, url: url, chunkSize: chunkSize, body)
        }
    }

    /// Calls `body` with each row of a class file, cut as the chunks arrive.
    ///
    /// An error in the file itself (not in one of its rows, which `body` places) names the
    /// file: `export: Place.json: the file ends inside the rows array`.
    func forEachRow(of file: File, chunkSize: Int, _ body: ParseExportRowCutter.RowHandler) throws(PFError) {
        var cutter = ParseExportRowCutter(limits: limits)
        var rowFailed = false
        func handle(_ row: ParseExportRow) throws(PFError) {
            do { try body(row) } catch {
                rowFailed = true
                throw error
            }
        }
        try forEachChunk(of: file, chunkSize: chunkSize) { chunk throws(PFError) in
            do throws(PFError) { try cutter.feed(chunk, handle) } catch { throw rowFailed ? error : named(error, file) }
        }
        do throws(PFError) { try cutter.finish(handle) } catch { throw rowFailed ? error : named(error, file) }
    }

    /// A file-level error with the export and the file's name in front.
    private func named(_ error: PFError, _ file: File) -> PFError {
        var e = error
        if case .classFile = kind {
            e.message = "\(location): " + e.message
        } else {
            e.message = "\(location): \(file.name): " + e.message
        }
        return e
    }

    static func readFile(
        atPath path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void
    ) throws(PFError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw PFError(StoreFailure.cannotOpen(path: path, reason: String(cString: strerror(errno))), format: ParseExportStore.format)
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
                throw PFError(StoreFailure.cannotRead(path: path, reason: String(cString: strerror(errno))), format: ParseExportStore.format, offset: offset)
            }
            if n == 0 { return }
            offset += n
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// The zip's central directory and an open descriptor to read entries through, made on
    /// first use.
    private var zipData: (entries: ZipEntryData, descriptor: Int32)?

    deinit {
        if let zipData { _ = POSIX.close(zipData.descriptor) }
    }

    /// Streams a zip entry through ``PFCompression/ZipEntryData``, which inflates it chunk by
    /// chunk and checks the budget against the compressed bytes read so far: a bomb stops
    /// within a MiB past its ratio, in memory bounded by a chunk. (ZIPFoundation's `extract`
    /// does not say how much it has read, so the ratio could be judged only against the whole
    /// entry, after inflating nearly all of it.)
    private func extract(_ file: File, url: URL, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        let where_ = "\(location): \(file.path)"
        let entries = try zipEntries(url)
        guard let index = file.entryIndex, entries.records.indices.contains(index) else {
            throw PFError(StoreFailure.entryVanished(location: location, entry: file.path), format: ParseExportStore.format)
        }
        let record = entries.records[index]
        var budget = InflationGuard(name: where_, declaredSize: record.uncompressedSize, compressedSize: record.compressedSize,
                                    limits: limits, format: ParseExportStore.format)
        try budget.checkDeclared()
        try entries.stream(index, budget: &budget, chunkSize: min(max(1, chunkSize), Inflater.chunkSize), body)
    }

    private func zipEntries(_ url: URL) throws(PFError) -> ZipEntryData {
        if let zipData { return zipData.entries }
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else {
            throw PFError(StoreFailure.cannotOpen(path: url.path, reason: String(cString: strerror(errno))), format: ParseExportStore.format)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            _ = POSIX.close(fd)
            throw PFError(StoreFailure.cannotRead(path: url.path, reason: String(cString: strerror(errno))), format: ParseExportStore.format)
        }
        let path = url.path
        let reader: ZipEntryData.Reader = { (offset: UInt64, count: Int) throws(PFError) -> Data in
            var data = Data(count: count)
            var done = 0
            while done < count {
                let n = data.withUnsafeMutableBytes { raw in
                    pread(fd, raw.baseAddress.map { $0 + done }, count - done, off_t(clamping: offset + UInt64(done)))
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw PFError(StoreFailure.cannotRead(path: path, reason: String(cString: strerror(errno))), format: ParseExportStore.format)
                }
                if n == 0 { break }
                done += n
            }
            data.count = done
            return data
        }
        do throws(PFError) {
            let entries = try ZipEntryData(size: UInt64(max(0, info.st_size)), format: ParseExportStore.format,
                                           maxRecords: limits.maxCollectionCount, read: reader)
            zipData = (entries, fd)
            return entries
        } catch {
            _ = POSIX.close(fd)
            var e = error
            e.message = "\(location): " + e.message
            throw e
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

/// A class file's chunks as they are read, inflated when its first bytes are gzip's or
/// zlib's magic: the first ``magicBytes`` bytes decide, then each chunk passes through, or
/// through an ``PFCompression/Inflater`` (which holds the decompression limits).
private struct InflatingChunks {
    /// The bytes ``PFCompression/Compression/detect(_:)`` needs.
    static let magicBytes = 3

    let limits: PFLimits
    /// The first bytes, until there are enough to decide.
    private var head: [UInt8] = []
    private var decided = false
    private var inflater: Inflater?

    init(limits: PFLimits) { self.limits = limits }

    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        guard decided else {
            head.append(contentsOf: chunk)
            guard head.count >= Self.magicBytes else { return }
            try decide(body)
            return
        }
        try pass(chunk, body)
    }

    mutating func finish(_ body: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        if !decided { try decide(body) }
        try inflater?.finish()
    }

    private mutating func decide(_ body: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        decided = true
        if let format = Compression.detect(Data(head.prefix(Self.magicBytes))) {
            inflater = try Inflater(format: format, limits: limits)
        }
        let bytes = head
        head = []
        guard !bytes.isEmpty else { return }
        let result = bytes.withUnsafeBytes { raw in Result { () throws(PFError) in try pass(raw, body) } }
        try result.get()
    }

    private func pass(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        if let inflater { try inflater.process(chunk, output: body) } else { try body(chunk) }
    }
}
