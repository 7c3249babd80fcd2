import PFArchive

/// A failure the CLI reports as one line on stderr with exit status 1.
struct CLIFailure: Error {
    var message: String

    /// A failure about a file: `file: what went wrong at where`.
    init(file: String, _ error: PFError) {
        let name = file == "-" ? "<stdin>" : file
        message = "\(name): \(error.description)"
    }

    init(_ message: String) { self.message = message }
}
