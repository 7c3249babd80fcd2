/// A coding path as a linked list, cheap to extend while reading or writing a tree.
///
/// Readers and writers pass a node down as they descend and turn it into a ``PFKeyPath``
/// only when an error needs one, instead of appending to and removing from an array at
/// every step.
public indirect enum PFCodingPath: Sendable {
    /// The root value.
    case root
    /// A dictionary member below `parent`.
    case key(String, parent: PFCodingPath)
    /// An array element below `parent`.
    case index(Int, parent: PFCodingPath)

    /// The path extended by a dictionary key.
    @inlinable public func appending(key: String) -> PFCodingPath { .key(key, parent: self) }

    /// The path extended by an array index.
    @inlinable public func appending(index: Int) -> PFCodingPath { .index(index, parent: self) }

    /// The path as a ``PFKeyPath``, outermost step first.
    public var keyPath: PFKeyPath {
        var reversed: [PFKeyPath.Component] = []
        var node = self
        while true {
            switch node {
            case .root:
                return PFKeyPath(reversed.reversed())
            case .key(let k, let parent):
                reversed.append(.key(k)); node = parent
            case .index(let i, let parent):
                reversed.append(.index(i)); node = parent
            }
        }
    }
}
