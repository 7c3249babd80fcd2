import Foundation
import PFCBOR
import PFCore
import PFJSON
import PFPropertyList
import PFSerialization
import PFTypedStream

// MARK: - Documents walked by their large containers

extension RecordStream {
    /// The outputs a document is written to by its large containers
    /// (``convert(options:largeDocument:threshold:write:progress:)``).
    public static let largeTargets: Set<DataFormat> = [.json, .cbor, .xmlplist, .bplist, .keyed, .typedstream]

    /// Whether `to` is written from a walk only when the input's size is known: a binary
    /// property list's and a keyed archive's reference width comes from it.
    static func needsInputSize(_ to: DataFormat) -> Bool { to == .bplist || to == .keyed }

    /// The inputs walked by their large containers: JSON text, binary and XML property lists,
    /// CBOR documents and typedstreams (a typedstream to every large target but deterministic
    /// CBOR, whose members are sorted).
    public static let largeFormats: Set<DataFormat> = [.json, .bplist, .xmlplist, .cbor, .typedstream]

    /// The span (in bytes of JSON or XML property list text) above which a container is walked
    /// member by member rather than read whole; a binary property list's or CBOR document's is
    /// ``PFCore/PFDocumentEmitter/largeNodes`` (nodes of its expanded tree).
    public static let largeThreshold = 1 << 20

