import Foundation
import PFCore

/// Reads a file one line at a time through a fixed-size chunk buffer, so memory is bounded by
/// the longest line, not by the file (mongoexport writes one document per line).
struct MongoLineReader {
    /// One line: its bytes without the newline (and without a trailing `\r`), its 1-based
    /// number and the byte offset where it starts.
    struct Line {
        var number: Int
        var offset: Int
    }

    let url: URL
    let displayName: String
    let maxLineBytes: Int
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var scanned = 0
    private var atEOF = false
    private var lineNumber = 0
    private var offset = 0
    static let chunkSize = 1 << 20

    /// Opens a file.
    /// - Throws: ``PFCore/PFError`` with code `io` when it cannot be opened.
    init(url: URL, displayName: String, maxLineBytes: Int) throws(PFError) {
        self.url = url
        self.displayName = displayName
        self.maxLineBytes = maxLineBytes
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw PFError(StoreFailure.cannotOpen(path: displayName, reason: error.localizedDescription), format: MongoShapeStore.format)
        }
    }

    func close() { try? handle.close() }

    /// Calls `body` with the next line, or returns `false` at the end of the file.
    /// - Throws: ``PFCore/PFError`` with code `limitExceeded` naming the line when a line is
    ///   longer than `maxLineBytes`, `io` when reading fails, or what `body` throws.
    mutating func next(_ body: (UnsafeRawBufferPointer, Line) throws(PFError) -> Void) throws(PFError) -> Bool {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                try deliver(upTo: newline, consumed: newline + 1, body)
                return true
            }
            scanned = buffer.count
            if atEOF {
                guard start < buffer.count else { return false }
                try deliver(upTo: buffer.count, consumed: buffer.count, body)
                return true
            }
            if buffer.count - start > maxLineBytes {
                throw PFError(
                    StoreFailure.lineTooLong(file: displayName, line: lineNumber + 1, maxBytes: maxLineBytes, hint: true), format: MongoShapeStore.format,
                    location: PFError.Location(offset: offset, line: lineNumber + 1, column: 1))
            }
            try fill()
        }
    }

    private mutating func deliver(
        upTo end: Int, consumed: Int, _ body: (UnsafeRawBufferPointer, Line) throws(PFError) -> Void
    ) throws(PFError) {
        lineNumber += 1
        var stop = end
        if stop > start, buffer[stop - 1] == 0x0D { stop -= 1 }
        var from = start
        // A UTF-8 byte order mark at the start of the file is not part of the document.
        if lineNumber == 1, stop - from >= 3, buffer[from] == 0xEF, buffer[from + 1] == 0xBB, buffer[from + 2] == 0xBF {
            from += 3
        }
        guard stop - start <= maxLineBytes else {
            throw PFError(
                StoreFailure.lineTooLong(file: displayName, line: lineNumber, maxBytes: maxLineBytes, hint: false), format: MongoShapeStore.format,
                location: PFError.Location(offset: offset, line: lineNumber, column: 1))
        }
        let line = Line(number: lineNumber, offset: offset + (from - start))
        let result = Result { () throws(PFError) in
            try buffer.withBytes { raw throws(PFError) in try body(UnsafeRawBufferPointer(rebasing: raw[from..<stop]), line) }
        }
        offset += consumed - start
        start = consumed
        scanned = consumed
        try result.get()
    }

    private mutating func fill() throws(PFError) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        let chunk: Data?
        do {
            chunk = try handle.read(upToCount: Self.chunkSize)
        } catch {
            throw PFError(StoreFailure.cannotRead(path: displayName, after: offset, reason: error.localizedDescription), format: MongoShapeStore.format)
        }
        guard let chunk, !chunk.isEmpty else {
            atEOF = true
            return
        }
        buffer.append(contentsOf: chunk)
    }
}
