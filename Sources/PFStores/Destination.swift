import Dispatch
import Foundation
import PFCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What an import does with what a destination holds that is not part of its store (a
/// `notes.txt` in an export directory, another member of a zip, a table of another program in
/// an SQLite file).
public enum ForeignEntries: String, Sendable, CaseIterable {
    /// Refuse the destination, naming the first foreign entry (the default).
    case refuse
    /// Carry foreign entries over untouched (bytes and modes), writing only the store's own.
    case keep
}

/// A file-based destination being written: the one home of what every writer of a file or
/// directory does to keep the user's data safe (Docs/Security.md, "Destinations").
///
/// - **Exclusive.** ``claim(_:format:)`` takes an `flock` on the sibling lock file
///   `.<name>.pfarchive-lock` (holding the owner's pid) for the whole write; a second writer
///   gets "DEST is being written by pfarchive pid N". A lock left by a killed process is taken
///   over (the kernel released its `flock`).
/// - **Unique staging.** Temporary siblings are `.<name>.pfarchive-tmp-<pid>-<random>` (and
///   `-old-` for a directory moved aside). Those of processes that are gone are removed (an
///   `-old-` one is put back when the destination is missing) by the next claim or file write;
///   nothing else beside the destination is ever touched.
/// - **Foreign entries refused.** ``refuse(_:store:policy:)`` builds the one message for a
///   destination that holds anything pfarchive did not write; each store decides what is part
///   of it.
/// - **Metadata kept, durable.** ``settle(_:like:)`` gives a staged file or directory the mode
///   (and, where the process may, the owner) of what it replaces, or the umask's mode when it is
///   new, and syncs it; ``replace(with:)`` renames it into place and syncs the directory.
public final class Destination {
    /// The destination, standardized (no `.` or `..` components).
    public let url: URL
    /// The format name for errors.
    public let format: PFError.Format
    private var lockFD: Int32 = -1
    private var lockIdentity: (dev: UInt64, ino: UInt64)?

    private init(url: URL, format: PFError.Format) {
        self.url = url
        self.format = format
    }

    deinit { release() }

    // MARK: - Names

    /// The directory holding the destination.
    public var parent: URL { url.deletingLastPathComponent() }
    /// The destination's last path component.
    public var name: String { url.lastPathComponent }

    /// The prefix of every sibling pfarchive makes for a destination: `.<name>.pfarchive-`.
    public static func siblingPrefix(of url: URL) -> String { "." + url.lastPathComponent + ".pfarchive-" }

    /// The lock file of a destination, `.<name>.pfarchive-lock`.
    public static func lockURL(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(siblingPrefix(of: url) + "lock")
    }

    /// What a temporary sibling is for.
    public enum SiblingRole: String, Sendable {
        /// Being written; removed when its process is gone.
        case staging = "tmp"
        /// The destination moved aside during a swap; put back when the destination is missing.
        case previous = "old"
    }

    /// A fresh temporary sibling name, `.<name>.pfarchive-<role>-<pid>-<random><suffix>`.
    /// A staging sibling is removed if the process is interrupted (see ``removeTemporariesOnSignals()``)
    /// until ``forget(_:)`` is called.
    /// - Parameters:
    ///   - url: the destination.
    ///   - role: staging or previous.
    ///   - suffix: appended (an extension such as `.zip`).
    /// - Returns: the sibling's URL.
    public static func temporarySibling(of url: URL, _ role: SiblingRole = .staging, suffix: String = "") -> URL {
        let random = String(UInt32.random(in: 0 ... .max), radix: 16)
        let sibling = url.deletingLastPathComponent().appendingPathComponent(
            siblingPrefix(of: url) + "\(role.rawValue)-\(getpid())-\(random)\(suffix)")
        if role == .staging { Interruption.shared.add(sibling.path) }
        return sibling
    }

    /// A fresh temporary sibling of this destination (see ``temporarySibling(of:_:suffix:)``).
    public func temporarySibling(_ role: SiblingRole = .staging, suffix: String = "") -> URL {
        Self.temporarySibling(of: url, role, suffix: suffix)
    }

    /// Stops removing a temporary sibling on interruption (it was renamed or removed).
    public static func forget(_ sibling: URL) { Interruption.shared.remove(sibling.path) }

    // MARK: - Claiming

    /// Locks a destination for writing and tidies what killed writers left beside it.
    /// - Parameters:
    ///   - url: the destination file or directory (it need not exist; its directory must).
    ///   - format: the store's format name, for errors.
    /// - Returns: the claim; it is released by ``release()`` or when it goes away.
    /// - Throws: ``PFCore/PFError`` with code `io` when another process holds the lock ("… is
    ///   being written by pfarchive pid N"), or the directory does not exist or cannot be written.
    public static func claim(_ url: URL, format: PFError.Format) throws(PFError) -> Destination {
        let destination = Destination(url: url.standardizedFileURL, format: format)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: destination.parent.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PFError(StoreFailure.noParentDirectory(path: destination.url.path, parent: destination.parent.path), format: format)
        }
        try destination.lock()
        try removeStaleSiblings(of: destination.url, locked: true)
        return destination
    }

    private func lock() throws(PFError) {
        let path = Self.lockURL(of: url).path
        for _ in 0 ..< 16 {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else {
                throw PFError(StoreFailure.cannotCreateLock(path: url.path, lock: path, reason: POSIX.errorText()), format: format)
            }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                if code == EINTR { _ = POSIX.close(fd); continue }
                guard code == EWOULDBLOCK || code == EAGAIN else {
                    _ = POSIX.close(fd)
                    throw PFError(StoreFailure.cannotLock(path: url.path, lock: path, reason: String(cString: strerror(code))), format: format)
                }
                let owner = Self.owner(fd)
                _ = POSIX.close(fd)
                throw PFError(StoreFailure.beingWritten(location: url.path, by: .process(pid: owner)), format: format)
            }
            // The holder before us may have unlinked the file after we opened it: the lock
            // counts only while the path still names the file we locked.
            var mine = stat()
            var named = stat()
            guard fstat(fd, &mine) == 0, stat(path, &named) == 0, mine.st_dev == named.st_dev, mine.st_ino == named.st_ino else {
                _ = POSIX.close(fd)
                continue
            }
            let text = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            lockFD = fd
            lockIdentity = (UInt64(mine.st_dev), UInt64(mine.st_ino))
            Interruption.shared.add(path, lock: true)
            return
        }
        throw PFError(StoreFailure.cannotLock(path: url.path, lock: path, reason: "it keeps being replaced"), format: format)
    }

    /// The pid written in a lock file (the holder may still be writing it).
    private static func owner(_ fd: Int32) -> Int32? {
        for attempt in 0 ..< 20 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
            if n > 0, let pid = Int32(String(decoding: buffer[0 ..< n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) {
                return pid
            }
            if attempt < 19 { usleep(5_000) }
        }
        return nil
    }

    /// Releases the lock (removing the lock file). Calling it twice does nothing.
    public func release() {
        guard lockFD >= 0 else { return }
        let path = Self.lockURL(of: url).path
        var named = stat()
        if let identity = lockIdentity, stat(path, &named) == 0, UInt64(named.st_dev) == identity.dev, UInt64(named.st_ino) == identity.ino {
            unlink(path)
        }
        Interruption.shared.remove(path)
        _ = POSIX.close(lockFD)
        lockFD = -1
    }

    // MARK: - Stale siblings

    /// Removes the temporary siblings of a destination whose process is gone, and puts back a
    /// destination a killed swap had moved aside. Only names of the form
    /// `.<name>.pfarchive-tmp-<pid>-…`, `.<name>.pfarchive-old-<pid>-…` and
    /// `.<name>.pfarchive-<pid>-….tmp` are looked at; with `locked` (the caller holds the lock)
    /// also the fixed names of earlier versions (`.<name>.pfarchive-tmp`, `-tmp.zip`, `-old`).
    /// - Parameters:
    ///   - url: the destination.
    ///   - locked: whether the caller holds the destination's lock.
    /// - Throws: ``PFCore/PFError`` with code `io` when a moved-aside destination cannot be put back.
    public static func removeStaleSiblings(of url: URL, locked: Bool) throws(PFError) {
        let parent = url.deletingLastPathComponent()
        let prefix = siblingPrefix(of: url)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for name in names.sorted() where name.hasPrefix(prefix) {
            let rest = Substring(name.dropFirst(prefix.count))
            let role: SiblingRole
            let pid: Int32?
            switch rest {
            case "tmp", "tmp.zip":
                role = .staging; pid = nil
            case "old":
                role = .previous; pid = nil
            default:
                var tail = rest
                if rest.hasPrefix("tmp-") {
                    role = .staging; tail = rest.dropFirst(4)
                } else if rest.hasPrefix("old-") {
                    role = .previous; tail = rest.dropFirst(4)
                } else {
                    role = .staging
                }
                guard let dash = tail.firstIndex(of: "-"), let number = Int32(tail[..<dash]), number > 0 else { continue }
                pid = number
            }
            if let pid {
                if pid == getpid() || isAlive(pid) { continue }
            } else if !locked {
                continue
            }
            let sibling = parent.appendingPathComponent(name)
            if role == .previous, !FileManager.default.fileExists(atPath: url.path) {
                guard POSIX.rename(sibling.path, url.path) == 0 else {
                    throw PFError(StoreFailure.cannotPutBack(path: url.path, from: sibling.path, reason: POSIX.errorText()), format: StoreFailure.format)
                }
                syncDirectory(parent)
            } else {
                try? FileManager.default.removeItem(at: sibling)
            }
        }
    }

    /// Whether a process exists (`kill(pid, 0)`; EPERM means it exists under another user).
    public static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    // MARK: - Foreign entries

    /// Refuses foreign entries, or lets them through when the policy keeps them.
    /// - Parameters:
    ///   - foreign: the entries that are not part of the store, in order (names or descriptions).
    ///   - store: what the destination is, such as "a Parse export".
    ///   - policy: the caller's choice.
    ///   - keepable: whether foreign entries can be carried over at all (not for a file that is
    ///     itself foreign).
    /// - Throws: ``PFCore/PFError`` with code `invalidValue` naming the first foreign entry.
    public func refuse(_ foreign: [String], store: String, policy: ForeignEntries, keepable: Bool = true) throws(PFError) {
        guard let first = foreign.first else { return }
        if policy == .keep, keepable { return }
        throw PFError(
            StoreFailure.foreignEntries(path: url.path, first: first, more: foreign.count - 1, store: store, keepable: keepable), format: format)
    }

    /// Refuses a destination that is itself not what pfarchive writes (a symbolic link, a
    /// directory where a file belongs, a file of another program).
    /// - Parameter reason: what it is, such as ``StoreFailure/Refusal/symbolicLink``.
    /// - Returns: the error to throw, with code `invalidValue`.
    public func refusal(_ reason: StoreFailure.Refusal) -> PFError {
        PFError(StoreFailure.notPfarchiveOutput(path: url.path, what: reason), format: format)
    }

    /// The entries of a directory, sorted, with their `lstat` (no symlink followed).
    /// - Throws: ``PFCore/PFError`` with code `io` when it cannot be listed.
    public static func entries(of directory: URL, format: PFError.Format) throws(PFError) -> [(name: String, status: stat)] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory.path) } catch {
            throw PFError(StoreFailure.cannotList(path: directory.path, reason: error.localizedDescription), format: format)
        }
        return names.sorted().map { name in
            var status = stat()
            if lstat(directory.appendingPathComponent(name).path, &status) != 0 { status.st_mode = 0 }
            return (name, status)
        }
    }

    /// Whether an `lstat` is a regular file.
    public static func isRegularFile(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFREG }

    /// The first bytes of a file (up to `count`), or `nil` when it cannot be read.
    public static func prefix(of url: URL, count: Int) -> [UInt8]? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { _ = POSIX.close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        var total = 0
        while total < count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + total }, count - total) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            total += n
        }
        return Array(bytes[0 ..< total])
    }

    // MARK: - Carrying entries over

    /// Puts foreign entries of `directory` into `staging` untouched: regular files as hard links
    /// (the same bytes, mode and owner; copied with their mode when a link is not allowed),
    /// directories recreated with their mode and filled the same way, symlinks recreated.
    /// - Parameters:
    ///   - names: the entries' names.
    ///   - directory: the destination directory.
    ///   - staging: the staging directory.
    /// - Throws: ``PFCore/PFError`` with code `io` when an entry cannot be carried over (a
    ///   device, a FIFO or a socket, or a failing copy).
    public func carryOver(_ names: [String], from directory: URL, into staging: URL) throws(PFError) {
        for name in names {
            try carry(directory.appendingPathComponent(name), to: staging.appendingPathComponent(name))
        }
    }

    private func carry(_ from: URL, to: URL) throws(PFError) {
        var status = stat()
        guard lstat(from.path, &status) == 0 else {
            throw PFError(StoreFailure.cannotCarryOver(path: from.path, part: nil, reason: POSIX.errorText()), format: format)
        }
        func fail(_ what: String) -> PFError {
            PFError(StoreFailure.cannotCarryOver(path: from.path, part: what, reason: POSIX.errorText()), format: format)
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            if link(from.path, to.path) == 0 { return }
            do { try FileManager.default.copyItem(at: from, to: to) } catch {
                throw PFError(StoreFailure.cannotCarryOver(path: from.path, part: nil, reason: error.localizedDescription), format: format)
            }
            _ = chmod(to.path, status.st_mode & 0o7777)
        case S_IFDIR:
            guard mkdir(to.path, 0o700) == 0 else { throw fail("mkdir") }
            for entry in try Self.entries(of: from, format: format) {
                try carry(from.appendingPathComponent(entry.name), to: to.appendingPathComponent(entry.name))
            }
            _ = chown(to.path, status.st_uid, status.st_gid)
            _ = chmod(to.path, status.st_mode & 0o7777)
        case S_IFLNK:
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: from.path), symlink(target, to.path) == 0 else {
                throw fail("symlink")
            }
            _ = lchown(to.path, status.st_uid, status.st_gid)
        default:
            throw PFError(StoreFailure.cannotCarryOver(path: from.path, part: nil, reason: "not a file, directory or symbolic link"), format: format)
        }
    }

    // MARK: - Modes, sync and rename

    /// The process's umask (read without changing it where the system tells it).
    public static let umask: mode_t = {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
        {
            return value
        }
        #if canImport(Glibc)
        let old = Glibc.umask(0o022)
        _ = Glibc.umask(old)
        #elseif canImport(Musl)
        let old = Musl.umask(0o022)
        _ = Musl.umask(old)
        #else
        let old = Darwin.umask(0o022)
        _ = Darwin.umask(old)
        #endif
        return old
    }()

    /// The mode a new file gets: `0666` less the umask.
    public static var newFileMode: mode_t { 0o666 & ~umask }
    /// The mode a new directory gets: `0777` less the umask.
    public static var newDirectoryMode: mode_t { 0o777 & ~umask }

    /// Gives a staged file or directory the mode and owner of what it replaces (the owner only
    /// where the process may set it), or the umask's mode when nothing is replaced, and syncs
    /// it to disk.
    /// - Parameters:
    ///   - staged: the staged file or directory.
    ///   - existing: what it will replace, or `nil`.
    /// - Throws: ``PFCore/PFError`` with code `io` when the mode cannot be set or the sync fails.
    public static func settle(_ staged: URL, like existing: URL?, format: PFError.Format) throws(PFError) {
        var mine = stat()
        guard lstat(staged.path, &mine) == 0 else {
            throw PFError(StoreFailure.cannotRead(path: staged.path, reason: POSIX.errorText()), format: format)
        }
        let isDirectory = mine.st_mode & S_IFMT == S_IFDIR
        var old = stat()
        var mode = isDirectory ? newDirectoryMode : newFileMode
        if let existing, stat(existing.path, &old) == 0 {
            mode = old.st_mode & 0o7777
            if old.st_uid != mine.st_uid || old.st_gid != mine.st_gid {
                // Allowed for root, or to a group the process belongs to; otherwise the file
                // stays the writer's, with the old mode.
                _ = chown(staged.path, old.st_uid, old.st_gid)
            }
        }
        guard chmod(staged.path, mode) == 0 else {
            throw PFError(StoreFailure.cannotSetMode(path: staged.path, reason: POSIX.errorText()), format: format)
        }
        try sync(staged, format: format)
    }

    /// Settles the files of a staged directory (each like the file of the same name in
    /// `existing`), then the directory itself. Entries named in `skipping` (carried over
    /// untouched) are left alone.
    public static func settleDirectory(_ staged: URL, like existing: URL?, skipping: Set<String> = [], format: PFError.Format) throws(PFError) {
        for entry in try entries(of: staged, format: format) where isRegularFile(entry.status) && !skipping.contains(entry.name) {
            let old = existing?.appendingPathComponent(entry.name)
            try settle(staged.appendingPathComponent(entry.name), like: old.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }, format: format)
        }
        try settle(staged, like: existing.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }, format: format)
    }

    /// `fsync` of a file or directory.
    public static func sync(_ url: URL, format: PFError.Format) throws(PFError) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw PFError(StoreFailure.cannotOpenToSync(path: url.path, reason: POSIX.errorText()), format: format) }
        defer { _ = POSIX.close(fd) }
        guard fsync(fd) == 0 else { throw PFError(StoreFailure.cannotSync(path: url.path, reason: POSIX.errorText()), format: format) }
    }

    /// `fsync` of a directory, so a rename in it is durable (best effort: some file systems
    /// refuse to sync directories).
    public static func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = POSIX.close(fd)
    }

    /// Renames a settled staged file over the destination in one step and syncs the directory.
    /// - Throws: ``PFCore/PFError`` with code `io` when the rename fails (the staged file is removed).
    public func replace(with staged: URL) throws(PFError) {
        guard POSIX.rename(staged.path, url.path) == 0 else {
            let reason = POSIX.errorText()
            try? FileManager.default.removeItem(at: staged)
            Self.forget(staged)
            throw PFError(StoreFailure.cannotMoveIntoPlace(what: name, reason: reason), format: format)
        }
        Self.forget(staged)
        Self.syncDirectory(parent)
    }

    /// Puts a settled staged directory in place of the destination directory: the old one is
    /// moved aside (`.<name>.pfarchive-old-…`), the staged one renamed in, the directory synced,
    /// then the old one removed — its store entries (`storeEntries`) deleted and anything else
    /// found there (written by someone else meanwhile) moved into the new directory rather
    /// than deleted. A process killed between the renames leaves the old one aside; the next
    /// claim puts it back.
    /// - Throws: ``PFCore/PFError`` with code `io` when a rename fails (the old directory is put back).
    public func swapDirectory(with staged: URL, storeEntries: Set<String>) throws(PFError) {
        let fm = FileManager.default
        guard fm.fileExists(atPath: url.path) else {
            try replace(with: staged)
            return
        }
        let old = temporarySibling(.previous)
        guard POSIX.rename(url.path, old.path) == 0 else {
            throw PFError(StoreFailure.cannotMoveAside(path: url.path, reason: POSIX.errorText()), format: format)
        }
        guard POSIX.rename(staged.path, url.path) == 0 else {
            let reason = POSIX.errorText()
            _ = POSIX.rename(old.path, url.path)
            throw PFError(StoreFailure.cannotMoveIntoPlace(what: name, reason: reason), format: format)
        }
        Self.forget(staged)
        Self.syncDirectory(parent)
        let left = (try? Self.entries(of: old, format: format)) ?? []
        for entry in left {
            let path = old.appendingPathComponent(entry.name)
            if storeEntries.contains(entry.name) {
                try? fm.removeItem(at: path)
            } else if !fm.fileExists(atPath: url.appendingPathComponent(entry.name).path) {
                _ = POSIX.rename(path.path, url.appendingPathComponent(entry.name).path)
            } else {
                // Carried over already (a hard link of the same file), or a subdirectory copied.
                try? fm.removeItem(at: path)
            }
        }
        _ = rmdir(old.path)
        Self.syncDirectory(parent)
    }

    // MARK: - Where a file output lands

    /// Where writing a file at a path lands (``fileTarget(of:)``).
    public enum FileTarget: Equatable, Sendable {
        /// A regular file, or nothing yet: written by staging a sibling and renaming it over
        /// this path. Symbolic links are followed first, so a link the user made keeps
        /// pointing at the file, which gets the new content.
        case file(URL)
        /// A character or block device, FIFO or socket (`/dev/null`, a named pipe): written
        /// in place, as a shell redirection does. A rename would replace the device node or
        /// the link to it with a regular file; nothing is made beside it.
        case stream(URL)
        /// One of this process's open file descriptors, named as `/dev/stdout`, `/dev/stderr`,
        /// `/dev/fd/N` or `/proc/self/fd/N` (a `>(…)` pipe, a redirected standard output):
        /// written to that descriptor at its own offset, as the shell opened it.
        case descriptor(Int32)
        /// Not written, for the reason given (``fileTarget(of:)``).
        case refused(String)
    }

    /// Where a file written at `url` lands: the descriptor a `/dev/fd/N`-style name stands
    /// for, or the path with its symbolic links followed as the kernel follows them (at most
    /// 40; a relative link from the real directory it sits in) and whether that is a device or
    /// FIFO to write in place rather than a file to replace. Refused, as the kernel refuses
    /// them: a loop of links, and a link another user owns in a sticky, world-writable directory
    /// such as `/tmp` (`fs.protected_symlinks`); and a descriptor this process did not inherit.
    /// - Parameter url: the output path.
    /// - Returns: where the output lands, or why it is refused.
    public static func fileTarget(of url: URL) -> FileTarget {
        let given = url.standardizedFileURL.path
        var path = given
        var hops = 0
        while true {
            if let fd = descriptorNamed(path) {
                // pfarchive opens its own descriptors close-on-exec; one it was given is not.
                let flags = fcntl(fd, F_GETFD)
                guard flags >= 0, flags & FD_CLOEXEC == 0 else { return .refused("\(path) is not a descriptor this process was given") }
                return .descriptor(fd)
            }
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { break }
            guard hops < 40 else { return .refused("too many levels of symbolic links") }
            hops += 1
            guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: path) else {
                return .refused("cannot read the symbolic link \(path)")
            }
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var shared = stat()
            if stat(directory, &shared) == 0, shared.st_mode & S_ISVTX != 0, shared.st_mode & S_IWOTH != 0,
                status.st_uid != geteuid(), status.st_uid != shared.st_uid
            {
                return .refused("\(path) is a symbolic link another user owns in a shared directory; it is not followed")
            }
            // `..` in a link is the kernel's to resolve, from the directory the link really is in.
            if link.hasPrefix("/") {
                path = link
            } else {
                let real = realpath(directory, nil).map { pointer in
                    defer { free(pointer) }
                    return String(cString: pointer)
                } ?? directory
                path = (real.hasSuffix("/") ? real : real + "/") + link
            }
        }
        var status = stat()
        if stat(given, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFCHR, S_IFBLK, S_IFIFO, S_IFSOCK: return .stream(URL(fileURLWithPath: given))
            default: break
            }
        }
        return .file(URL(fileURLWithPath: path))
    }

    /// The descriptor a path names when it is `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`,
    /// `/proc/self/fd/N` or `/proc/<this pid>/fd/N`.
    private static func descriptorNamed(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default: break
        }
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/"] where path.hasPrefix(prefix) {
            return Int32(path.dropFirst(prefix.count)).flatMap { $0 >= 0 ? $0 : nil }
        }
        return nil
    }

    // MARK: - Whole files

    /// Writes bytes to a file the safe way: into a new temporary sibling (mode 0600 while it
    /// is written), given the replaced file's mode and owner (or the umask's mode), synced,
    /// renamed over the destination, and the directory synced. Stale temporary siblings of
    /// processes that are gone are removed first. On failure the destination is untouched and
    /// the temporary file removed; on SIGINT/SIGTERM/SIGHUP it is removed too (with
    /// ``removeTemporariesOnSignals()``).
    /// - Parameters:
    ///   - data: the bytes.
    ///   - url: the destination file.
    ///   - format: the format name for errors.
    /// - Throws: ``PFCore/PFError`` with code `io`.
    public static func writeFile(_ data: Data, to url: URL, format: PFError.Format, name: String? = nil) throws(PFError) {
        try writeFile(to: url, format: format, name: name) { write throws(PFError) in
            try data.withBytes { raw throws(PFError) in try write(raw) }
        }
    }

    /// Writes a file a chunk at a time, atomically as ``writeFile(_:to:format:name:)`` does:
    /// `produce` is given a function that appends bytes to the staged file; when it returns,
    /// the file is settled and renamed into place, and when it throws, nothing is left.
    /// - Parameters:
    ///   - url: the file to write.
    ///   - format: the format named in errors.
    ///   - name: the name shown in errors (default: the path).
    ///   - produce: writes the content through the function it is given.
    /// - Throws: ``PFCore/PFError`` with code `io` when the file cannot be written, or what
    ///   `produce` throws (prefixed with the name).
    public static func writeFile(
        to path: URL, format: PFError.Format, name: String? = nil,
        _ produce: (_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) -> Void
    ) throws(PFError) {
        let shown = name ?? path.standardizedFileURL.path
        let url: URL
        switch fileTarget(of: path) {
        case .file(let file): url = file
        case .stream(let device):
            try writeInPlace(device, format: format, shown: shown, produce)
            return
        case .descriptor(let fd):
            try writeInPlace(fd, format: format, shown: shown, produce)
            return
        case .refused(let reason):
            throw PFError(StoreFailure.cannotOpen(path: shown, forWriting: true, reason: reason), format: format)
        }
        try removeStaleSiblings(of: url, locked: false)
        let staged = temporarySibling(of: url)
        let fd = open(staged.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            forget(staged)
            throw PFError(StoreFailure.cannotCreateStaged(location: shown, staged: staged.lastPathComponent, reason: POSIX.errorText()), format: format)
        }
        // What `produce` throws is about its input, not this file: it passes unchanged.
        var failure: PFError?
        do throws(PFError) {
            try produce { raw throws(PFError) in
                try writeAll(raw, to: fd) { reason in PFError(StoreFailure.cannotWriteStaged(location: shown, reason: reason), format: format) }
            }
        } catch {
            failure = error
        }
        if let failure {
            _ = POSIX.close(fd)
            try? FileManager.default.removeItem(at: staged)
            forget(staged)
            throw failure
        }
        var closed = false
        do throws(PFError) {
            // Closed once: the number may be reused by another thread right after.
            closed = true
            guard POSIX.close(fd) == 0 else { throw PFError(StoreFailure.cannotWriteStaged(location: shown, reason: POSIX.errorText()), format: format) }
            let existing = FileManager.default.fileExists(atPath: url.path) ? url : nil
            try settle(staged, like: existing, format: format)
            let destination = Destination(url: url, format: format)
            try destination.replace(with: staged)
        } catch where !error.message.hasPrefix(shown) {
            if !closed { _ = POSIX.close(fd) }
            try? FileManager.default.removeItem(at: staged)
            forget(staged)
            var placed = error
            placed.message = "\(shown): " + error.message
            throw placed
        } catch {
            if !closed { _ = POSIX.close(fd) }
            try? FileManager.default.removeItem(at: staged)
            forget(staged)
            throw error
        }
    }

    /// Writes to a device or FIFO as it is (``FileTarget/stream(_:)``): nothing is created,
    /// truncated or renamed. It is opened at the first write (when `produce` succeeds without
    /// writing, it is opened and closed: a FIFO's reader then sees the end), so a `produce`
    /// that fails or declines before writing leaves it unopened, as a file write leaves nothing.
    private static func writeInPlace(
        _ device: URL, format: PFError.Format, shown: String,
        _ produce: (_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) -> Void
    ) throws(PFError) {
        var fd: Int32 = -1
        func opened() throws(PFError) -> Int32 {
            if fd < 0 {
                fd = open(device.path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
                guard fd >= 0 else {
                    throw PFError(StoreFailure.cannotOpen(path: shown, forWriting: true, reason: POSIX.errorText()), format: format)
                }
            }
            return fd
        }
        var failure: PFError?
        do throws(PFError) {
            try produce { raw throws(PFError) in try writeAll(raw, to: try opened(), format: format, shown: shown) }
            _ = try opened()
        } catch {
            failure = error
        }
        let closed = fd < 0 || POSIX.close(fd) == 0
        if let failure { throw failure }
        guard closed else { throw PFError(StoreFailure.cannotWrite(path: shown, reason: POSIX.errorText()), format: format) }
    }

    /// Writes to one of this process's open descriptors (``FileTarget/descriptor(_:)``), at
    /// its offset, leaving it open.
    private static func writeInPlace(
        _ fd: Int32, format: PFError.Format, shown: String,
        _ produce: (_ write: (UnsafeRawBufferPointer) throws(PFError) -> Void) throws(PFError) -> Void
    ) throws(PFError) {
        try produce { raw throws(PFError) in try writeAll(raw, to: fd, format: format, shown: shown) }
    }

    /// Writes every byte to a descriptor, again after an interruption.
    private static func writeAll(_ raw: UnsafeRawBufferPointer, to fd: Int32, format: PFError.Format, shown: String) throws(PFError) {
        try writeAll(raw, to: fd) { reason in PFError(StoreFailure.cannotWrite(path: shown, reason: reason), format: format) }
    }

    /// Writes every byte to a descriptor, again after an interruption; a failure is the error
    /// `failed` makes of the system's reason.
    private static func writeAll(
        _ raw: UnsafeRawBufferPointer, to fd: Int32, failed: (String) -> PFError
    ) throws(PFError) {
        var written = 0
        while written < raw.count {
            let n = POSIX.write(fd, raw.baseAddress.map { $0 + written }, raw.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                throw failed(POSIX.errorText())
            }
            written += n
        }
    }

    // MARK: - Interruption

    /// Makes SIGINT, SIGTERM and SIGHUP remove the temporary siblings, lock files and private
    /// copies of SQLite sources this process has in use (PFCore's `Interruption`) before it ends with that signal (for the command-line tool; a
    /// library user decides about its own signals). The handlers are installed when the first
    /// temporary file or lock comes into use, so a run that writes nothing keeps the default
    /// dispositions. A SIGKILL leaves them: the next write to the
    /// same destination removes them (their process is gone).
    public static func removeTemporariesOnSignals() {
        Interruption.shared.install()
    }

    /// Blocks for good when a signal is being handled (its handler is removing the temporary
    /// files and will end the process with that signal): an error the work met because its
    /// files vanished must not be reported as the outcome. Returns at once otherwise.
    public static func waitIfInterrupted() {
        guard Interruption.shared.isInterrupted else { return }
        while true { pause() }
    }
}
