import ArgumentParser
import Foundation
import OrderedCollections
import PFArchive

/// Reading inputs and writing outputs the way the CLI contract requires.
enum FileIO {
    /// An SQLite database or Realm file piped in is named for what it is: stores are read
    /// from their file (a private copy with its `-wal`), never from standard input, and the
    /// format reader's "unrecognised format" would be wrong about the bytes.
    static func refuseStore(onStandardInput bytes: Data) throws {
        if let kind = StoreFileKind.of(bytes) {
            throw CLIFailure("<stdin>: \(kind), which pfarchive reads from its file, not from standard input: give its path instead of -")
        }
    }

    /// Reads a whole file, or standard input for `-`, refusing more than `limit` bytes.
    ///
    /// A regular file is mapped; anything else that can be read — a FIFO, `<(…)`, a
    /// character device — is read as a stream, stopping as soon as it passes `limit`.
    static func read(_ path: String, limit: Int) throws -> Data {
        if path == "-" {
            let bytes = try readStream(FileHandle.standardInput, name: path, limit: limit)
            try refuseStore(onStandardInput: bytes)
            return bytes
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
            throw CLIFailure(file: path, PFLimits.exceeded("maxInputBytes", limit, format: .input))
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
                    throw CLIFailure(file: name, PFLimits.exceeded("maxInputBytes", limit, format: .input))
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
    /// rename), or to standard output for `-`. On any failure the destination is untouched; a
    /// replaced file keeps its mode; a symbolic link is followed and a device or FIFO
    /// (`/dev/null`, `>(…)`) written in place (``Destination/writeFile(_:to:format:name:)``).
    static func writeAtomically(_ data: Data, to path: String) throws {
        if path == "-" {
            try StandardOutput.write(data)
            return
        }
        let url = try outputFile(path)
        do {
            try Destination.writeFile(data, to: url, format: .output, name: path)
        } catch {
            throw CLIFailure(error.message)
        }
    }

    /// The URL of an OUTPUT file, refusing a path that names a directory: one ending in `/`,
    /// or an existing directory (writing there would create a file named like the directory,
    /// or fail late).
    static func outputFile(_ path: String) throws -> URL {
        if namesDirectory(path) {
            throw CLIFailure("\(path): names a directory; OUTPUT must be a file path such as \((path as NSString).appendingPathComponent("out.json"))")
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw CLIFailure("\(path): the directory \(directory.path) does not exist") }
        return url
    }

    /// The format an OUTPUT is written in: `--to`, else the output's extension, else JSON for
    /// standard output; `nil` when none of them says.
    static func outputFormat(_ output: String, to: DataFormat?) -> DataFormat? {
        if let to { return to }
        if output == "-" { return .json }
        return FormatDetector.infer(fromPath: output).format
    }

    /// Refuses (a usage error) an OUTPUT whose format nothing tells; an OUTPUT naming a
    /// directory is left for the write to refuse (exit 1), whatever its format.
    static func checkOutputFormat(_ output: String, to: DataFormat?) throws {
        if outputFormat(output, to: to) == nil, !namesDirectory(output) {
            throw ValidationError(
                "Cannot tell the output format from '\(output)'; name one with --to (\(DataFormat.allValueStrings.joined(separator: ", "))).")
        }
    }

    /// Whether a path names a directory: it ends in `/` (or `/.`, `/..`), or a directory is there.
    static func namesDirectory(_ path: String) -> Bool {
        guard path != "-" else { return false }
        if path.hasSuffix("/") || path == "." || path == ".." || path.hasSuffix("/.") || path.hasSuffix("/..") { return true }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

extension FileIO {
    /// Writes a directory of files atomically: into a temporary directory beside it, then
    /// renamed into place. The destination must not exist or be an empty directory; on any
    /// failure it is untouched.
    static func writeDirectoryAtomically(_ files: OrderedDictionary<String, Data>, to path: String) throws {
        guard path != "-" else { throw CLIFailure("\(path): a directory input is copied to a directory, not standard output") }
        // A symbolic link to a directory is followed: the link stays, the directory is written.
        let url: URL
        switch Destination.fileTarget(of: URL(fileURLWithPath: path)) {
        case .file(let directory): url = directory
        case .refused(let reason): throw CLIFailure("\(path): cannot write: \(reason)")
        case .stream, .descriptor: throw CLIFailure("\(path): is a device, FIFO or open descriptor; expected a new or empty directory")
        }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? manager.contentsOfDirectory(atPath: url.path))?.isEmpty == true else {
                throw CLIFailure("\(path): already exists; expected a new or empty directory")
            }
        }
        let existing = manager.fileExists(atPath: url.path) ? url : nil
        try? Destination.removeStaleSiblings(of: url.standardizedFileURL, locked: false)
        let temporary = Destination.temporarySibling(of: url.standardizedFileURL)
        defer { Destination.forget(temporary) }
        do {
            // Mode 0700 while it is written; each file, then the directory, gets the umask's
            // mode (or the replaced empty directory's) and is synced before the rename.
            guard mkdir(temporary.path, 0o700) == 0 else { throw CLIFailure("\(path): cannot write: \(String(cString: strerror(errno)))") }
            for (name, data) in files {
                let file = temporary.appendingPathComponent(name)
                try data.write(to: file)
                try Destination.settle(file, like: nil, format: .output)
            }
            try Destination.settle(temporary, like: existing, format: .output)
            if existing != nil { try manager.removeItem(at: url) }
            guard rename(temporary.path, url.path) == 0 else {
                let reason = String(cString: strerror(errno))
                throw CLIFailure("\(path): cannot write: \(reason)")
            }
            Destination.syncDirectory(url.deletingLastPathComponent())
        } catch let failure as CLIFailure {
            try? manager.removeItem(at: temporary)
            throw failure
        } catch let error as PFError {
            try? manager.removeItem(at: temporary)
            throw CLIFailure("\(path): cannot write: \(error.message)")
        } catch {
            try? manager.removeItem(at: temporary)
            throw CLIFailure("\(path): cannot write: \(error.localizedDescription)")
        }
    }
}

extension FileIO {
    /// An INPUT read a chunk at a time — a file, a FIFO or standard input — for conversions
    /// that stream; ``rest(limit:)`` turns it back into a whole input for those that do not.
    final class ChunkedInput {
        let path: String
        private let handle: FileHandle
        /// The first chunk, read when the input is opened (formats are told by it).
        private(set) var first = Data()
        private var firstTaken = false
        /// The input's size when it is a regular file (for progress), else `nil`.
        let size: Int?
        static let chunkSize = 1 << 20

        /// Opens an input and reads its first chunk.
        /// - Throws: ``CLIFailure`` as ``FileIO/read(_:limit:)`` does for a missing file or a directory.
        init(_ path: String) throws {
            self.path = path
            if path == "-" {
                handle = FileHandle.standardInput
                size = nil
            } else {
                var info = stat()
                guard stat(path, &info) == 0 else {
                    let code = errno
                    if code == ENOENT || code == ENOTDIR { throw CLIFailure("\(path): no such file") }
                    throw CLIFailure("\(path): cannot read: \(String(cString: strerror(code)))")
                }
                guard info.st_mode & S_IFMT != S_IFDIR else { throw CLIFailure("\(path): is a directory, expected a file") }
                guard let opened = FileHandle(forReadingAtPath: path) else {
                    throw CLIFailure("\(path): cannot read: \(String(cString: strerror(errno)))")
                }
                handle = opened
                size = info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : nil
            }
            first = try read()
            if path == "-" { try FileIO.refuseStore(onStandardInput: first) }
        }

        deinit {
            if path != "-" { try? handle.close() }
        }

        private func read() throws -> Data {
            do {
                return try handle.read(upToCount: Self.chunkSize) ?? Data()
            } catch {
                throw CLIFailure("\(path == "-" ? "<stdin>" : path): cannot read: \(error.localizedDescription)")
            }
        }

        /// The next chunk (the first one first), or `nil` at the end.
        /// - Throws: ``PFCore/PFError`` with code `io` when reading fails.
        func next() throws(PFError) -> Data? {
            if !firstTaken {
                firstTaken = true
                return first.isEmpty ? nil : first
            }
            do {
                let chunk = try handle.read(upToCount: Self.chunkSize) ?? Data()
                return chunk.isEmpty ? nil : chunk
            } catch {
                throw PFError(CommandLineFailure.cannotRead(reason: error.localizedDescription), format: .input)
            }
        }

        /// The whole input, for a conversion that does not stream: a file is read again
        /// (mapped), standard input or a FIFO goes on from where it is, within `limit`.
        /// - Throws: ``CLIFailure`` as ``FileIO/read(_:limit:)`` does.
        func rest(limit: Int) throws -> Data {
            if size != nil { return try FileIO.read(path, limit: limit) }
            var data = first
            guard data.count <= limit else { throw CLIFailure(file: path, PFLimits.exceeded("maxInputBytes", limit, format: .input)) }
            while true {
                let chunk = try read()
                if chunk.isEmpty { return data }
                data.append(chunk)
                if data.count > limit { throw CLIFailure(file: path, PFLimits.exceeded("maxInputBytes", limit, format: .input)) }
            }
        }
    }
}

extension FileIO {
    /// A gzip or zlib input's decompressed bytes, about a mebibyte at a time, for the record
    /// routes: the compressed chunks of a ``ChunkedInput`` go through one ``PFCompression/Inflater``
    /// under the read's limits (`maxDecompressedBytes`, `maxCompressionRatio`), so neither the
    /// compressed nor the decompressed input is ever whole in memory.
    ///
    /// The compressed bytes are fed in small slices and inflation stops once a chunk is full,
    /// so one chunk is at most a mebibyte plus what one slice inflates to (a slice of 16 KiB
    /// at the ratio limit), whatever the input claims. The end of the input is handed on only
    /// after the inflater has checked the stream's end (a truncated stream is its error, not
    /// the reader's on a cut record).
    final class InflatingInput {
        /// Compressed bytes fed to the inflater at a time.
        static let sliceSize = 16 << 10

        private let source: ChunkedInput
        private let inflater: Inflater
        /// Compressed bytes read from the source and not yet fed.
        private var compressed = Data()
        private var fed = 0
        /// Compressed bytes read from the source so far.
        private var readBytes = 0
        private var ended = false

        /// The decompressed start of `source` (at most about a mebibyte), to tell the
        /// format by, or `nil` when its first chunk does not inflate (bytes that only look
        /// like zlib, a corrupt or truncated start: the whole read decides) or inflates to
        /// nothing. Reads nothing past the source's first chunk.
        static func start(of source: ChunkedInput, format: CompressionFormat, limits: PFLimits) -> Data? {
            guard let inflater = try? Inflater(format: format, limits: limits) else { return nil }
            var plain = Data()
            var offset = source.first.startIndex
            do {
                while offset < source.first.endIndex && plain.count < ChunkedInput.chunkSize {
                    let end = min(offset + sliceSize, source.first.endIndex)
                    try inflater.process(source.first[offset..<end]) { plain.append(contentsOf: $0) }
                    offset = end
                }
                if offset == source.first.endIndex && source.first.count < ChunkedInput.chunkSize { try inflater.finish() }
            } catch {
                return nil
            }
            return plain.isEmpty ? nil : plain
        }

        /// Inflates `source` from its first chunk on.
        init(_ source: ChunkedInput, format: CompressionFormat, limits: PFLimits) throws(PFError) {
            self.source = source
            self.inflater = try Inflater(format: format, limits: limits)
        }

        /// The next chunk of decompressed bytes, or `nil` once the stream has ended where
        /// the input does.
        /// - Throws: ``PFCore/PFError`` from the inflater (corrupt data, a limit, a truncated
        ///   stream, bytes after it) with its offset in the compressed input, or from reading.
        func next() throws(PFError) -> Data? {
            var plain = Data()
            while plain.count < ChunkedInput.chunkSize && !ended {
                if fed == compressed.count {
                    guard let chunk = try source.next() else {
                        try inflater.finish()
                        ended = true
                        break
                    }
                    readBytes += chunk.count
                    compressed = chunk
                    fed = 0
                }
                let start = compressed.startIndex + fed
                let end = min(start + Self.sliceSize, compressed.endIndex)
                do {
                    try inflater.process(compressed[start..<end]) { plain.append(contentsOf: $0) }
                } catch {
                    throw try exactTrailing(error)
                }
                fed = end - compressed.startIndex
            }
            return plain.isEmpty ? nil : plain
        }

        /// The error the rest of the stream holds, if any, for a conversion that failed
        /// first: the whole read inflates everything before reading a record, so a corrupt
        /// stream (whose bad bytes may have reached a record before zlib's check) or a limit
        /// is reported as it reports it. Inflates the rest, keeping nothing.
        func errorAhead() -> PFError? {
            do {
                while try next() != nil {}
                return nil
            } catch {
                return error
            }
        }

        /// A chunk shows only a lower bound of the bytes after the stream; the whole read
        /// counts them all: so does this, by reading the rest of the input (keeping nothing).
        private func exactTrailing(_ error: PFError) throws(PFError) -> PFError {
            guard case .trailing(let format, _, exact: false)? = error.failure(as: CompressionFailure.self),
                let offset = error.location?.offset
            else { return error }
            while let chunk = try source.next() { readBytes += chunk.count }
            return PFError(
                CompressionFailure.trailing(format, count: readBytes - offset, exact: true), format: error.format, offset: offset)
        }
    }
}
