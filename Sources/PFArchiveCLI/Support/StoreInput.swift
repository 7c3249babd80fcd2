import ArgumentParser
import Foundation
import OrderedCollections
import PFArchive
import PFSQLiteStore

extension Convert {
    /// Converts a Core Data store or pfarchive's SQLite store to one document in the output
    /// format: `{"Class": [objects…], "_Join:field:Class": [{"owningId", "relatedId"}…]}`,
    /// objects as typed values (dates and bytes typed, special Parse types as `__type`
    /// dictionaries), classes in the store's order, then the join rows of its Relations.
    /// Values kept as stored or left out are warnings on stderr, as in `import`.
    func convertStore(limits: PFLimits) throws {
        if outputIsRecords {
            throw CLIFailure(
                "\(output): \(outputFormat == .cborseq ? "a CBOR sequence holds" : "JSON lines hold") records of one kind, and \(input) is a store of classes; "
                    + "convert it to .json (one {\"Class\": [objects…]} document), or import it into a .ndjson file (one object per line, with its className)")
        }
        let reporter = SQLiteInput.Reporter(file: input)
        var openers = StoreOpeners.commands()
        openers.registerCoreData(decodeBlobs: blobs.decodeBlobs, limits: limits, includeHistory: internalTables, reporter: reporter)
        let document: PFValue
        do {
            let location = try StoreLocation.resolve(input)
            let reader = try openers.reader(for: location)
            defer { reader.close() }
            reader.warnUnread(file: input)
            document = try Self.document(of: reader)
        } catch {
            throw CLIFailure(file: input, error)
        }
        reporter.finish()
        try writeOutput(document)
    }

    /// Every object and join row of a store as one dictionary.
    static func document(of reader: any ObjectStoreReader) throws(PFError) -> PFValue {
        var document = OrderedDictionary<String, PFValue>()
        for className in try reader.classNames() {
            var objects: [PFValue] = []
            try reader.forEachObject(in: className) { (object: ParseObject) throws(PFError) in
                // The document's key names the class; objects a store read with their
                // `className` key (pfarchive's store keeps the source's key order) drop it.
                guard case .dictionary(var members) = object.typedValue else { return }
                if members["className"] == .string(className) { members.removeValue(forKey: "className") }
                objects.append(.dictionary(members))
            }
            document[className] = .array(objects)
        }
        for relation in try reader.relations() {
            var rows: [PFValue] = []
            try reader.forEachJoinRow(of: relation) { (row: ParseJoinRow) throws(PFError) in
                rows.append(["owningId": .string(row.owningId), "relatedId": .string(row.relatedId)])
            }
            guard !rows.isEmpty else { continue }
            document[relation.joinClassName] = .array(rows)
        }
        return .dictionary(document)
    }
}