    /// Converts a JSON document, binary or XML property list or CBOR document that is not a
    /// sequence of records — a GeoJSON feature collection, an object of large maps, an export
    /// wrapped at any depth, an iTunes library — without building its tree: every container
    /// larger than `threshold` is walked member by member (``PFJSON/JSONLargeDocument``,
    /// ``PFPropertyList/BinaryPlistReader/walk(_:threshold:keyOrder:visit:)``,
    /// ``PFPropertyList/XMLPlistReader/walk(_:threshold:keyOrder:visit:)``,
    /// ``PFCBOR/CBORReader/walk(_:threshold:keyOrder:visit:)``),
    /// each of its other members is read whole and written by the format's own emitter at
    /// its depth, so memory is the input's pages, the largest piece times the nesting, and
    /// what the output format keeps (a binary property list's object offsets and the
    /// references of each large container's children; a binary property list input's node
    /// counts, four bytes an object; an XML property list input's key hashes, eight bytes a
    /// key of the dictionaries open during its check; a CBOR input's large containers and
    /// shareable values, a few words each). The output is the whole route's byte for byte (JSON,
    /// compact or `pretty`; CBOR; XML property list; typedstream), or, for a binary property
    /// list, a file that reads back to the same value (its objects are numbered in another
    /// order), and for a keyed archive an archive in ``PFKeyedArchive/KeyedArchiveStreamWriter``'s
    /// layout that reads back to the same value (a large container that is one of the keyed JSON
    /// form's markers, or a `$id` two pieces share, throws ``FormatsFailure/doesNotStream(from:to:)``:
    /// archive the document whole). A typedstream (``PFTypedStream/TypedStreamEventWriter``) whose
    /// large dictionary the whole route writes otherwise throws `doesNotStream` too, after part
    /// of the output was written: abandon it and convert whole.
    /// The input is checked whole first, with the whole read's checks and errors, so a
    /// reading error comes before anything is written.
    /// - Parameters:
    ///   - options: `from` is `json`, `bplist`, `xmlplist`, `cbor` or `typedstream`; `to` is
    ///     `json`, `cbor`, `xmlplist`, `bplist`, `keyed` or `typedstream` (not from a
    ///     typedstream); typed JSON, `pretty`, `dropNulls`, `canonicalCBOR`, `limits` and
    ///     `inputBytes` (for a binary property list or keyed archive output) as the whole route
    ///     takes them.
    ///   - bytes: the document (mapped, for a file).
    ///   - threshold: the size above which a container is walked: bytes of JSON or XML text,
    ///     nodes of a binary property list's or CBOR document's expanded tree (`nil`:
    ///     ``largeThreshold``, ``PFCore/PFDocumentEmitter/largeNodes``; tests make it small).
    ///   - write: receives the output in chunks of about a mebibyte.
    ///   - progress: called now and then with the pieces (values read whole) written so far.
    /// - Returns: the bytes read and the pieces written, or `nil`, having written nothing,
    ///   when the document has no large root container, does not validate (JSON), is larger
    ///   than `limits.maxInputBytes`, or needs the whole read (convert it whole; the whole read
    ///   reports its errors).
    /// - Throws: ``PFCore/PFError`` as the whole route reads and writes, with the key path from
    ///   the root (a reading error before a writing one, as reading precedes writing there),
    ///   and from `write`.
    @discardableResult
    public static func convert(
        options: Options, largeDocument bytes: Data, threshold: Int? = nil,
        write: (UnsafeRawBufferPointer) throws(PFError) -> Void, progress: ((Progress) -> Void)? = nil
    ) throws(PFError) -> Progress? {
        // An input over the limit is the whole route's error (the input's, not a format's).
        guard largeTargets.contains(options.to), largeFormats.contains(options.from), !needsInputSize(options.to) || options.inputBytes != nil,
            bytes.count <= options.limits.maxInputBytes,
            // A typedstream is rewritten whole: its walk's `$id`s would make it decline anyway.
            options.from != .typedstream || options.to != .typedstream
        else { return nil }
        var sink = Sink(options: options)
        var pieces = 0
        func take(_ event: PFDocumentEvent) throws(PFError) {
            if case .value = event {
                pieces += 1
                if pieces & 0xFFF == 0 { progress?(Progress(bytesRead: 0, records: pieces)) }
            }
            try sink.take(event, write)
        }
        let keyOrder = options.to == .cbor && options.canonicalCBOR ? sink.cborKeyOrder : nil
        switch options.from {
        case .bplist:
            let reader = BinaryPlistReader(options: .init(limits: options.limits))
            guard try reader.walk(bytes, threshold: threshold ?? PFDocumentEmitter.largeNodes, keyOrder: keyOrder, visit: take)
            else { return nil }
        case .xmlplist:
            let reader = XMLPlistReader(options: .init(limits: options.limits))
            guard try reader.walk(bytes, threshold: threshold ?? largeThreshold, keyOrder: keyOrder, visit: take) else { return nil }
        case .cbor:
            let reader = CBORReader(options: .init(limits: options.limits))
            guard try reader.walk(bytes, threshold: threshold ?? PFDocumentEmitter.largeNodes, keyOrder: keyOrder, visit: take)
            else { return nil }
        case .typedstream:
            // Members are converted in the stream's order (`$id`s and errors depend on it), so a
            // deterministic map, whose members are sorted, is converted whole.
            guard keyOrder == nil else { return nil }
            do throws(PFError) {
                guard try TypedStream.walk(bytes, limits: options.limits, threshold: threshold ?? largeThreshold, visit: take)
                else { return nil }
            } catch {
                // A typedstream's values are not bounded by its bytes as other inputs' are (a
                // one-byte reference becomes `{"$ref": n}`, a generic object's group a dictionary
                // of its types and values): past the reference width the input's size gave a
                // binary property list or keyed archive, the stream is converted whole.
                if needsInputSize(options.to), case .tooManyObjects? = error.failure(as: BinaryPlistFailure.self) {
                    throw Sink.declined(options)
                }
                throw error
            }
        default:
            let readOptions = JSONReader.Options(mode: .strict, typedValues: options.typedJSON, limits: options.limits)
            let walked = try bytes.withBytes { raw throws(PFError) -> Bool in
                guard var document = JSONLargeDocument.scan(raw, options: readOptions, threshold: threshold ?? largeThreshold)
                else { return false }
                document.keyOrder = keyOrder
                try document.walk(take)
                return true
            }
            guard walked else { return nil }
        }
        try sink.flush(write)
        return Progress(bytesRead: bytes.count, records: pieces)
    }

