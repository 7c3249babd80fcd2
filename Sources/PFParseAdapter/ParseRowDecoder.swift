import PFCore
import PFJSON

/// One decoder for the rows of a class file, reused from row to row so that what it resolved
/// about the model's keys carries over: how PFParseExport's `decodeExport` drives the adapter
/// without reaching into its decoder.
package struct ParseRowDecoder {
    let adapter: ParseAdapter
    let impl: ParseDecoderImpl

    /// Decodes a row read in place from json-c's tree.
    package func decode<M: ParseModel>(_ type: M.Type, node: JSONNode) throws(PFError) -> M {
        try adapter.decode(type, from: .node(node), using: impl)
    }

    /// Decodes a row held as a value tree.
    package func decode<M: ParseModel>(_ type: M.Type, value: PFValue) throws(PFError) -> M {
        try adapter.decode(type, from: .value(value), using: impl)
    }
}

extension ParseAdapter {
    /// A decoder for a run of rows; each thread decoding rows needs its own.
    package func rowDecoder() -> ParseRowDecoder {
        ParseRowDecoder(adapter: self, impl: ParseDecoderImpl(value: .value(.null), options: options, cache: cache, collect: false))
    }
}
