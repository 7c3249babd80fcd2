import PFCore

// MARK: - The path of an offset

extension JSONScanner {
    /// The key path of the value (or key) starting at `target`, for an error the pre-scan
    /// raises there without tracking paths (`maxStringBytes`).
    ///
    /// A second, linear pass over bytes the scan has already accepted up to `target`:
    /// containers are pushed and popped, array indices counted, and object keys decoded, so
    /// every string, comment and escape before `target` is complete and well formed.
    func path(to target: Int) -> PFKeyPath {
        // One frame per open container: an object's current key, or an array's index.
        struct Frame {
            var isObject: Bool
            var index = 0
            var key: [UInt8]? = nil
            var expectingKey = false
        }
        var stack: [Frame] = []
        var i = 0
        while i < min(target, count) {
            let c = p[i]
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                var j = i + 1
                while j < count, p[j] != c { j += p[j] == UInt8(ascii: "\\") ? 2 : 1 }
                let end = min(j + 1, count)
                if var top = stack.last, top.isObject, top.expectingKey {
                    top.key = decodeString(i, end)
                    top.expectingKey = false
                    stack[stack.count - 1] = top
                }
                i = end
                continue
            case UInt8(ascii: "/") where lenient && i + 1 < count && (p[i + 1] == UInt8(ascii: "/") || p[i + 1] == UInt8(ascii: "*")):
                i = (try? skipSpace(i)) ?? count
                continue
            case UInt8(ascii: "{"):
                stack.append(Frame(isObject: true, expectingKey: true))
            case UInt8(ascii: "["):
                stack.append(Frame(isObject: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
            case UInt8(ascii: ","):
                if var top = stack.popLast() {
                    if top.isObject { top.expectingKey = true } else { top.index += 1 }
                    stack.append(top)
                }
            default:
                break
            }
            i += 1
        }
        var components: [PFKeyPath.Component] = []
        for frame in stack {
            if frame.isObject {
                // A key that is itself the target has no key of its own in the path.
                guard !frame.expectingKey, let key = frame.key else { break }
                components.append(.key(String(decoding: key, as: UTF8.self)))
            } else {
                components.append(.index(frame.index))
            }
        }
        return PFKeyPath(components)
    }
}
