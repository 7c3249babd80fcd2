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
        guard pos < count else { throw fail(.endsInsideTag, at: start) }
        guard pos > nameStart else {
            // A document cut inside "<!DOCTYPE", "<!--" or "<![CDATA[" is truncated, not malformed.
            for opener in ["<!DOCTYPE", "<!--", "<![CDATA["] {
                let rest = slice(start, count)
                if rest.count < opener.utf8.count, opener.utf8.starts(with: rest) {
                    throw fail(.endsInsideOpener(opener), at: start)
                }
            }
            if bytes[pos] == UInt8(ascii: "!"), hasPrefix(Array("<![CDATA[".utf8), at: start) {
                throw fail(.cdataOutsideText, at: start)
            }
            throw fail(.elementNameExpected, at: pos)
        }
        let nameBytes = slice(nameStart, pos)
        guard let element = XMLPlistElement.named(nameBytes) else {
            let name = String(decoding: nameBytes.prefix(40), as: UTF8.self)
            throw fail(.unknownElement(name), at: start)
        }
        while true {
            let before = pos
            skipWhitespace()
            guard pos < count else { throw fail(.endsInsideStartTag(element: element.name), at: start) }
            let b = bytes[pos]
            if b == UInt8(ascii: ">") {
                pos += 1
                return XMLPlistStartTag(element: element, isEmpty: false, offset: start)
            }
            if b == UInt8(ascii: "/") {
                guard pos + 1 < count else { throw fail(.endsInsideTag, at: start) }
                guard bytes[pos + 1] == UInt8(ascii: ">") else {
                    throw fail(.slashWithoutGreater(element: element.name), at: pos + 1)
                }
                pos += 2
                return XMLPlistStartTag(element: element, isEmpty: true, offset: start)
            }
            // Attributes (such as plist's version) are read for well-formedness and ignored.
            guard pos > before else {
                throw fail(.tagSeparatorExpected(element: element.name), at: pos)
            }
            let attributeStart = pos
            while pos < count, Self.isNameByte(bytes[pos]) { pos += 1 }
            guard pos > attributeStart else {
                throw fail(.attributeNameExpected(element: element.name), at: pos)
            }
            _ = try readAttributeValue()
        }
    }

    /// Reads `= "value"` after an attribute name; returns the value's byte range.
    mutating func readAttributeValue() throws(PFError) -> (Int, Int) {
        skipWhitespace()
        guard pos < count else { throw fail(.endsInsideTag, at: pos) }
        guard bytes[pos] == UInt8(ascii: "=") else { throw fail(.equalsExpected, at: pos) }
        pos += 1
        skipWhitespace()
        guard pos < count else { throw fail(.endsInsideTag, at: pos) }
        let quote = bytes[pos]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw fail(.quotedValueExpected, at: pos)
        }
        let start = pos + 1
        pos = start
        while pos < count, bytes[pos] != quote {
            if bytes[pos] == UInt8(ascii: "<") {
                throw fail(.lessThanInAttribute, at: pos)
            }
            pos += 1
        }
        guard pos < count else { throw fail(.endsInsideAttributeValue, at: start - 1) }
        pos += 1
        return (start, pos - 1)
    }

    /// Reads `</name>` at `pos`, which must close `element`.
    mutating func readEndTag(_ element: XMLPlistElement, openOffset: Int) throws(PFError) {
        let start = pos
        pos += 2
        let nameStart = pos
        while pos < count, Self.isNameByte(bytes[pos]) { pos += 1 }
        guard pos < count else { throw fail(.endsInsideEndTag(element: element.name), at: start) }
        let name = slice(nameStart, pos)
        guard name.elementsEqual(element.name.utf8) else {
            let found = String(decoding: name.prefix(40), as: UTF8.self)
            throw fail(.mismatchedEndTag(found: found, element: element.name, openedAt: lineColumnText(openOffset)), at: start)
        }
        skipWhitespace()
        guard pos < count else { throw fail(.endsInsideEndTag(element: element.name), at: start) }
        guard bytes[pos] == UInt8(ascii: ">") else {
            throw fail(.endTagGreaterExpected(element: element.name), at: pos)
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
        throw fail(.endsInsideComment, at: start)
    }

    /// Skips `<? … ?>` at `pos`; an XML declaration is refused here (it may only come first).
    mutating func skipProcessingInstruction() throws(PFError) {
        let start = pos
        if pos + 5 < count, bytes[pos + 2] | 0x20 == UInt8(ascii: "x"), bytes[pos + 3] | 0x20 == UInt8(ascii: "m"),
            bytes[pos + 4] | 0x20 == UInt8(ascii: "l"), Self.isWhitespace(bytes[pos + 5]) || bytes[pos + 5] == UInt8(ascii: "?")
        {
            throw fail(.misplacedXMLDeclaration, at: start)
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
        throw fail(.endsInsideProcessingInstruction, at: start)
    }

    /// Skips a quoted literal at `pos` (in the DOCTYPE).
    mutating func skipQuoted() throws(PFError) {
        let start = pos
        let quote = bytes[pos]
        pos += 1
        while pos < count, bytes[pos] != quote { pos += 1 }
        guard pos < count else { throw fail(.endsInsideQuotedLiteral, at: start) }
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
                throw fail(.endsInsideElement(element: element.name, openedAt: lineColumnText(openOffset)), at: pos)
            }
            let b = bytes[pos]
            if b == UInt8(ascii: "&") {
                try readReference()
            } else if b == 0 {
                throw fail(.nulInText, at: pos)
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
                        throw fail(.endsInsideCDATA, at: cdataStart)
                    }
                    scratch.append(slice(bodyStart, pos))
                    pos += 3
                } else if hasPrefix(Array("<!--".utf8), at: pos) {
                    try skipComment()
                } else if pos + 1 < count, bytes[pos + 1] == UInt8(ascii: "?") {
                    try skipProcessingInstruction()
                } else if pos + 1 >= count || (bytes[pos + 1] == UInt8(ascii: "!") && count - pos < 9) {
                    throw fail(.endsInsideText(element: element.name), at: pos)
                } else {
                    throw fail(.elementInText(element: element.name), at: pos)
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
        guard pos < count else { throw fail(.endsInsideEntityReference, at: start) }
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
                    throw fail(.characterReferenceDigit, at: pos)
                }
                // value ≤ 0x10FFFF before this step, so value * 16 + 15 cannot overflow UInt32.
                value = value * radix + digit
                digits += 1
                pos += 1
                guard value <= 0x10FFFF else {
                    throw fail(.characterReferenceBeyondUnicode, at: start)
                }
            }
            guard pos < count else { throw fail(.endsInsideCharacterReference, at: start) }
            guard digits > 0 else { throw fail(.emptyCharacterReference, at: start) }
            pos += 1
            guard value != 0, let scalar = Unicode.Scalar(value) else {
                throw fail(.disallowedCharacterReference(value), at: start)
            }
            scratch.append(scalar)
            return
        }
        let nameStart = pos
        while pos < count, pos - nameStart < 8, Self.isNameByte(bytes[pos]) { pos += 1 }
        guard pos < count else { throw fail(.endsInsideEntityReference, at: start) }
        guard bytes[pos] == UInt8(ascii: ";"), pos > nameStart else {
            throw fail(.bareAmpersand, at: start)
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
            throw fail(.unknownEntity(text), at: start)
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

// MARK: - Records

extension XMLPlistScanner {
    /// Whether the document is an array (`false`) or a dictionary whose first key is
    /// `results` and holds an array (`true`): the prolog, `<plist>` and the first tags only.
    /// - Throws: ``XMLPlistFailure/notRecords`` for another root, or the scanner's errors.
    mutating func recordsWrapped() throws(PFError) -> Bool {
        try readProlog()
        guard pos < count, bytes[pos] == UInt8(ascii: "<") else { throw fail(.notRecords, at: pos) }
        var tag = try readStartTag()
        if tag.element == .plist, !tag.isEmpty {
            try skipMisc()
            guard pos < count, bytes[pos] == UInt8(ascii: "<"), !startsEndTag() else { throw fail(.notRecords, at: pos) }
            tag = try readStartTag()
        }
        if tag.element == .array { return false }
        guard tag.element == .dict, !tag.isEmpty else { throw fail(.notRecords, at: tag.offset) }
        try skipMisc()
        guard pos < count, bytes[pos] == UInt8(ascii: "<"), !startsEndTag() else { throw fail(.notRecords, at: pos) }
        let key = try readStartTag()
        guard key.element == .key, !key.isEmpty, try readString(.key, openOffset: key.offset) == "results" else {
            throw fail(.notRecords, at: key.offset)
        }
        try skipMisc()
        guard pos < count, bytes[pos] == UInt8(ascii: "<"), !startsEndTag() else { throw fail(.notRecords, at: pos) }
        guard try readStartTag().element == .array else { throw fail(.notRecords, at: pos) }
        return true
    }
}

