import Foundation
import PFArchive

/// What of a CBOR input its value does not keep, named in one warning line each, so a
/// converted document is not a surprise: tags the value model drops (COSE's 18, a URI's 32,
/// …: the enclosed value is read, the tag is not, Docs/CBOR.md "Tags") and `undefined`
/// values (read as null: the model has no "undefined").
enum CBORUnkeptWarning {
    /// Prints the warnings for `bytes` (a CBOR document), if anything is not kept.
    static func show(for bytes: Data, limits: PFLimits, file: String) {
        guard let info = try? CBORReader.info(bytes, limits: limits) else { return }
        var lines: [String] = []
        let dropped = info.tags.filter { !CBORTag.keptByValues.contains($0.key) }.sorted { $0.key < $1.key }
        if !dropped.isEmpty {
            let listed = dropped.prefix(8).map { "\($0.key) (\($0.value)×)" }.joined(separator: ", ") + (dropped.count > 8 ? ", …" : "")
            lines.append("CBOR tags \(listed) are not kept: their enclosed values are, without the tag (Docs/CBOR.md, \"Tags\")")
        }
        if info.undefinedValues > 0 {
            let count = info.undefinedValues == 1 ? "1 CBOR undefined value is" : "\(info.undefinedValues) CBOR undefined values are"
            lines.append("\(count) read as null: the value model has no \"undefined\" (Docs/CBOR.md)")
        }
        guard !lines.isEmpty else { return }
        UnreadWarnings.show(lines, file: file)
    }
}
