import Foundation
import PFArchive

extension ObjectStoreReader {
    /// Prints what the store holds and does not read (``PFStores/ObjectStoreReader/unreadContents()``),
    /// one warning line each on standard error, naming the source as the user gave it.
    /// - Parameter file: the source argument.
    func warnUnread(file: String) {
        for line in unreadContents() {
            StandardOutput.writeError(Data("pfarchive: warning: \(file): \(line)\n".utf8))
        }
    }
}
