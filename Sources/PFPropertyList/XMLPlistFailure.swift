import PFCore

/// Every failure the XML property list reader and writer report, with its class and its
/// message in one place.
///
/// Errors made from a case carry it in ``PFCore/PFError/failure``; match it with
/// `error.failure(as: XMLPlistFailure.self)`. `element` is an element's name (`dict`),
/// `text` an element's text as messages show it (quoted, shortened), `openedAt` a
/// `line L, column C` position.
public enum XMLPlistFailure: PFFailure, Hashable {
    /// A record-at-a-time read of a document whose root is neither an array nor a
    /// dictionary whose first key, `results`, holds an array.
    case notRecords
    // The document ends early.
    /// The document ends inside a tag.
    case endsInsideTag
    /// The document ends inside `<!DOCTYPE`, `<!--` or `<![CDATA[` (`opener`).
    case endsInsideOpener(String)
    /// The document ends inside the start tag of `element`.
    case endsInsideStartTag(element: String)
    /// The document ends inside an attribute value.
    case endsInsideAttributeValue
    /// The document ends inside the end tag of `element`.
    case endsInsideEndTag(element: String)
    /// The document ends inside a comment.
    case endsInsideComment
    /// The document ends inside a processing instruction.
    case endsInsideProcessingInstruction
    /// The document ends inside a quoted literal in the DOCTYPE.
    case endsInsideQuotedLiteral
    /// The document ends inside a container or text element opened at `openedAt`.
    case endsInsideElement(element: String, openedAt: String)
    /// The document ends inside a CDATA section.
    case endsInsideCDATA
    /// The document ends inside the text of `element`, at a `<`.
    case endsInsideText(element: String)
    /// The document ends inside an entity reference.
    case endsInsideEntityReference
    /// The document ends inside a character reference.
    case endsInsideCharacterReference
    /// The document ends before its root element.
    case endsBeforeRoot
    /// The document ends inside `<plist>` before its value.
    case endsBeforePlistValue
    /// The document ends inside `<plist>` after its value.
    case endsBeforePlistEnd
    /// The document ends inside the XML declaration.
    case endsInsideXMLDeclaration
    /// The document ends inside the DOCTYPE.
    case endsInsideDoctype
    /// The document ends inside the DOCTYPE's internal subset.
    case endsInsideInternalSubset
    // Markup.
    /// CDATA outside a text element.
    case cdataOutsideText
    /// `<` not followed by an element name.
    case elementNameExpected
    /// An element that property lists do not have.
    case unknownElement(String)
    /// `/` not followed by `>` in a start tag.
    case slashWithoutGreater(element: String)
    /// Something other than whitespace, `>` or `/>` after an attribute.
    case tagSeparatorExpected(element: String)
    /// Something other than an attribute name, `>` or `/>` in a start tag.
    case attributeNameExpected(element: String)
    /// An attribute name without `=`.
    case equalsExpected
    /// An attribute value without quotes.
    case quotedValueExpected
    /// `<` inside an attribute value.
    case lessThanInAttribute
    /// An end tag (`found`) that does not match the open `element`.
    case mismatchedEndTag(found: String, element: String, openedAt: String)
    /// An end tag without its `>`.
    case endTagGreaterExpected(element: String)
    /// An XML declaration after the start of the document.
    case misplacedXMLDeclaration
    /// A NUL byte in text.
    case nulInText
    /// An element inside a text element.
    case elementInText(element: String)
    /// A character reference with a byte other than a digit or `;`.
    case characterReferenceDigit
    /// A character reference without digits.
    case emptyCharacterReference
    /// `&` that starts no entity reference.
    case bareAmpersand
    /// An entity other than the five XML predefines.
    case unknownEntity(String)
    /// `<plist/>`.
    case emptyPlist
    /// `<plist></plist>`.
    case plistWithoutValue
    /// `<plist>` with more than one value.
    case plistWithSeveralValues
    /// Content after the root element.
    case contentAfterRoot
    /// A second DOCTYPE.
    case secondDoctype
    /// `?` not followed by `>` in the XML declaration.
    case xmlDeclarationEndExpected
    /// A byte in the XML declaration that starts no attribute.
    case xmlDeclarationCharacter
    /// `<` inside the DOCTYPE.
    case lessThanInDoctype
    /// The scanner lost its open container (a bug, reported rather than trapped on).
    case noOpenContainer
    /// A key without a value before `</dict>`.
    case keyWithoutValue(String)
    /// An element other than `<key>` (`found`) where a dictionary expects a key.
    case keyExpected(found: String)
    /// `<key>` outside a dictionary.
    case keyOutsideDict
    /// `<plist>` below the root.
    case nestedPlist
    /// A value in a dictionary without a key before it.
    case valueWithoutKey
    /// Text (`snippet`) where markup was expected.
    case unexpectedText(snippet: String, expected: String)
    // Values.
    /// A character reference beyond U+10FFFF.
    case characterReferenceBeyondUnicode
    /// A character reference to NUL or a surrogate.
    case disallowedCharacterReference(UInt32)
    /// Text of `element` that is not UTF-8.
    case invalidUTF8(element: String)
    /// `<integer>` text that is not an integer.
    case notInteger(String)
    /// `<integer>` text with a sign or prefix but no digits.
    case integerWithoutDigits(String)
    /// An integer outside -2^63 … 2^64-1.
    case integerOutOfRange(String)
    /// `<real>` text that is not a number.
    case notReal(String)
    /// `<date>` text that is not a date.
    case notDate(String)
    /// An empty `<integer/>`, `<real/>` or `<date/>`.
    case emptyScalar(element: String)
    /// `<data>` that is not base64 (`reason` says how).
    case invalidBase64(reason: String)
    /// `<true>` or `<false>` with content.
    case notEmpty(element: String)
    /// A key that appears twice in a dictionary.
    case duplicateKey(String)
    // Encodings and DTDs.
    /// A UTF-16 or UTF-32 byte order mark.
    case utf16ByteOrderMark
    /// NUL bytes that suggest UTF-16 or UTF-32.
    case utf16WithoutByteOrderMark
    /// A declared encoding other than UTF-8.
    case encoding(String)
    /// An entity declaration in the DOCTYPE.
    case entityDeclaration
    /// A parameter entity reference in the DOCTYPE.
    case parameterEntity
    // Writing.
    /// A null root value.
    case nullRoot
    /// A null value under the `error` null policy.
    case nullValue
    /// A date outside years 0–9999 (seconds since 2001).
    case dateOutOfRange(secondsSince2001: Double)
    /// A string with a character XML 1.0 cannot carry (`U+XXXX`).
    case uncarriableCharacter(String)
    /// Containers nest deeper than `maxDepth`.
    case tooDeep(maxDepth: Int)

