import PFCore

/// The text of an element: either a slice of the input (no references, CDATA or comments in
/// it) or the scanner's scratch buffer holding the decoded text.
struct XMLPlistText {
    var bytes: UnsafeRawBufferPointer
    /// Whether `bytes` is the input itself, so offsets inside it map to input offsets.
    var isRaw: Bool
}

extension XMLPlistScanner {
    // MARK: - Tags

    /// Reads `<name attr="…" …>` or `<name …/>` at `pos` (which is at `<`).
    mutating func readStartTag() throws(PFError) -> XMLPlistStartTag {
        let start = pos
        pos += 1
        let nameStart = pos
        while pos < count, Self.isNameByte(bytes[pos]) { pos += 1 }
        guard pos < count else { throw fail(.truncated, "the document ends inside a tag", at: start) }
        guard pos > nameStart else {
            // A document cut inside "<!DOCTYPE", "<!--" or "<![CDATA[" is truncated, not malformed.
            for opener in ["<!DOCTYPE", "<!--", "<![CDATA["] {
                let rest = slice(start, count)
                if rest.count < opener.utf8.count, opener.utf8.starts(with: rest) {
                    throw fail(.truncated, "the document ends inside '\(opener)'", at: start)
                }
            }
            if bytes[pos] == UInt8(ascii: "!"), hasPrefix(Array("<![CDATA[".utf8), at: start) {
                throw fail(.syntax, "CDATA is text, which may only stand inside <string>, <key> or scalar elements", at: start)
            }
            throw fail(.syntax, "expected an element name after '<'", at: pos)
        }
        let nameBytes = slice(nameStart, pos)
        guard let element = XMLPlistElement.named(nameBytes) else {
            let name = String(decoding: nameBytes.prefix(40), as: UTF8.self)
            throw fail(.syntax, "unknown element <\(name)>; expected \(XMLPlistElement.expectedList)", at: start)
        }
        while true {
            let before = pos
            skipWhitespace()
            guard pos < count else { throw fail(.truncated, "the document ends inside the tag <\(element.name)", at: start) }
            let b = bytes[pos]
            if b == UInt8(ascii: ">") {
                pos += 1
                return XMLPlistStartTag(element: element, isEmpty: false, offset: start)
            }
            if b == UInt8(ascii: "/") {
                guard pos + 1 < count else { throw fail(.truncated, "the document ends inside a tag", at: start) }
                guard bytes[pos + 1] == UInt8(ascii: ">") else {
                    throw fail(.syntax, "expected '>' after '/' in <\(element.name)", at: pos + 1)
                }
                pos += 2
                return XMLPlistStartTag(element: element, isEmpty: true, offset: start)
            }
            // Attributes (such as plist's version) are read for well-formedness and ignored.
            guard pos > before else {
                throw fail(.syntax, "expected whitespace, '>' or '/>' in the tag <\(element.name)", at: pos)
            }
            let attributeStart = pos
            while pos < count, Self.isNameByte(bytes[pos]) { pos += 1 }
            guard pos > attributeStart else {
                throw fail(.syntax, "expected an attribute name, '>' or '/>' in the tag <\(element.name)", at: pos)
            }
            _ = try readAttributeValue()
        }
    }

