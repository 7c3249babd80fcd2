import Foundation

/// A small writer of Realm's node format, for tests: nodes (arrays) with the header Realm
/// uses, string leaves in the three forms, and a file header (normal or streaming form).
struct RealmTestWriter {
    var bytes = [UInt8](repeating: 0, count: 24)

    /// The bits a value needs in Realm's width ladder (unsigned below 8 bits, signed from 8).
    static func width(_ values: [Int64]) -> Int {
        var w = 0
        for v in values {
            let need: Int
            if v >= 0 && v <= 1 { need = v == 0 ? 0 : 1 }
            else if v >= 0 && v <= 3 { need = 2 }
            else if v >= 0 && v <= 15 { need = 4 }
            else if v >= -128 && v <= 127 { need = 8 }
            else if v >= -32768 && v <= 32767 { need = 16 }
            else if v >= Int64(Int32.min) && v <= Int64(Int32.max) { need = 32 }
            else { need = 64 }
            w = max(w, need)
        }
        return w
    }

    mutating func header(flags: UInt8, count: Int) {
        bytes += [0x41, 0x41, 0x41, 0x41, flags, UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
    }

    mutating func pad() { while bytes.count % 8 != 0 { bytes.append(0) } }

    static func log2Code(_ width: Int) -> UInt8 {
        switch width {
        case 0: 0
        case 1: 1
        case 2: 2
        case 4: 3
        case 8: 4
        case 16: 5
        case 32: 6
        default: 7
        }
    }

    /// An integer node; returns its reference.
    mutating func ints(_ values: [Int64], hasRefs: Bool = false, inner: Bool = false, context: Bool = false, width forced: Int? = nil) -> Int64 {
        let ref = Int64(bytes.count)
        let w = forced ?? Self.width(values)
        var flags = Self.log2Code(w)
        if inner { flags |= 0x80 }
        if hasRefs { flags |= 0x40 }
        if context { flags |= 0x20 }
        header(flags: flags, count: values.count)
        if w < 8 {
            var packed = [UInt8](repeating: 0, count: (values.count * w + 7) / 8)
            for (i, v) in values.enumerated() where w > 0 {
                let bit = i * w
                packed[bit / 8] |= UInt8(truncatingIfNeeded: v) << UInt8(bit % 8)
            }
            bytes += packed
        } else {
            for v in values {
                for b in 0..<(w / 8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: v) >> UInt64(8 * b))) }
            }
        }
        pad()
        return ref
    }

    /// A node of references (and tagged integers, written `v << 1 | 1`).
    mutating func refs(_ values: [Int64], inner: Bool = false, context: Bool = false) -> Int64 {
        ints(values, hasRefs: true, inner: inner, context: context, width: 64)
    }

    static func tagged(_ v: Int64) -> Int64 { v << 1 | 1 }

    /// A byte node (width type 2).
    mutating func blob(_ data: [UInt8]) -> Int64 {
        let ref = Int64(bytes.count)
        header(flags: 0x10, count: data.count)
        bytes += data
        pad()
        return ref
    }

    /// A short string leaf: fixed slots whose last byte says how much is padding.
    mutating func shortStrings(_ strings: [String?]) -> Int64 {
        let longest = strings.map { $0?.utf8.count ?? 0 }.max() ?? 0
        let w = [4, 8, 16, 32, 64].first { $0 > longest } ?? 64
        let ref = Int64(bytes.count)
        header(flags: 0x08 | Self.log2Code(w), count: strings.count)
        for s in strings {
            var slot = [UInt8](repeating: 0, count: w)
            if let s {
                let u = Array(s.utf8)
                slot.replaceSubrange(0..<u.count, with: u)
                slot[w - 1] = UInt8(w - 1 - u.count)
            } else {
                slot[w - 1] = UInt8(w)
            }
            bytes += slot
        }
        pad()
        return ref
    }

    /// A medium string leaf: `[offsets, blob, nulls]`, each string followed by a zero.
    mutating func mediumStrings(_ strings: [String?]) -> Int64 {
        var blobBytes: [UInt8] = []
        var ends: [Int64] = []
        for s in strings {
            if let s { blobBytes += Array(s.utf8) + [0] }
            ends.append(Int64(blobBytes.count))
        }
        let offsets = ints(ends)
        let b = blob(blobBytes)
        let nulls = ints(strings.map { $0 == nil ? 1 : 0 })
        return refs([offsets, b, nulls])
    }

    /// A big string leaf: one blob per string (with its zero), context flag set.
    mutating func bigStrings(_ strings: [String?]) -> Int64 {
        let blobs = strings.map { s -> Int64 in s.map { blob(Array($0.utf8) + [0]) } ?? 0 }
        return refs(blobs, context: true)
    }

    /// The file: the 24-byte header (or the streaming form's header and footer).
    func file(top: Int64, version: UInt8 = 23, streaming: Bool = false) -> [UInt8] {
        var out = bytes
        func put(_ v: UInt64, at o: Int) { for b in 0..<8 { out[o + b] = UInt8(truncatingIfNeeded: v >> UInt64(8 * b)) } }
        put(streaming ? UInt64.max : UInt64(top), at: 0)
        out[16] = 0x54; out[17] = 0x2D; out[18] = 0x44; out[19] = 0x42
        out[20] = version
        out[21] = streaming ? 0 : version
        if streaming {
            out += [UInt8](repeating: 0, count: 16)
            put(UInt64(top), at: out.count - 16)
            put(0x3034_1252_37E5_26C8, at: out.count - 8)
        }
        return out
    }
}