    public var code: PFError.Code {
        switch self {
        case .endsInsideTag, .endsInsideOpener, .endsInsideStartTag, .endsInsideAttributeValue, .endsInsideEndTag,
            .endsInsideComment, .endsInsideProcessingInstruction, .endsInsideQuotedLiteral, .endsInsideElement,
            .endsInsideCDATA, .endsInsideText, .endsInsideEntityReference, .endsInsideCharacterReference, .endsBeforeRoot,
            .endsBeforePlistValue, .endsBeforePlistEnd, .endsInsideXMLDeclaration, .endsInsideDoctype,
            .endsInsideInternalSubset:
            .truncated
        case .characterReferenceBeyondUnicode, .disallowedCharacterReference, .invalidUTF8, .notInteger,
            .integerWithoutDigits, .integerOutOfRange, .notReal, .notDate, .emptyScalar, .invalidBase64, .notEmpty,
            .duplicateKey:
            .invalidValue
        case .utf16ByteOrderMark, .utf16WithoutByteOrderMark, .encoding, .entityDeclaration, .parameterEntity, .notRecords:
            .unsupported
        case .nullRoot, .nullValue, .dateOutOfRange, .uncarriableCharacter: .unrepresentable
        case .tooDeep: .limitExceeded
        default: .syntax
        }
    }

