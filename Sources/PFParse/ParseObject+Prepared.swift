import Foundation
import OrderedCollections
import PFCore

/// A field value held as the compact REST JSON a store writes for it, made by a source that
/// writes that text straight from the bytes it read (a binary property list in a database
/// column, ``PFPropertyList``'s `BinaryPlistRESTJSON`), with no value tree in between.
///
/// The text is exactly what `JSONWriter().write(value.restValue)` writes for ``value``, so a
/// store that keeps JSON text (pfarchive's SQLite store) writes it as it is. Everything else
/// reads the object's ``ParseObject/fields``, which makes the value the general way, so no
/// reader can lose it. A prepared value is an Object or an Array that holds no Pointer,
/// Relation or embedded object (its source gives up on any `__type`).
package struct ParsePreparedValue: Sendable {
    /// The value's compact REST JSON.
    package let json: [UInt8]
    /// The value's field type: ``ParseFieldType/object`` or ``ParseFieldType/array``.
    package let type: ParseFieldType
    /// Makes the value the general way (from the source's bytes), when something reads it.
    package let make: @Sendable () -> ParseValue

    /// Makes a prepared value.
    package init(json: [UInt8], type: ParseFieldType, make: @escaping @Sendable () -> ParseValue) {
        self.json = json
        self.type = type
        self.make = make
    }
}

/// A prepared field of an object: its name, its index in ``ParseObject/storedFields`` and its
/// value.
package struct ParsePreparedField: Sendable {
    /// The field's index in the stored fields (which hold a `null` placeholder there).
    package let index: Int
    /// The field's name.
    package let key: String
    /// The value.
    package let value: ParsePreparedValue

    /// Makes a prepared field.
    package init(index: Int, key: String, value: ParsePreparedValue) {
        self.index = index
        self.key = key
        self.value = value
    }
}

extension ParseObject {
    /// Holds the fields of `prepared` as prepared JSON instead of their placeholders, when
    /// each one is the `null` field at its index, in increasing order; otherwise changes
    /// nothing.
    /// - Parameter prepared: the prepared fields.
    /// - Returns: whether they were attached.
    package mutating func attachPrepared(_ prepared: [ParsePreparedField]) -> Bool {
        materializePrepared()
        var previous = -1
        for field in prepared {
            guard field.index > previous, field.index < storedFields.count, storedFields.keys[field.index] == field.key,
                storedFields.values[field.index] == .null
            else { return false }
            previous = field.index
        }
        preparedFields = prepared
        return true
    }

    /// The position in ``preparedFields`` of the stored field at `index`, if it is prepared.
    /// (By position: iterating the fields would copy each, a retain per member.)
    @inline(__always)
    func preparedPosition(of index: Int) -> Int? {
        guard !preparedFields.isEmpty else { return nil }
        for i in preparedFields.indices where preparedFields[i].index == index { return i }
        return nil
    }

    /// The prepared value of the stored field at `index`, if it is one.
    @inline(__always)
    package func preparedValue(at index: Int) -> ParsePreparedValue? {
        preparedPosition(of: index).map { preparedFields[$0].value }
    }

    /// The field type of the stored field at `index` (`nil` for null), told without making a
    /// prepared value.
    package func fieldType(at index: Int) -> ParseFieldType? {
        if let i = preparedPosition(of: index) { return preparedFields[i].value.type }
        return storedFields.values[index].fieldType
    }

    /// The schema field of the stored field at `index` (`nil` for null), told without making
    /// a prepared value.
    package func schemaField(at index: Int) -> ParseSchema.Field? {
        if let i = preparedPosition(of: index) { return ParseSchema.Field(preparedFields[i].value.type) }
        return ParseSchema.fieldType(of: storedFields.values[index])
    }

    /// The fields with every prepared value made.
    var materializedFields: OrderedDictionary<String, ParseValue> {
        var fields = storedFields
        for field in preparedFields { fields.values[field.index] = field.value.make() }
        return fields
    }

    /// Makes every prepared value and holds it as an ordinary field.
    mutating func materializePrepared() {
        guard !preparedFields.isEmpty else { return }
        storedFields = materializedFields
        preparedFields = []
    }
}
