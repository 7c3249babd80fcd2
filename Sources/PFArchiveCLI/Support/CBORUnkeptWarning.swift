import Foundation
import PFArchive

/// What of a CBOR input its value does not keep, named in one warning line each, so a
/// converted document is not a surprise: tags the value model drops (COSE's 18, a URI's 32,
/// …: the enclosed value is read, the tag is not, Docs/CBOR.md "Tags") and `undefined`
/// values (read as null: the model has no "undefined").
enum CBORUnkeptWarning {
    /// Prints the warnings for an input when it is read as CBOR (or a CBOR sequence) and
    /// anything in it is not kept: told as the read tells it — after gzip or zlib is undone,
    /// by `--from`, the bytes, or else the file's name (a document whose first item is a tag
    /// or a scalar is CBOR by its `.cbor` name only).
    static func show(forInput bytes: Data, format: DataFormat?, path: String, limits: PFLimits, file: String) {
        let named = path == "-" ? nil : FormatDetector.infer(fromPath: path).format
        var plain = bytes
        if let compression = Compression.detect(bytes.prefix(16)) {
            // Inflated whole only when it may be CBOR: `--from` or the name says so, or else the
            // start of what it holds (a large `.json.gz` is not decompressed twice).
            if let told = format ?? named {
                guard told == .cbor || told == .cborseq else { return }
            } else {
                guard startIsCBOR(bytes, compression, limits: limits) else { return }
            }
            guard let inflated = try? Compression.decompress(bytes, from: compression, limits: limits) else { return }
            plain = inflated
        }
        switch format ?? (named == .cborseq ? .cborseq : FormatDetector.detect(plain, named: named)) {
        case .cbor: show(for: plain, sequence: false, limits: limits, file: file)
        case .cborseq: show(for: plain, sequence: true, limits: limits, file: file)
        default: break
        }
    }

    /// Whether the first bytes compressed input inflates to (from its first 4 KiB) are CBOR's.
    static func startIsCBOR(_ bytes: Data, _ compression: CompressionFormat, limits: PFLimits) -> Bool {
        guard let inflater = try? Inflater(format: compression, limits: limits) else { return false }
        var start = Data()
        try? inflater.process(bytes.prefix(4096)) { (piece: UnsafeRawBufferPointer) throws(PFError) in start.append(contentsOf: piece) }
        return FormatDetector.detect(start) == .cbor
    }

    /// Prints the warnings for `bytes` (a CBOR document or sequence), if anything is not kept.
    static func show(for bytes: Data, sequence: Bool = false, limits: PFLimits, file: String) {
        guard let info = try? (sequence ? CBORReader.sequenceInfo(bytes, limits: limits) : CBORReader.info(bytes, limits: limits)) else { return }
        show(tags: info.tags, undefinedValues: info.undefinedValues, file: file)
    }

    /// Prints the warnings for what an input holds: its tags (number → count) and `undefined` values.
    static func show(tags: [UInt64: Int], undefinedValues: Int, file: String) {
        var lines: [String] = []
        let dropped = tags.filter { !CBORTag.keptByValues.contains($0.key) }.sorted { $0.key < $1.key }
        if !dropped.isEmpty {
            let listed = dropped.prefix(8).map { "\($0.key) (\($0.value)×)" }.joined(separator: ", ") + (dropped.count > 8 ? ", …" : "")
            lines.append("CBOR tags \(listed) are not kept: their enclosed values are, without the tag (Docs/CBOR.md, \"Tags\")")
        }
        if undefinedValues > 0 {
            let count = undefinedValues == 1 ? "1 CBOR undefined value is" : "\(undefinedValues) CBOR undefined values are"
            lines.append("\(count) read as null: the value model has no \"undefined\" (Docs/CBOR.md)")
        }
        guard !lines.isEmpty else { return }
        UnreadWarnings.show(lines, file: file)
    }
}
