import Foundation
import PFCompression
import PFCore
import PFTestSupport
import Testing

/// Runs `body`, expects it to throw a ``PFError`` with `code` (made from `failure`, or
/// naming `limit` and, when given, `limitValue`), and returns the error.
@discardableResult
func expectPFError(
    _ code: PFError.Code, failure expected: CompressionFailure? = nil, limit: String? = nil, limitValue: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> PFError? {
    do {
        try body()
        Issue.record("expected a PFError with code \(code), but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as PFError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let expected {
            #expect(error.failure(as: CompressionFailure.self) == expected, "\(error)", sourceLocation: sourceLocation)
        }
        if let limit {
            #expect(error.exceededLimit?.limit == limit, "\(error)", sourceLocation: sourceLocation)
        }
        if let limitValue {
            #expect(error.exceededLimit?.value == limitValue, "\(error)", sourceLocation: sourceLocation)
        }
        return error
    } catch {
        Issue.record("expected a PFError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension PFError {
    /// The limit a limit error names, whether PFCore or PFCompression reported it.
    var exceededLimit: (limit: String, value: Int)? {
        if case .limitExceeded(let limit, let value)? = failure(as: PFCoreFailure.self) { return (limit, value) }
        switch failure(as: CompressionFailure.self) {
        case .limitExceeded(let limit, let value, _, _)?, .entryLimitExceeded(_, let limit, let value)?:
            return (limit, value)
        default:
            return nil
        }
    }
}

/// Runs a Python script through the peers' interpreter, failing the test (never skipping)
/// when Python or a module is missing.
func pythonPeer(_ script: String, _ arguments: [String] = [], input: Data? = nil) throws -> Data {
    let result: Peers.Result
    do {
        result = try Peers.python(script, arguments, input: input)
    } catch {
        Issue.record("cannot run Python (\(Peers.python)): \(error); run scripts/setup.sh")
        throw error
    }
    guard result.status == 0 else {
        Issue.record("Python peer failed with status \(result.status): \(result.stderr); run scripts/setup.sh")
        throw PFError(.io, format: .input, "peer failed")
    }
    return result.stdout
}

/// Splits `data` into pieces of `size` bytes (the last may be shorter).
func pieces(of data: Data, size: Int) -> [Data] {
    precondition(size > 0, "Piece size must be positive.")
    var out: [Data] = []
    var start = data.startIndex
    while start < data.endIndex {
        let end = min(start + size, data.endIndex)
        out.append(data[start..<end])
        start = end
    }
    return out
}

/// Inflates `data` through an ``Inflater`` fed `size`-byte pieces.
func streamInflate(_ data: Data, format: CompressionFormat, pieceSize: Int, limits: PFLimits = .default)
    throws(PFError) -> Data
{
    let inflater = try Inflater(format: format, limits: limits)
    var out = Data()
    for piece in pieces(of: data, size: pieceSize) {
        try inflater.process(piece) { out.append(contentsOf: $0) }
    }
    try inflater.finish()
    return out
}

/// Deflates `data` through a ``Deflater`` fed `size`-byte pieces.
func streamDeflate(_ data: Data, format: CompressionFormat, level: Int = 6, pieceSize: Int) throws(PFError) -> Data {
    let deflater = try Deflater(format: format, level: level)
    var out = Data()
    for piece in pieces(of: data, size: pieceSize) {
        try deflater.process(piece) { out.append(contentsOf: $0) }
    }
    try deflater.finish { out.append(contentsOf: $0) }
    return out
}

/// A hostile corpus file's bytes.
func hostile(_ name: String) throws -> Data {
    try Fixtures.data(Fixtures.hostile.appendingPathComponent(name))
}
