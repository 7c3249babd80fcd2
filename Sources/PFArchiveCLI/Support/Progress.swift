import Foundation

/// A progress line on a terminal for long work; silent when stderr is not a terminal or the
/// input is small, so pipes and scripts never see it.
struct Progress {
    private let enabled: Bool
    private let steps: [String]
    private var done = 0

    /// Inputs at least this large show progress.
    static let threshold = 8 << 20

    init(steps: [String], inputBytes: Int) {
        self.steps = steps
        enabled = inputBytes >= Progress.threshold && isatty(STDERR_FILENO) == 1
            && ProcessInfo.processInfo.environment["PFARCHIVE_NO_PROGRESS"] == nil
    }

    /// Marks the next step as started and redraws the bar.
    mutating func begin(_ step: String) {
        guard enabled else { return }
        draw(label: step)
    }

    /// Marks a step as finished.
    mutating func finish() {
        guard enabled else { return }
        done = min(done + 1, steps.count)
        if done == steps.count {
            StandardOutput.writeError(Data("\r\u{1B}[2K".utf8))
        } else {
            draw(label: steps[done])
        }
    }

    private func draw(label: String) {
        let width = 24
        let filled = steps.isEmpty ? 0 : width * done / steps.count
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        StandardOutput.writeError(Data("\r\u{1B}[2K[\(bar)] \(label)…".utf8))
    }
}

/// A progress bar that counts items (objects of an import) on a terminal; silent when stderr
/// is not a terminal or `PFARCHIVE_NO_PROGRESS` is set. Redraws at most ten times a second.
struct CountingProgress {
    private let enabled: Bool
    private var lastDraw = Date.distantPast
    private var drawn = false

    init() {
        enabled = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["PFARCHIVE_NO_PROGRESS"] == nil
    }

    /// Redraws the bar: `done` of `total` items (a counter without a bar when `total` is unknown).
    mutating func update(done: Int, total: Int?, label: String) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        drawn = true
        let line: String
        if let total, total > 0 {
            let width = 24
            let filled = min(width, width * min(done, total) / total)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            line = "[\(bar)] \(done)/\(total) \(label)"
        } else {
            line = "\(done) \(label)"
        }
        StandardOutput.writeError(Data("\r\u{1B}[2K\(line)".utf8))
    }

    /// Erases the bar.
    mutating func clear() {
        guard enabled, drawn else { return }
        StandardOutput.writeError(Data("\r\u{1B}[2K".utf8))
        drawn = false
    }
}
