import Foundation
import PFArchive

/// What a source holds and does not read, shown as warnings on standard error.
enum UnreadWarnings {
    /// Prints each line as `pfarchive: warning: FILE: line`.
    /// - Parameters:
    ///   - lines: what is not read, one line each, naming it and why.
    ///   - file: the source argument, as the user gave it.
    static func show(_ lines: [String], file: String) {
        for line in lines {
            // One line whatever the names in it hold (a table named with a line break or an
            // escape sequence neither splits the warning nor reaches the terminal raw).
            StandardOutput.writeError(Data("pfarchive: warning: \(CLIFailure.oneLine("\(file): \(line)"))\n".utf8))
        }
    }
}

extension ObjectStoreReader {
    /// Prints what the store holds and does not read (``PFStores/ObjectStoreReader/unreadContents()``),
    /// one warning line each on standard error, naming the source as the user gave it.
    /// - Parameter file: the source argument.
    func warnUnread(file: String) { UnreadWarnings.show(unreadContents(), file: file) }
}
