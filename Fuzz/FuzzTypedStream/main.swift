// libFuzzer target: typedstream (NSArchiver) documents, their value form and summary, and the
// walk by large containers against the whole conversion.
import Foundation
import PFCore
import PFFuzzSupport
import PFTypedStream

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTypedStream(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzDriver.data(bytes, count)
    let limits = FuzzDriver.limits
    _ = try? TypedStream.info(data, limits: limits)
    if let value = try? TypedStream.decodeValue(data, limits: limits) {
        FuzzDriver.exercise(value)
        _ = try? TypedStream.encodeValue(value, limits: limits)
    }
    fuzzWalk(data)
    return 0
}

/// `TypedStream.walk` with a tiny threshold against `decodeValue`: the events put back together
/// are its value, or the walk fails with its error word for word; a stream the reader refuses
/// (rather than the conversion, which may fail after the walk has begun) hands out no event.
func fuzzWalk(_ data: Data) {
    let limits = FuzzDriver.limits
    let whole = Result { () throws(PFError) -> PFValue in try TypedStream.decodeValue(data, limits: limits) }
    var rebuilder = DocumentRebuilder()
    var declined = false
    let walked = Result { () throws(PFError) in
        declined = try !TypedStream.walk(data, limits: limits, threshold: 2) { event throws(PFError) in rebuilder.take(event) }
    }
    if declined { return }
    if (try? TypedStream.readDocument(data, limits: limits)) == nil, rebuilder.root != nil {
        fatalError("the typedstream walk handed out events for a stream the reader refuses")
    }
    switch (whole, walked) {
    case (.success(let value), .success):
        if rebuilder.root != value { fatalError("the typedstream walk rebuilds \(String(describing: rebuilder.root)), decodeValue reads \(value)") }
    case (.failure(let error), .failure(let walkError)):
        if error.description != walkError.description { fatalError("the typedstream walk fails with \(walkError), decodeValue with \(error)") }
    case (.failure(let error), .success):
        fatalError("the typedstream walk accepts what decodeValue refuses: \(error)")
    case (.success, .failure(let walkError)):
        fatalError("the typedstream walk refuses what decodeValue reads: \(walkError)")
    }
}

FuzzDriver.main(fuzzTypedStream)
