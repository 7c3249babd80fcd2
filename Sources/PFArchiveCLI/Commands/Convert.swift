import ArgumentParser
import Foundation
import PFArchive

/// `pfarchive convert`: reads one format and writes another.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert between JSON, binary and XML property lists, CBOR, keyed archives and typedstreams.",
        discussion: """
            The input format is detected from its bytes (gzip or zlib compression is undone \
            first); the output format comes from --to or the output's extension (.json, \
            .bplist, .plist/.xml, .cbor, with .gz or .zz for compression). The output is \
            written to a temporary file and renamed, so a failed conversion never leaves a \
            partial file (a device or FIFO such as /dev/stdout is written in place).

            Examples:
              pfarchive convert scores.json scores.bplist
              pfarchive convert scores.bplist - --to json --pretty
              pfarchive convert data.cbor data.json.gz
              cat in.plist | pfarchive convert - out.cbor --compress zlib
              pfarchive convert data.archive - --from keyed --pretty
              pfarchive convert graph.json graph.archive --to keyed --container xmlplist
              pfarchive convert GameScore.json - --from parse --to parse --pretty
              pfarchive convert blob.archive - --from keyed --decode-blobs
              pfarchive convert default.realm default.json --pretty
              pfarchive convert chat.db messages.jsonl --table message --decode-blobs \\
                  --date-column message.date=mac-ns

            Any other SQLite database (not a Core Data store, not pfarchive's own store) is \
            written as {"Table": [objects...]}, or with --table T one table as JSON lines (a \
            .jsonl OUTPUT without --table: the only table, else an error naming them); \
            rows are objects with an objectId from the table's key, foreign keys Pointers, \
            and with --decode-blobs the payloads in BLOB and TEXT columns decoded (one warning \
            per value that claims a format and does not decode; --strict stops instead); see \
            Docs/SQLite.md.

            JSON Lines (.jsonl, .ndjson; --to jsonl) and CBOR sequences (.cborseq; --to \
            cborseq) hold one record per line or item. Converting between them, JSON arrays \
            or {"results":[...]} documents and Parse class files (--to parse) streams a record \
            at a time in bounded memory, with progress and throughput on a terminal, and gives \
            the same bytes as a whole-tree conversion; a bad record is named by its line, row \
            or item. A JSON array or {"results":[...]} document, JSON Lines or a CBOR sequence \
            converted to one CBOR document or XML property list is written a record at a time \
            too, and so is a binary property list read from a file or a keyed archive written \
            from a file to a file. Any other JSON document or XML property list over 1 MiB, or \
            binary property list or CBOR document of more than 65,536 values, goes to JSON, CBOR or a property \
            list by its large containers, member by member, with the same output. Other \
            conversions read the whole tree and are refused up front when it would not fit \
            in --max-memory.

              pfarchive convert big.json big.jsonl
              pfarchive convert big.jsonl big.json

            A Realm file (.realm, formats 20-24) is written as {"Class": [objects...]}, or \
            with --table C (or to a .jsonl OUTPUT when it has one class) one class as JSON \
            lines: links as the target's primary key (or \
            _key), embedded objects inline; see Docs/Realm.md.

            With --decode-blobs, data values that hold a property list, keyed archive, \
            typedstream, JSON or CBOR (perhaps compressed) are decoded too, recursively, within \
            the decoding limits; a value that claims to be one and is not stays bytes, with a \
            warning on stderr.
            """
    )

    @Argument(help: "The file to read, or '-' for standard input.")
    var input: String

    @Argument(help: "The file to write, or '-' for standard output.")
    var output: String

    @OptionGroup var reading: ReadingOptions

    @OptionGroup var blobs: BlobDecodingOption

    @OptionGroup var realmKey: RealmKeyOption

    @Option(name: .long, help: "Write this format instead of the one the output's extension implies.")
    var to: DataFormat?

    @Option(name: .long, help: "The container of a keyed archive: bplist (default), xmlplist, json or cbor.")
    var container: DataFormat?

    @Option(name: .long, help: "Compress the output: none, zlib or gzip (default: from the extension, else none).")
    var compress: CompressOption?

    @Flag(name: .long, help: "Indent the output (JSON and XML property lists).")
    var pretty = false

    @Flag(name: .long, help: "Drop null values instead of failing when the output format (a property list) cannot hold them.")
    var dropNulls = false

    @Flag(name: .long, help: "Write deterministic CBOR (RFC 8949 core deterministic encoding).")
    var canonical = false

    @Flag(
        name: .long,
        help: "For a Realm file: also write its internal and sync tables (metadata, pk, __*, flx_*, tables without the class_ prefix). For an SQLite database: also views, virtual, shadow and sqlite_* tables.")
    var internalTables = false

    @Option(name: .long, help: ArgumentHelp("For an SQLite database: write only this table; for a Realm file: only this class. As JSON lines (one object per line).", valueName: "name"))
    var table: String?

    @OptionGroup(title: "SQLite databases") var sqliteTables: SQLiteTableOptions

    @OptionGroup var sqliteDecoding: SQLiteDecodingOptions

    func validate() throws {
        if let container {
            guard to == .keyed || (to == nil && FormatDetector.infer(fromPath: output).format == .keyed) else {
                throw ValidationError("--container applies only to --to keyed.")
            }
            guard [.bplist, .xmlplist, .json, .cbor].contains(container) else {
                throw ValidationError("--container must be bplist, xmlplist, json or cbor.")
            }
        }
        if table != nil {
            guard to == nil else { throw ValidationError("--table writes JSON lines; it cannot be combined with --to.") }
            return
        }
        try FileIO.checkOutputFormat(output, to: to)
    }

    /// `--to`, else the output's extension, else JSON for standard output.
    var outputFormat: DataFormat? { FileIO.outputFormat(output, to: to) }

    /// Whether OUTPUT holds records one after another (JSON Lines, a CBOR sequence).
    var outputIsRecords: Bool { outputFormat == .jsonl || outputFormat == .cborseq }

    /// For a database or Realm file written to a file of records without `--table`: its one
    /// table (or class), written as with `--table`; `nil` when OUTPUT is not such a file.
    /// - Throws: when there are several (or none), naming them: one line per row of every
    ///   table would lose which table a row came from, and one line holding them all is no
    ///   file of records.
    func onlyTableForRecords(_ names: [String], kind: String) throws -> String? {
        guard outputIsRecords else { return nil }
        let plural = kind == "class" ? "classes" : "\(kind)s"
        guard outputFormat == .jsonl else {
            throw CLIFailure("\(output): a CBOR sequence of \(input)'s \(plural) cannot be written; write one \(kind) to a .jsonl file with --table, or the whole file as .cbor")
        }
        if names.count == 1 { return names[0] }
        if names.isEmpty { throw CLIFailure("\(output): \(input) has no \(plural) to write as JSON lines") }
        throw CLIFailure(
            "\(output): JSON lines hold the rows of one \(kind); name it with --table (\(plural): "
                + "\(names.joined(separator: ", "))), or convert to .json for the whole file")
    }

    func run() throws {
        if output != "-" { _ = try FileIO.outputFile(output) }
        let sqliteKind = input == "-" ? .notSQLite : StoreLocation.sqliteKind(of: URL(fileURLWithPath: input))
        switch sqliteKind {
        case .other:
            try convertSQLite(limits: reading.readOptions.limits)
            return
        case .coreData, .pfarchive:
            // A store is read whole; --table is for the tables of other databases.
            if table != nil {
                let what = sqliteKind == .coreData ? "a Core Data store" : "a pfarchive SQLite store"
                throw ValidationError(
                    "--table applies to an SQLite database that is not a store (such as chat.db) and to a Realm file; \(input) is \(what), "
                        + "read whole: for one class as lines, import it with --classes into a .ndjson file.")
            }
            try SQLiteInput.refuse(sqliteTables.given + sqliteDecoding.given, for: [input])
            try convertStore(limits: reading.readOptions.limits)
            return
        case .notSQLite:
            // --table also names a Realm file's class: told by its header before anything is read.
            let header = { () -> Data in
                guard let handle = FileHandle(forReadingAtPath: input) else { return Data() }
                defer { try? handle.close() }
                return (try? handle.read(upToCount: 24)) ?? Data()
            }
            if table != nil, input != "-", FileManager.default.fileExists(atPath: input), !RealmInput.isRealm(input, header(), key: realmKey) {
                throw ValidationError("--table applies to an SQLite database or a Realm file; \(input) is neither.")
            }
            try SQLiteInput.refuse(sqliteTables.given + sqliteDecoding.given, for: [input])
        }
        var readOptions = reading.readOptions(for: input)
        readOptions.decodePayloads = blobs.decodeBlobs
        // Parse class files are named <Class>.json; objects in them carry no className.
        if input != "-" {
            let name = ParseExport.className(forFile: URL(fileURLWithPath: input))
            if ParseRules.classNameProblem(name) == nil { readOptions.parseClassName = name }
        }
        let bytes: Data
        var streamTarget: DataFormat?
        if let to = outputFormat, RecordStream.targets.contains(to), streamsKeyed(to), !reading.lenient, !blobs.decodeBlobs,
            readOptions.format.map({ RecordStream.formats.contains($0) || RecordStream.documentFormats.contains($0) }) ?? true
        {
            // Record formats stream, a record at a time, in bounded memory (no memory budget
            // to check); anything else is read whole below.
            var source = try FileIO.ChunkedInput(input)
            if let from = recordFormat(source.first, options: readOptions),
                RecordStream.canStream(from: from, to: to, pretty: pretty, start: source.first, inputBytes: source.size)
            {
                if try stream(read: source.next, size: source.size, from: from, to: to, options: readOptions) { return }
                // Records a keyed archive cannot hold one at a time: read again, whole.
                source = try FileIO.ChunkedInput(input)
            } else if let compression = Compression.detect(source.first.prefix(16)),
                let start = FileIO.InflatingInput.start(of: source, format: compression, limits: readOptions.limits),
                let from = recordFormat(start, options: readOptions),
                RecordStream.canStream(from: from, to: to, pretty: pretty, start: start)
            {
                // Records in a gzip or zlib file are inflated as they stream: neither the
                // compressed nor the decompressed input is ever whole. (A binary property list
                // or keyed archive output, which needs the input's size, is written from the
                // decompressed bytes by streamWhole.)
                let inflating = try FileIO.InflatingInput(source, format: compression, limits: readOptions.limits)
                do {
                    if try stream(read: inflating.next, size: nil, from: from, to: to, options: readOptions) { return }
                } catch let failure as CLIFailure where failure.message.hasPrefix((input == "-" ? "<stdin>" : input) + ": ") {
                    // The whole read would have met a bad stream first, and said so. (Not
                    // after a failure to write, such as a closed pipe: nothing to read for.)
                    if let ahead = inflating.errorAhead() { throw CLIFailure(file: input, ahead) }
                    throw failure
                }
                source = try FileIO.ChunkedInput(input)
            }
            bytes = try source.rest(limit: readOptions.limits.maxInputBytes)
            streamTarget = to
        } else {
            bytes = try FileIO.read(input, limit: readOptions.limits.maxInputBytes)
        }
        // A Realm file is told by its header before its bytes are taken for any format (a
        // Realm file's first byte can open a CBOR document).
        let isRealm = readOptions.format == nil && RealmInput.isRealm(input, bytes, key: realmKey)
        if table != nil && !isRealm {
            throw ValidationError("--table applies to an SQLite database or a Realm file; \(input) is neither.")
        }
        if isRealm {
            try convertRealm(bytes, options: readOptions)
            return
        }
        CBORUnkeptWarning.show(forInput: bytes, format: readOptions.format, path: input, limits: readOptions.limits,
                               file: input == "-" ? "<stdin>" : input)
        var inflated: Data?
        if try streamWhole(bytes, streamTarget: streamTarget, options: readOptions, inflated: &inflated) { return }
        var progress = Progress(steps: ["reading", "writing"], inputBytes: bytes.count)
        progress.begin("reading")
        let result: FormatIO.ReadResult
        do {
            result = try FormatIO.read(bytes, options: readOptions, inflated: inflated)
        } catch {
            throw CLIFailure(file: input, error)
        }
        progress.finish()
        // The input and the read's result are released before the output is made, and the
        // tree is handed to the writer, which frees it as soon as it has its own form (a
        // keyed archive's graph): they would otherwise stay alive beside the writer's state.
        _ = consume bytes
        let notes = result.payloadNotes
        let value = result.value
        _ = consume result
        BlobDecodingOption.warn(notes, file: input)
        try writeOutput(consume value, parseClassName: readOptions.parseClassName)
        progress.finish()
    }

    /// Writes a value read whole to OUTPUT in the output format, with the command's write
    /// options (a temporary file renamed into place). The one place `convert` writes a tree:
    /// documents, Realm files, SQLite databases and stores all end here.
    func writeOutput(_ value: consuming PFValue, parseClassName: String? = nil, as forced: DataFormat? = nil) throws {
        guard let format = forced ?? outputFormat else { throw CLIFailure("\(output): no output format") }
        let compression = outputCompression
        var writeOptions = FormatIO.WriteOptions(
            pretty: pretty, compression: compression, typedJSON: !reading.noTypedJSON, dropNulls: dropNulls,
            canonicalCBOR: canonical,
            keyedContainer: container.flatMap { KeyedArchiveContainer(rawValue: $0.rawValue) } ?? .bplist)
        writeOptions.parseClassName = parseClassName
        let out: Data
        do {
            out = try FormatIO.write(consume value, as: format, options: writeOptions)
        } catch {
            throw CLIFailure(file: output, isOutput: true, error)
        }
        try FileIO.writeAtomically(out, to: output)
    }

    /// The compression of OUTPUT: `--compress`, else its extension's (`.gz`, `.zz`).
    private var outputCompression: CompressionFormat? {
        compress.map(\.format) ?? FormatDetector.infer(fromPath: output).compression
    }

    /// The record format of an input that may stream a chunk at a time, told by its first
    /// bytes: the format asked for (or named by a `.jsonl`/`.cborseq` extension), else JSON
    /// when the bytes are JSON; `nil` for anything else.
    private func recordFormat(_ start: Data, options: FormatIO.ReadOptions) -> DataFormat? {
        options.format ?? (FormatDetector.detect(start, named: options.namedFormat) == .json ? .json : nil)
    }

    /// Converts a whole input without its tree when a route can: a document of records a record
    /// at a time (``streamDocument(_:from:to:options:)``), any other JSON document, property
    /// list or CBOR document by its large containers (``streamLarge(_:from:to:options:)``), a
    /// keyed archive of records (``streamKeyed(_:to:options:)``). A gzip or zlib input is
    /// decompressed first, once, as the whole route does (``PFSerialization/Serialization/open(_:limits:decompress:inflated:read:)``:
    /// the same limits, its error word for word, bytes that look like zlib but do not inflate
    /// left to it), and its records stream from the decompressed bytes too; memory is then the
    /// decompressed bytes, never the tree.
    /// - Parameters:
    ///   - bytes: the input, whole (mapped, for a file).
    ///   - streamTarget: the output format when the record routes may run (see `run`).
    ///   - readOptions: the read's format and limits.
    ///   - inflated: set to the decompressed bytes of a gzip or zlib input no route took, for
    ///     the whole route to read instead of inflating the input again.
    /// - Returns: `false`, with nothing written, when no route took the input (it is read whole).
    private func streamWhole(
        _ bytes: Data, streamTarget: DataFormat?, options readOptions: FormatIO.ReadOptions, inflated: inout Data?
    ) throws -> Bool {
        guard let to = outputFormat, !blobs.decodeBlobs,
            streamTarget != nil || RecordStream.largeTargets.contains(to) || RecordStream.keyedTargets.contains(to)
        else { return false }
        var plain = bytes
        if let compression = Compression.detect(bytes.prefix(16)) {
            do {
                plain = try Compression.decompress(bytes, from: compression, limits: readOptions.limits)
            } catch {
                // Bytes that look like zlib (a 2-byte guess) but do not inflate may be read as
                // what they are: the whole route decides, and reports its error otherwise.
                guard compression == .gzip || error.code == .limitExceeded else { return false }
                throw CLIFailure(file: input, error)
            }
            inflated = plain
            // Nothing after decompression is the whole route's own error.
            guard !plain.isEmpty else { return false }
            let start = plain.prefix(FileIO.ChunkedInput.chunkSize)
            if let to = streamTarget, let from = recordFormat(start, options: readOptions),
                RecordStream.canStream(from: from, to: to, pretty: pretty, start: start, inputBytes: plain.count)
            {
                var offset = 0
                let read = { [plain] () throws(PFError) -> Data? in
                    guard offset < plain.count else { return nil }
                    let end = min(offset + FileIO.ChunkedInput.chunkSize, plain.count)
                    defer { offset = end }
                    return Data(plain[(plain.startIndex + offset)..<(plain.startIndex + end)])
                }
                if try stream(read: read, size: plain.count, from: from, to: to, options: readOptions) { return true }
            }
        }
        // A binary property list, CBOR document or XML property list of records is read a record at a
        // time from its (mapped) bytes, never as a tree.
        if let to = streamTarget, let document = readOptions.format ?? FormatDetector.detect(plain, named: readOptions.namedFormat),
            RecordStream.documentFormats.contains(document),
            RecordStream.canStream(document: plain, from: document, to: to, pretty: pretty, limits: readOptions.limits),
            try streamDocument(plain, from: document, to: to, options: readOptions)
        {
            return true
        }
        // Any other JSON document, binary or XML property list, CBOR document or typedstream
        // goes to JSON, CBOR, a property list, a keyed archive or a typedstream by its large
        // containers, member by member, never as a tree.
        if RecordStream.largeTargets.contains(to), streamsKeyed(to), !reading.lenient,
            let from = readOptions.format ?? FormatDetector.detect(plain, named: readOptions.namedFormat),
            RecordStream.largeFormats.contains(from),
            // A typedstream's conversion can fail after its walk has begun writing (a limit met
            // while converting), and a typedstream's writing can find a large dictionary it does
            // not write as the whole route does (a `$id`, `$ref` or `$class` key) after writing
            // part of it: only a file's temporary output is then removed unseen.
            (from != .typedstream && to != .typedstream) || output != "-",
            Compression.detect(plain.prefix(16)) == nil,
            try streamLarge(plain, from: from, to: to, options: readOptions)
        {
            return true
        }
        // A keyed archive whose graph is an array of records (or a results wrapper) goes to
        // a record format or a whole CBOR document or property list a record at a time from
        // its (mapped) bytes, and any other graph to JSON, CBOR, a property list, a keyed
        // archive or a typedstream by its large containers: no table, graph or tree.
        if RecordStream.keyedTargets.contains(to) || RecordStream.largeTargets.contains(to), streamsKeyed(to),
            (readOptions.format ?? FormatDetector.detect(plain, named: readOptions.namedFormat)) == .keyed,
            // A typedstream may be abandoned part written (see above): to a file only.
            to != .typedstream || output != "-",
            try streamKeyed(plain, to: to, options: readOptions)
        {
            return true
        }
        return false
    }

    /// Whether a conversion to `to` may stream as far as a keyed archive is concerned: one
    /// is written a record at a time only in a binary property list, and only to a file
    /// (records it cannot hold one at a time send it back to the whole route, which needs
    /// the output not yet written).
    private func streamsKeyed(_ to: DataFormat) -> Bool {
        to != .keyed || (output != "-" && (container ?? .bplist) == .bplist)
    }

    /// Runs a streamed conversion, returning `false` when it declined (``RecordStream``'s
    /// `doesNotStream`: a keyed archive's records tied by `$id`s, a keyed archive that is not
    /// of records, a JSON document not walked by its large containers), having written nothing.
    private func declinable(_ body: () throws -> Void) throws -> Bool {
        do {
            try body()
        } catch let failure as CLIFailure where failure.declinedStream {
            return false
        }
        return true
    }

    /// The stream options of a conversion from a whole document in memory (or mapped).
    private func documentStreamOptions(_ bytes: Data, from: DataFormat, to: DataFormat, options: FormatIO.ReadOptions)
        -> RecordStream.Options
    {
        var streamOptions = RecordStream.Options(
            from: from, to: to, typedJSON: !reading.noTypedJSON, canonicalCBOR: canonical, limits: options.limits,
            parseClassName: options.parseClassName, inputName: input)
        streamOptions.dropNulls = dropNulls
        streamOptions.inputBytes = bytes.count
        return streamOptions
    }

    /// Converts a binary property list, CBOR document or XML property list a record at a time
    /// (``RecordStream/convert(options:document:write:progress:)``), written as ``stream(_:from:to:options:)`` writes;
    /// `false`, with nothing written, when it declined.
    private func streamDocument(_ bytes: Data, from: DataFormat, to: DataFormat, options: FormatIO.ReadOptions) throws -> Bool {
        let streamOptions = documentStreamOptions(bytes, from: from, to: to, options: options)
        var bar = CountingProgress()
        let report = { (state: RecordStream.Progress) in bar.update(done: state.records, total: nil, label: "records") }
        defer { bar.clear() }
        return try declinable { try writeStreamed(
            toOutput: { write throws(PFError) in
                try RecordStream.convert(options: streamOptions, document: bytes, write: write, progress: report)
            },
            toFile: { write throws(PFError) in
                try RecordStream.convert(options: streamOptions, document: bytes, write: write, progress: report)
            }) }
    }

    /// Converts a keyed archive's records, or any other graph by its large containers
    /// (``RecordStream/convert(options:keyedArchive:allowedClasses:threshold:write:progress:)``),
    /// written as ``stream(_:from:to:options:)`` writes; `false`, with nothing written, when
    /// the archive is converted whole instead.
    private func streamKeyed(_ bytes: Data, to: DataFormat, options: FormatIO.ReadOptions) throws -> Bool {
        var streamOptions = documentStreamOptions(bytes, from: .keyed, to: to, options: options)
        streamOptions.pretty = pretty
        var bar = CountingProgress()
        let report = { (state: RecordStream.Progress) in bar.update(done: state.records, total: nil, label: "values") }
        defer { bar.clear() }
        let convert = { (write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) in
            let done = try RecordStream.convert(
                options: streamOptions, keyedArchive: bytes, allowedClasses: options.allowedClasses, write: write, progress: report)
            // Not of records: the (temporary) output is abandoned and the whole route runs.
            guard done != nil else {
                throw PFError(FormatsFailure.doesNotStream(from: DataFormat.keyed.rawValue, to: to.rawValue), format: .input)
            }
        }
        return try declinable {
            // A writer's error names OUTPUT, as the whole route's does: the archive's reading
            // errors are the keyed archive's or have a byte offset, its writers' neither.
            try writeStreamed(
                toOutput: { write throws(PFError) in try convert(write) }, toFile: { write throws(PFError) in try convert(write) },
                isOutputError: { error in error.format != .keyedArchive && error.location == nil })
        }
    }

    /// Converts a JSON document, binary or XML property list or CBOR document by its large containers
    /// (``RecordStream/convert(options:largeDocument:threshold:write:progress:)``), written as
    /// ``stream(_:from:to:options:)`` writes; `false`, with nothing written, when the document
    /// is read whole instead.
    private func streamLarge(_ bytes: Data, from: DataFormat, to: DataFormat, options: FormatIO.ReadOptions) throws -> Bool {
        var streamOptions = documentStreamOptions(bytes, from: from, to: to, options: options)
        streamOptions.pretty = pretty
        var bar = CountingProgress()
        let report = { (state: RecordStream.Progress) in bar.update(done: state.records, total: nil, label: "values") }
        defer { bar.clear() }
        let convert = { (write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) in
            // Declined (no large root, or the whole read is needed): nothing was written.
            guard try RecordStream.convert(options: streamOptions, largeDocument: bytes, write: write, progress: report) != nil else {
                throw PFError(FormatsFailure.doesNotStream(from: from.rawValue, to: to.rawValue), format: .input)
            }
        }
        return try declinable {
            // A writer's error names OUTPUT, as the whole route's does: a property list's or
            // CBOR document's reading errors all have a byte offset, its writers' none.
            try writeStreamed(
                toOutput: { write throws(PFError) in try convert(write) }, toFile: { write throws(PFError) in try convert(write) },
                isOutputError: { error in from != .json ? error.location == nil : to != .json && error.format != .json })
        }
    }

    /// Converts a record at a time (``RecordStream``), with progress and throughput on a
    /// terminal; the output is written to a temporary file and renamed, as every output is.
    /// - Returns: `false`, with nothing written, when the stream declined.
    private func stream(
        read: @escaping () throws(PFError) -> Data?, size: Int?, from: DataFormat, to: DataFormat, options: FormatIO.ReadOptions
    ) throws -> Bool {
        var streamOptions = RecordStream.Options(
            from: from, to: to, typedJSON: !reading.noTypedJSON, canonicalCBOR: canonical, limits: options.limits,
            parseClassName: options.parseClassName, inputName: input)
        streamOptions.dropNulls = dropNulls
        streamOptions.inputBytes = size
        var bar = CountingProgress()
        let started = Date()
        let total = size.map { $0 >> 20 }
        var last = RecordStream.Progress()
        let report = { (state: RecordStream.Progress) in
            last = state
            let seconds = max(Date().timeIntervalSince(started), 0.001)
            let rate = Int(Double(state.bytesRead) / seconds) >> 20
            bar.update(done: state.bytesRead >> 20, total: total, label: "MiB read, \(state.records) records, \(rate) MiB/s")
        }
        defer { bar.clear() }
        let streamed = try declinable { try writeStreamed(
            toOutput: { write throws(PFError) in
                try RecordStream.convert(options: streamOptions, read: read, write: write, progress: report)
            },
            toFile: { write throws(PFError) in
                try RecordStream.convert(options: streamOptions, read: read, write: write, progress: report)
            }) }
        if streamed {
            bar.clear()
            CBORUnkeptWarning.show(tags: last.cborTags, undefinedValues: last.cborUndefinedValues, file: input == "-" ? "<stdin>" : input)
        }
        return streamed
    }

    /// Runs a streamed conversion into OUTPUT: standard output (`toOutput`, given a writer
    /// of it), or a temporary file renamed into place once the conversion succeeds
    /// (`toFile`; a failure leaves nothing behind). A `.gz`/`.zz` output (or `--compress`)
    /// is compressed on the way by a streaming ``PFCompression/Deflater`` at the whole
    /// route's level, so its bytes are the whole route's compressed output.
    private func writeStreamed(
        toOutput: (_ write: @escaping (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) -> Void,
        toFile: (_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) -> Void,
        isOutputError: (PFError) -> Bool = { _ in false }
    ) throws {
        // A failure to write standard output is the CLI's own one-line error, not the input's.
        final class Failure: @unchecked Sendable { var error: Error? }
        let outputFailure = Failure()
        do {
            let deflater = try outputCompression.map { format throws(PFError) in try Deflater(format: format) }
            if output == "-" {
                let write = { (bytes: UnsafeRawBufferPointer) throws(PFError) in
                    do { try StandardOutput.write(Data(bytes)) } catch {
                        outputFailure.error = error
                        throw PFError(CommandLineFailure.outputFailed(output: "standard output"), format: .output)
                    }
                }
                guard let deflater else { return try toOutput(write) }
                try toOutput { bytes throws(PFError) in try deflater.process(bytes, output: write) }
                try deflater.finish(output: write)
            } else {
                let url = try FileIO.outputFile(output)
                guard let deflater else { return try Destination.writeFile(to: url, format: .output, name: output, toFile) }
                try Destination.writeFile(to: url, format: .output, name: output) { write throws(PFError) in
                    // The file's writer is called only from inside this call, never later.
                    try withoutActuallyEscaping(write) { (write) throws(PFError) in
                        try withoutActuallyEscaping(toFile) { (toFile) throws(PFError) in
                            try toFile { bytes throws(PFError) in try deflater.process(bytes, output: write) }
                        }
                        try deflater.finish(output: write)
                    }
                }
            }
        } catch let error as PFError {
            if let failure = outputFailure.error { throw failure }
            if error.format == .output { throw CLIFailure(error.message) }
            if isOutputError(error) { throw CLIFailure(file: output, isOutput: true, error) }
            throw CLIFailure(file: input, error)
        }
    }
}
