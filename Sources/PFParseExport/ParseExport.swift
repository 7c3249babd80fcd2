import Foundation
import OrderedCollections
import PFCore
import PFJSON
import PFParse

/// Parse's export and import files: a class file holds one object, an array of objects, or
/// `{"results":[…]}`; an empty class is a 0-byte file; a directory holds `<Class>.json` files
/// and `_Join:<field>:<Class>.json` relation tables.
public enum ParseExport {
    /// How a document holds its objects, so it can be written back the same way.
    public enum Shape: Sendable, Equatable {
        /// One object.
        case single
        /// A bare array (parse-dashboard's export).
        case array
        /// `{"results":[…]}` (Parse.com's export, REST query responses).
        case results
        /// A 0-byte file (an empty class in a Parse.com export).
        case empty
    }

    /// The rows of a class file and how they were held.
    /// - Parameter document: the parsed JSON (`nil` for a 0-byte file).
    /// - Returns: the rows and the shape.
    /// - Throws: ``PFCore/PFError`` with Parse code 107 when the value is not an object, an
    ///   array or `{"results":[…]}`.
    public static func rows(of document: PFValue?) throws(PFError) -> (rows: [PFValue], shape: Shape) {
        guard let document else { return ([], .empty) }
        switch document {
        case .array(let items): return (items, .array)
        case .dictionary(let d):
            if d["objectId"] == nil, d["__type"] == nil, let results = d["results"] {
                guard case .array(let items) = results else {
                    throw PFError(ParseExportFailure.resultsNotArray, format: ParseFailure.format, path: [.key("results")])
                }
                return (items, .results)
            }
            return ([document], .single)
        default:
            throw PFError(ParseExportFailure.notADocument(found: ParseFailure.describe(document)), format: ParseFailure.format)
        }
    }

    /// Reads a class file's JSON bytes (a 0-byte file is an empty class).
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - limits: budgets for the JSON reader.
    /// - Returns: the rows and the shape.
    /// - Throws: ``PFCore/PFError`` from the JSON reader, or Parse code 107.
    public static func rows(fromJSON file: Data, limits: PFLimits = .default) throws(PFError) -> (rows: [PFValue], shape: Shape) {
        // A UTF-8 byte order mark (a class file saved by a Windows editor) is not part of the document.
        let bytes = file.starts(with: ParseExportRowCutter.byteOrderMark) ? file.dropFirst(ParseExportRowCutter.byteOrderMark.count) : file
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return try rows(of: nil) }
        // Typed values off: a malformed Date or Bytes is then reported by the Parse layer (code
        // 111, per object) instead of failing the whole file in the JSON reader.
        // A duplicated key (two "results", two "objectId") makes an export ambiguous: refuse it,
        // as the streaming row reader does.
        var options = JSONReader.Options(mode: .strict, typedValues: false, limits: limits)
        options.rejectDuplicateKeys = true
        let value = try JSONReader(options: options).read(bytes)
        return try rows(of: value)
    }

    /// Reads the objects of a class file.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - className: the class (from the file name); `nil` to take it from each object.
    ///   - limits: budgets for the JSON reader.
    /// - Returns: the objects.
    /// - Throws: ``PFCore/PFError`` from the reader or ``ParseObject/init(rest:className:)``
    ///   (with the row index in the path).
    public static func objects(fromJSON bytes: Data, className: String?, limits: PFLimits = .default) throws(PFError) -> [ParseObject] {
        let (rows, shape) = try rows(fromJSON: bytes, limits: limits)
        var out: [ParseObject] = []
        out.reserveCapacity(rows.count)
        for (i, row) in rows.enumerated() {
            do throws(PFError) {
                out.append(try ParseObject(rest: row, className: className))
            } catch {
                throw error.prefixed(by: rowPath(i, shape: shape))
            }
        }
        return out
    }

    /// The document for objects written in a shape.
    /// - Parameters:
    ///   - objects: the objects.
    ///   - shape: the shape (``Shape/empty`` and ``Shape/results`` both write `{"results":[…]}`).
    ///   - style: REST or typed values.
    ///   - sortedKeys: sort every object's keys, as Parse.com exports do.
    /// - Returns: the JSON value.
    public static func document(_ objects: [ParseObject], shape: Shape, style: ParseRESTStyle = .rest, sortedKeys: Bool = false) -> PFValue {
        let rows = objects.map { $0.encoded(style: style, sortedKeys: sortedKeys) }
        switch shape {
        case .single where rows.count == 1: return rows[0]
        case .array: return .array(rows)
        default: return ["results": .array(rows)]
        }
    }

    /// The class a file name stands for: `GameScore.json` → `GameScore`; `_Join꞉tags꞉Article.json`
    /// (U+A789, as some exports spell `:`; also `%3A` or a space) → `_Join:tags:Article`
    /// (``PFParse/ParseRelationKey/init(joinFileStem:)``).
    /// - Parameter url: the file.
    /// - Returns: the class name.
    /// A gzip-compressed class file (`GameScore.json.gz`) stands for the same class as its
    /// `.json`.
    public static func className(forFile url: URL) -> String {
        var name = jsonName(ofFile: url.lastPathComponent)
        if name.lowercased().hasSuffix(".json") { name = String(name.dropLast(5)) }
        return ParseRelationKey(joinFileStem: name)?.joinClassName ?? name.replacingOccurrences(of: "\u{A789}", with: ":")
    }

    /// A file name without the `.gz` a compressed class file adds: `GameScore.json.gz` →
    /// `GameScore.json`; any other name as it is.
    /// - Parameter name: the file name (last path component).
    /// - Returns: the name of the JSON the file holds.
    public static func jsonName(ofFile name: String) -> String {
        name.lowercased().hasSuffix(".json.gz") ? String(name.dropLast(3)) : name
    }

    /// Whether a file name can hold one of an export's class files: `<name>.json`, or
    /// `<name>.json.gz` for one compressed with gzip (its bytes decide: a class file of
    /// either name is read through zlib when it starts with gzip's or zlib's magic bytes),
    /// and not hidden (a leading `.`).
    /// - Parameter name: the file name (last path component).
    /// - Returns: `true` for a class file's name.
    public static func isClassFileName(_ name: String) -> Bool {
        !name.hasPrefix(".") && jsonName(ofFile: name).lowercased().hasSuffix(".json")
    }

    /// The class files of an export directory (``isClassFileName(_:)``), sorted by name.
    /// - Parameter directory: the directory.
    /// - Returns: the files.
    /// - Throws: ``PFCore/PFError`` with code `io` when the directory cannot be listed.
    public static func classFiles(in directory: URL) throws(PFError) -> [URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw PFError(ParseExportFailure.cannotList(path: directory.path, reason: error.localizedDescription), format: ParseFailure.format)
        }
        return names.filter(isClassFileName).sorted()
            .map { directory.appendingPathComponent($0) }
    }

    /// The key path of row `i` in a file of `shape`: `results[3]`, `[3]`, or the root for a
    /// one-object file.
    /// - Parameters:
    ///   - i: the row's index.
    ///   - shape: how the file holds its rows.
    /// - Returns: the path.
    public static func rowPath(_ i: Int, shape: Shape) -> PFKeyPath {
        switch shape {
        case .results: PFKeyPath([.key("results"), .index(i)])
        case .array: PFKeyPath([.index(i)])
        case .single, .empty: .root
        }
    }
}
