// MARK: - CBORInfo

/// Facts about a CBOR input, for `pfarchive inspect`.
public struct CBORInfo: Sendable, Equatable {
    /// Each tag number seen, with how many times it occurs (the self-describe tag included).
    public var tags: [UInt64: Int]
    /// The number of data items in the input; tags, breaks and the chunks of an
    /// indefinite-length string are not counted.
    public var items: Int
    /// Whether any array, map or string uses an indefinite length.
    public var hasIndefiniteLengths: Bool
    /// Whether the input contains the self-describe tag 55799.
    public var hasSelfDescribeTag: Bool
    /// How many `undefined` values the input holds (each read as null: the model has no
    /// "undefined").
    public var undefinedValues: Int

    /// Makes an info record.
    /// - Parameters:
    ///   - tags: tag number → occurrences.
    ///   - items: the number of data items.
    ///   - hasIndefiniteLengths: whether any item uses an indefinite length.
    ///   - hasSelfDescribeTag: whether the self-describe tag occurs.
    ///   - undefinedValues: how many `undefined` values occur.
    public init(tags: [UInt64: Int], items: Int, hasIndefiniteLengths: Bool, hasSelfDescribeTag: Bool, undefinedValues: Int = 0) {
        self.tags = tags
        self.items = items
        self.hasIndefiniteLengths = hasIndefiniteLengths
        self.hasSelfDescribeTag = hasSelfDescribeTag
        self.undefinedValues = undefinedValues
    }
}
