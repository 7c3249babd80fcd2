extension String {
    /// The string with every `scalar` doubled, compared scalar by scalar: the escape of an
    /// SQL quoted identifier (`"`) or string literal (`'`).
    ///
    /// `replacingOccurrences(of:with:)` compares Characters, and a quote followed by a
    /// combining mark (`"\u{301}`) is one Character that is not `"`: it is left single, which
    /// ends the quoted name early. Names come from the data (tables, classes and fields of
    /// untrusted files), so every SQL quoting goes through here.
    /// - Parameter scalar: the scalar to double, such as `"`.
    /// - Returns: the escaped string (the string itself when it holds no `scalar`).
    public func doublingEvery(_ scalar: Unicode.Scalar) -> String {
        guard unicodeScalars.contains(scalar) else { return self }
        var out = String.UnicodeScalarView()
        for s in unicodeScalars {
            out.append(s)
            if s == scalar { out.append(s) }
        }
        return String(out)
    }
}