    /// A large container being written: its kind, the members written so far, the key of the
    /// next member, whether an XML element was opened, and a binary property list's references.
    struct LargeFrame {
        var isObject: Bool
        var members = 0
        var key: String?
        var opened = false
        var keyRefs: [Int] = []
        var valueRefs: [Int] = []
    }
}

extension RecordStream.Sink {
    /// The depth of the next value: the large containers around it.
    private var depth: Int { frames.count }

    /// Writes what a walk met, flushing a mebibyte at a time.
    mutating func take(_ event: PFDocumentEvent, _ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        if typedStream != nil {
            // The whole route writes this document otherwise, or fails on it: what was
            // written is abandoned and the document converted whole.
            guard typedStream?.take(event) == true else { throw Self.declined(options) }
            if (typedStream?.pending ?? 0) >= 1 << 20 { try flush(write) }
            return
        }
        switch event {
        case .open(let isObject, let count): try openLarge(isObject: isObject, count: count)
        case .key(let key):
            if let keyed {
                try Self.declining(options) { () throws(PFError) in try keyed.setKey(key) }
            } else {
                frames[frames.count - 1].key = key
            }
        case .value(let value): try addLarge(value)
        case .close: try closeLarge(write)
        }
        if let keyed {
            try keyed.flush(write)
        } else if buffer.count >= 1 << 20 {
            try flush(write)
        }
    }

    /// The member order of a deterministic CBOR map, given its keys: their encodings by
    /// length, then bytewise.
    var cborKeyOrder: ([String]) -> [Int] {
        let keys = cbor
        return { names in
            let encoded = names.map { name in (try? keys.write(.string(name))).map(Array.init) ?? [] }
            return names.indices.sorted { a, b in
                let (x, y) = (encoded[a], encoded[b])
                return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
            }
        }
    }

