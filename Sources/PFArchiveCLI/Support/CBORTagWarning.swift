import Foundation
import PFArchive

/// The tags of a CBOR input that its value does not keep (COSE's 18, a URI's 32, …: the
/// enclosed value is read, the tag is dropped, Docs/CBOR.md "Tags"), named in one warning
/// line, so a converted COSE message that its libraries no longer recognise is not a surprise.
enum CBORTagWarning {
    /// Prints the warning for `bytes` (a CBOR document), if it has tags that are not kept.
    static func show(for bytes: Data, limits: PFLimits, file: String) {
        guard let info = try? CBORReader.info(bytes, limits: limits) else { return }
        let dropped = info.tags.filter { !CBORTag.keptByValues.contains($0.key) }.sorted { $0.key < $1.key }
        guard !dropped.isEmpty else { return }
        let listed = dropped.prefix(8).map { "\($0.key) (\($0.value)×)" }.joined(separator: ", ") + (dropped.count > 8 ? ", …" : "")
        UnreadWarnings.show(["CBOR tags \(listed) are not kept: their enclosed values are, without the tag (Docs/CBOR.md, \"Tags\")"], file: file)
    }
}