    public var message: String {
        switch self {
        case .endsInsideTag: "the document ends inside a tag"
        case .endsInsideOpener(let opener): "the document ends inside '\(opener)'"
        case .endsInsideStartTag(let e): "the document ends inside the tag <\(e)"
        case .endsInsideAttributeValue: "the document ends inside an attribute value"
        case .endsInsideEndTag(let e): "the document ends inside the end tag </\(e)"
        case .endsInsideComment: "the document ends inside the comment that starts here; expected '-->'"
        case .endsInsideProcessingInstruction:
            "the document ends inside the processing instruction that starts here; expected '?>'"
        case .endsInsideQuotedLiteral: "the document ends inside a quoted literal"
        case .endsInsideElement(let e, let openedAt): "the document ends inside the <\(e)> opened at \(openedAt); expected </\(e)>"
        case .endsInsideCDATA: "the document ends inside the CDATA section that starts here; expected ']]>'"
        case .endsInsideText(let e): "the document ends inside <\(e)>; expected </\(e)>"
        case .endsInsideEntityReference: "the document ends inside an entity reference"
        case .endsInsideCharacterReference: "the document ends inside a character reference"
        case .endsBeforeRoot: "the document ends before its root element; expected <plist>"
        case .endsBeforePlistValue: "the document ends inside <plist>; expected a value"
        case .endsBeforePlistEnd: "the document ends inside <plist>; expected </plist>"
        case .endsInsideXMLDeclaration: "the document ends inside the XML declaration"
        case .endsInsideDoctype: "the document ends inside the DOCTYPE that starts here; expected '>'"
        case .endsInsideInternalSubset: "the document ends inside the DOCTYPE's internal subset; expected ']'"
        case .cdataOutsideText: "CDATA is text, which may only stand inside <string>, <key> or scalar elements"
        case .elementNameExpected: "expected an element name after '<'"
        case .unknownElement(let name): "unknown element <\(name)>; expected \(XMLPlistElement.expectedList)"
        case .slashWithoutGreater(let e): "expected '>' after '/' in <\(e)"
        case .tagSeparatorExpected(let e): "expected whitespace, '>' or '/>' in the tag <\(e)"
        case .attributeNameExpected(let e): "expected an attribute name, '>' or '/>' in the tag <\(e)"
        case .equalsExpected: "expected '=' after an attribute name"
        case .quotedValueExpected: "expected a quoted attribute value"
        case .lessThanInAttribute: "'<' is not allowed in an attribute value"
        case .mismatchedEndTag(let found, let e, let openedAt):
            "</\(found)> does not match the <\(e)> opened at \(openedAt); expected </\(e)>"
        case .endTagGreaterExpected(let e): "expected '>' to end </\(e)"
        case .misplacedXMLDeclaration: "an XML declaration may only stand at the very start of the document"
        case .nulInText: "a NUL byte is not allowed in XML text"
        case .elementInText(let e): "an element inside <\(e)>; expected text or </\(e)>"
        case .characterReferenceDigit: "invalid character in a character reference; expected digits and ';'"
        case .emptyCharacterReference: "empty character reference; expected digits"
        case .bareAmpersand: "'&' must start an entity reference such as &amp;; write a literal '&' as &amp;"
        case .unknownEntity(let text): "unknown entity '&\(text);'; expected &lt; &gt; &amp; &quot; &apos; or a character reference"
        case .emptyPlist: "<plist/> holds no value; expected a value inside <plist>"
        case .plistWithoutValue: "<plist> holds no value; expected a value before </plist>"
        case .plistWithSeveralValues: "<plist> holds more than one value; expected </plist>"
        case .contentAfterRoot: "unexpected content after the root element; expected the end of the document"
        case .secondDoctype: "a second DOCTYPE; expected the root element"
        case .xmlDeclarationEndExpected: "expected '?>' to end the XML declaration"
        case .xmlDeclarationCharacter: "unexpected character in the XML declaration; expected an attribute or '?>'"
        case .lessThanInDoctype: "unexpected '<' inside the DOCTYPE; expected '>'"
        case .noOpenContainer: "internal scanner state: no open container"
        case .keyWithoutValue(let key): "the key '\(key)' has no value; expected a value before </dict>"
        case .keyExpected(let found): "expected <key> or </dict>, found <\(found)>"
        case .keyOutsideDict: "<key> may only stand inside a <dict>, before each value; expected a value"
        case .nestedPlist: "<plist> may only be the root element; expected a value"
        case .valueWithoutKey: "a value without a <key>; expected <key> first"
        case .unexpectedText(let snippet, let expected): "unexpected text '\(snippet)'; expected \(expected)"
        case .characterReferenceBeyondUnicode: "character reference beyond U+10FFFF"
        case .disallowedCharacterReference(let value):
            "character reference to U+\(String(value, radix: 16, uppercase: true)), which is not an allowed character (NUL or a surrogate)"
        case .invalidUTF8(let e): "invalid UTF-8 in <\(e)>"
        case .notInteger(let text):
            "\(text) is not an integer; expected decimal digits or 0x and hex digits, with an optional sign"
        case .integerWithoutDigits(let text): "\(text) is not an integer; expected digits"
        case .integerOutOfRange(let text): "the integer \(text) is out of range; expected -2^63 … 2^64-1"
        case .notReal(let text): "\(text) is not a real number; expected decimal text such as -1.5e3, nan, inf or -inf"
        case .notDate(let text): "\(text) is not a date; expected YYYY-MM-DDTHH:MM:SSZ (UTC)"
        case .emptyScalar(let e): "empty <\(e)/>; expected text"
        case .invalidBase64(let reason): "invalid base64 in <data>: \(reason)"
        case .notEmpty(let e): "<\(e)> must be empty; write <\(e)/>"
        case .duplicateKey(let key): "duplicate key '\(key)' in <dict>; each key may appear once"
        case .notRecords:
            "the root is not an array of records or a <dict> whose first key, results, holds one; read the document whole"
        case .utf16ByteOrderMark:
            "the document is UTF-16 or UTF-32 (byte order mark); only UTF-8 is supported, convert it first"
        case .utf16WithoutByteOrderMark:
            "the document looks like UTF-16 or UTF-32 without a byte order mark; only UTF-8 is supported"
        case .encoding(let encoding): "the document declares encoding '\(encoding)'; only UTF-8 is supported, convert it first"
        case .entityDeclaration:
            "the DOCTYPE declares an entity; entity declarations are never processed (they allow 'billion laughs' expansion), remove the internal subset"
        case .parameterEntity: "parameter entity references in the DOCTYPE are not supported"
        case .nullRoot: "the root value is null; a property list cannot hold null"
        case .nullValue: "null cannot be written to a property list"
        case .dateOutOfRange(let seconds):
            "the date \(seconds)s since 2001 is outside years 0–9999; XML property lists write YYYY-MM-DDTHH:MM:SSZ"
        case .uncarriableCharacter(let name):
            "the string holds \(name), which XML 1.0 cannot carry (only tab, line feed and carriage return among control characters); store such text as data, or write a binary property list"
        case .tooDeep(let maxDepth): "containers nest deeper than \(maxDepth), the depth readers accept"
        }
    }
}