    /// Reads `= "value"` after an attribute name; returns the value's byte range.
    mutating func readAttributeValue() throws(PFError) -> (Int, Int) {
        skipWhitespace()
        guard pos < count else { throw fail(.truncated, "the document ends inside a tag", at: pos) }
        guard bytes[pos] == UInt8(ascii: "=") else { throw fail(.syntax, "expected '=' after an attribute name", at: pos) }
        pos += 1
        skipWhitespace()
        guard pos < count else { throw fail(.truncated, "the document ends inside a tag", at: pos) }
        let quote = bytes[pos]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw fail(.syntax, "expected a quoted attribute value", at: pos)
        }
        let start = pos + 1
        pos = start
        while pos < count, bytes[pos] != quote {
            if bytes[pos] == UInt8(ascii: "<") {
                throw fail(.syntax, "'<' is not allowed in an attribute value", at: pos)
            }
            pos += 1
        }
        guard pos < count else { throw fail(.truncated, "the document ends inside an attribute value", at: start - 1) }
        pos += 1
        return (start, pos - 1)
    }

    /// Reads `</name>` at `pos`, which must close `element`.
    mutating func readEndTag(_ element: XMLPlistElement, openOffset: Int) throws(PFError) {
        let start = pos
        pos += 2
        let nameStart = pos
        while pos < count, Self.isNameByte(bytes[pos]) { pos += 1 }
        guard pos < count else { throw fail(.truncated, "the document ends inside the end tag </\(element.name)", at: start) }
        let name = slice(nameStart, pos)
        guard name.elementsEqual(element.name.utf8) else {
            let found = String(decoding: name.prefix(40), as: UTF8.self)
            throw fail(
                .syntax,
                "</\(found)> does not match the <\(element.name)> opened at \(lineColumnText(openOffset)); "
                    + "expected </\(element.name)>", at: start)
        }
        skipWhitespace()
        guard pos < count else { throw fail(.truncated, "the document ends inside the end tag </\(element.name)", at: start) }
        guard bytes[pos] == UInt8(ascii: ">") else {
            throw fail(.syntax, "expected '>' to end </\(element.name)", at: pos)
        }
        pos += 1
    }

    // MARK: - Comments, processing instructions, quoted strings

    /// Skips whitespace, comments and processing instructions between elements.
    mutating func skipMisc() throws(PFError) {
        while pos < count {
            let b = bytes[pos]
            if Self.isWhitespace(b) {
                pos += 1
                continue
            }
            guard b == UInt8(ascii: "<"), pos + 1 < count else { return }
            let c = bytes[pos + 1]
            if c == UInt8(ascii: "!"), hasPrefix(Array("<!--".utf8), at: pos) {
                try skipComment()
            } else if c == UInt8(ascii: "?") {
                try skipProcessingInstruction()
            } else {
                return
            }
        }
    }

    /// Skips `<!-- … -->` at `pos`.
    mutating func skipComment() throws(PFError) {
        let start = pos
        pos += 4
        while pos + 2 < count {
            if bytes[pos] == UInt8(ascii: "-"), bytes[pos + 1] == UInt8(ascii: "-"), bytes[pos + 2] == UInt8(ascii: ">") {
                pos += 3
                return
            }
            pos += 1
        }
        pos = count
        throw fail(.truncated, "the document ends inside the comment that starts here; expected '-->'", at: start)
    }

    /// Skips `<? … ?>` at `pos`; an XML declaration is refused here (it may only come first).
    mutating func skipProcessingInstruction() throws(PFError) {
        let start = pos
        if pos + 5 < count, bytes[pos + 2] | 0x20 == UInt8(ascii: "x"), bytes[pos + 3] | 0x20 == UInt8(ascii: "m"),
            bytes[pos + 4] | 0x20 == UInt8(ascii: "l"), Self.isWhitespace(bytes[pos + 5]) || bytes[pos + 5] == UInt8(ascii: "?")
        {
            throw fail(.syntax, "an XML declaration may only stand at the very start of the document", at: start)
        }
        pos += 2
        while pos + 1 < count {
            if bytes[pos] == UInt8(ascii: "?"), bytes[pos + 1] == UInt8(ascii: ">") {
                pos += 2
                return
            }
            pos += 1
        }
        pos = count
        throw fail(.truncated, "the document ends inside the processing instruction that starts here; expected '?>'", at: start)
    }

    /// Skips a quoted literal at `pos` (in the DOCTYPE).
    mutating func skipQuoted() throws(PFError) {
        let start = pos
        let quote = bytes[pos]
        pos += 1
        while pos < count, bytes[pos] != quote { pos += 1 }
        guard pos < count else { throw fail(.truncated, "the document ends inside a quoted literal", at: start) }
        pos += 1
    }

    // MARK: - Text

    /// Reads an element's character data up to and including its end tag.
    ///
    /// Plain text comes back as a slice of the input; text with references, CDATA sections or
    /// comments is decoded into the scratch buffer.
    mutating func readContent(_ element: XMLPlistElement, openOffset: Int) throws(PFError) -> XMLPlistText {
        let start = pos
        var i = pos
        while i < count {
            let b = bytes[i]
            if b == UInt8(ascii: "<") || b == UInt8(ascii: "&") || b == 0 { break }
            i += 1
        }
        pos = i
        if startsEndTag() {
            let text = slice(start, i)
            try readEndTag(element, openOffset: openOffset)
            return XMLPlistText(bytes: text, isRaw: true)
        }
        scratch.reset()
        scratch.append(slice(start, i))
        while true {
            guard pos < count else {
                throw fail(
                    .truncated,
                    "the document ends inside the <\(element.name)> opened at \(lineColumnText(openOffset)); "
                        + "expected </\(element.name)>", at: pos)
            }
            let b = bytes[pos]
            if b == UInt8(ascii: "&") {
                try readReference()
            } else if b == 0 {
                throw fail(.syntax, "a NUL byte is not allowed in XML text", at: pos)
            } else if b == UInt8(ascii: "<") {
                if startsEndTag() {
                    try readEndTag(element, openOffset: openOffset)
                    return XMLPlistText(bytes: scratch.bytes, isRaw: false)
                } else if hasPrefix(Array("<![CDATA[".utf8), at: pos) {
                    let cdataStart = pos
                    pos += 9
                    let bodyStart = pos
                    while pos + 2 < count,
                        !(bytes[pos] == UInt8(ascii: "]") && bytes[pos + 1] == UInt8(ascii: "]")
                            && bytes[pos + 2] == UInt8(ascii: ">"))
                    {
                        pos += 1
                    }
                    guard pos + 2 < count else {
                        throw fail(.truncated, "the document ends inside the CDATA section that starts here; expected ']]>'",
                            at: cdataStart)
                    }
                    scratch.append(slice(bodyStart, pos))
                    pos += 3
                } else if hasPrefix(Array("<!--".utf8), at: pos) {
                    try skipComment()
                } else if pos + 1 < count, bytes[pos + 1] == UInt8(ascii: "?") {
                    try skipProcessingInstruction()
                } else if pos + 1 >= count || (bytes[pos + 1] == UInt8(ascii: "!") && count - pos < 9) {
                    throw fail(.truncated, "the document ends inside <\(element.name)>; expected </\(element.name)>", at: pos)
                } else {
                    throw fail(
                        .syntax, "an element inside <\(element.name)>; expected text or </\(element.name)>", at: pos)
                }
            } else {
                let runStart = pos
                while pos < count {
                    let c = bytes[pos]
                    if c == UInt8(ascii: "<") || c == UInt8(ascii: "&") || c == 0 { break }
                    pos += 1
                }
                scratch.append(slice(runStart, pos))
            }
        }
    }

    /// Reads `&name;`, `&#N;` or `&#xH;` at `pos` into the scratch buffer.
    mutating func readReference() throws(PFError) {
        let start = pos
        pos += 1
        guard pos < count else { throw fail(.truncated, "the document ends inside an entity reference", at: start) }
        if bytes[pos] == UInt8(ascii: "#") {
            pos += 1
            var radix: UInt32 = 10
            if pos < count, bytes[pos] == UInt8(ascii: "x") {
                radix = 16
                pos += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while pos < count, bytes[pos] != UInt8(ascii: ";") {
                guard let digit = Self.digitValue(bytes[pos]), digit < radix else {
                    throw fail(.syntax, "invalid character in a character reference; expected digits and ';'", at: pos)
                }
                // value ≤ 0x10FFFF before this step, so value * 16 + 15 cannot overflow UInt32.
                value = value * radix + digit
                digits += 1
                pos += 1
                guard value <= 0x10FFFF else {
                    throw fail(.invalidValue, "character reference beyond U+10FFFF", at: start)
                }
            }
            guard pos < count else { throw fail(.truncated, "the document ends inside a character reference", at: start) }
            guard digits > 0 else { throw fail(.syntax, "empty character reference; expected digits", at: start) }
            pos += 1
            guard value != 0, let scalar = Unicode.Scalar(value) else {
                throw fail(
                    .invalidValue,
                    "character reference to U+\(String(value, radix: 16, uppercase: true)), which is not an allowed "
                        + "character (NUL or a surrogate)", at: start)
            }
            scratch.append(scalar)
            return
        }
        let nameStart = pos
        while pos < count, pos - nameStart < 8, Self.isNameByte(bytes[pos]) { pos += 1 }
        guard pos < count else { throw fail(.truncated, "the document ends inside an entity reference", at: start) }
        guard bytes[pos] == UInt8(ascii: ";"), pos > nameStart else {
            throw fail(.syntax, "'&' must start an entity reference such as &amp;; write a literal '&' as &amp;", at: start)
        }
        let name = slice(nameStart, pos)
        pos += 1
        let replacement: UInt8
        if name.elementsEqual("lt".utf8) {
            replacement = UInt8(ascii: "<")
        } else if name.elementsEqual("gt".utf8) {
            replacement = UInt8(ascii: ">")
        } else if name.elementsEqual("amp".utf8) {
            replacement = UInt8(ascii: "&")
        } else if name.elementsEqual("quot".utf8) {
            replacement = UInt8(ascii: "\"")
        } else if name.elementsEqual("apos".utf8) {
            replacement = UInt8(ascii: "'")
        } else {
            let text = String(decoding: name, as: UTF8.self)
            throw fail(
                .syntax,
                "unknown entity '&\(text);'; expected &lt; &gt; &amp; &quot; &apos; or a character reference", at: start)
        }
        scratch.append(replacement)
    }

    @inline(__always)
    static func digitValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b &- UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b &- UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