    /// JSON: the separator, the line break and indentation (pretty), and the key, before a member.
    private mutating func beginJSONMember() throws(PFError) {
        guard let last = frames.indices.last else { return }
        if frames[last].members > 0 { buffer.append(UInt8(ascii: ",")) }
        frames[last].members += 1
        if options.pretty {
            buffer.append(0x0A)
            buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        if let key = frames[last].key {
            try json.write(.string(key), into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            if options.pretty { buffer.append(UInt8(ascii: " ")) }
            frames[last].key = nil
        }
    }

    /// CBOR: the key's encoding before a member of a map.
    private mutating func beginCBORMember() throws(PFError) {
        guard let last = frames.indices.last, let key = frames[last].key else { return }
        buffer.append(contentsOf: try cbor.write(.string(key)))
        frames[last].key = nil
    }

    /// XML: opens the elements of the large containers around the next line (an array or
    /// dictionary whose members are all dropped nulls is written `<array/>`, so each opens
    /// at its first member).
    private mutating func openXMLElements(upTo count: Int) {
        for k in 0..<count where !frames[k].opened {
            frames[k].opened = true
            buffer.append(contentsOf: repeatElement(0x09, count: k))
            buffer.append(contentsOf: (frames[k].isObject ? "<dict>\n" : "<array>\n").utf8)
        }
    }

    /// XML: the open elements around a member and its key line.
    private mutating func beginXMLMember() throws(PFError) {
        openXMLElements(upTo: frames.count)
        guard let last = frames.indices.last, let key = frames[last].key else { return }
        buffer.append(contentsOf: try xml.keyLine(key, indent: depth))
        frames[last].key = nil
    }

    /// Opens a large container at the current place.
    mutating func openLarge(isObject: Bool, count: Int) throws(PFError) {
        switch options.to {
        case .json:
            try beginJSONMember()
            buffer.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        case .cbor:
            try beginCBORMember()
            buffer.append(contentsOf: isObject ? CBORWriter.mapHead(count: count) : CBORWriter.arrayHead(count: count))
        case .xmlplist:
            if frames.isEmpty { buffer.append(contentsOf: XMLPlistWriter.header) } else { try beginXMLMember() }
        case .keyed:
            let depth = self.depth
            try keyed?.openContainer(isObject: isObject, count: count, depth: depth)
        default:
            break
        }
        frames.append(RecordStream.LargeFrame(isObject: isObject))
    }

    /// Writes a value read whole at the current place.
    mutating func addLarge(_ value: PFValue) throws(PFError) {
        switch options.to {
        case .json:
            try beginJSONMember()
            guard options.pretty else { return try json.write(value, into: &buffer) }
            // The tree writer's indented text of the value, each line indented to its depth.
            let text = try JSONWriter(options: .init(pretty: true, typedValues: options.typedJSON)).write(value)
            let indent = [UInt8](repeating: UInt8(ascii: " "), count: 2 * depth)
            for byte in text.dropLast() {
                buffer.append(byte)
                if byte == 0x0A { buffer.append(contentsOf: indent) }
            }
        case .cbor:
            try beginCBORMember()
            var limits = PFLimits.default
            limits.maxDepth = max(0, limits.maxDepth - depth)
            buffer.append(contentsOf: try CBORWriter(options: .init(canonical: options.canonicalCBOR, limits: limits)).write(value))
        case .xmlplist:
            if options.dropNulls, case .null = value {
                frames[frames.count - 1].key = nil
                return
            }
            try beginXMLMember()
            buffer.append(contentsOf: try xml.element(value, indent: depth))
        case .keyed:
            guard let keyed else { return }
            let depth = self.depth
            try Self.declining(options) { () throws(PFError) in try keyed.appendValue(value, depth: depth) }
        default:
            if options.dropNulls, case .null = value {
                frames[frames.count - 1].key = nil
                return
            }
            let ref = try plist.write(value, depth: depth, into: &buffer)
            try addPlistMember(ref)
        }
    }

    /// A binary property list: keeps a written member's number (and its key's) in its container.
    private mutating func addPlistMember(_ ref: Int) throws(PFError) {
        let last = frames.count - 1
        if let key = frames[last].key {
            frames[last].keyRefs.append(try plist.write(.string(key), depth: depth, into: &buffer))
            frames[last].key = nil
        }
        frames[last].valueRefs.append(ref)
    }

    /// Closes the innermost large container (and, after the root, the document).
    mutating func closeLarge(_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) {
        guard let frame = frames.popLast() else { return }
        switch options.to {
        case .json:
            if options.pretty && frame.members > 0 {
                buffer.append(0x0A)
                buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
            }
            buffer.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            if frames.isEmpty && options.pretty { buffer.append(0x0A) }
        case .cbor:
            break
        case .keyed:
            try keyed?.closeContainer(write: write)
        case .xmlplist:
            buffer.append(contentsOf: repeatElement(0x09, count: depth))
            switch (frame.opened, frame.isObject) {
            case (true, true): buffer.append(contentsOf: "</dict>\n".utf8)
            case (true, false): buffer.append(contentsOf: "</array>\n".utf8)
            case (false, true): buffer.append(contentsOf: "<dict/>\n".utf8)
            case (false, false): buffer.append(contentsOf: "<array/>\n".utf8)
            }
            if frames.isEmpty { buffer.append(contentsOf: XMLPlistWriter.footer) }
        default:
            let ref = frame.isObject
                ? try plist.writeDictionary(keys: frame.keyRefs, values: frame.valueRefs, into: &buffer, flush: write)
                : try plist.writeArray(count: frame.valueRefs.count, refs: frame.valueRefs, into: &buffer, flush: write)
            if frames.isEmpty {
                try plist.finish(root: ref, into: &buffer, flush: write)
            } else {
                try addPlistMember(ref)
            }
        }
    }
}
