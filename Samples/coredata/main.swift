// Prints a Core Data store's recovered model and its first objects.
//
//     swift run sample-coredata [path/to/Store.sqlite]
//
// Without an argument it reads a fixture store from the repository.
import Foundation
import PFArchive

let path = CommandLine.arguments.dropFirst().first
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/Fixtures/real/coredata/coredataplus/SampleModel2_V2.sqlite").path

do {
    let store = try CoreDataStore.open(url: URL(fileURLWithPath: path))
    defer { store.close() }
    print("Model from \(store.model.source.rawValue), framework version \(store.frameworkVersion.map(String.init) ?? "?")")
    for entity in store.entities {
        let parent = entity.superentity.map { " : \($0)" } ?? ""
        print("\(entity.name)\(parent) — \(try store.rowCount(entity: entity.name)) rows")
        for attribute in entity.attributes { print("  \(attribute.name): \(attribute.type)") }
        for relationship in entity.relationships {
            print("  \(relationship.name) -> \(relationship.destination)\(relationship.isToMany ? " (to-many)" : "")")
        }
        for object in try store.firstObjects(entity: entity.name, limit: 2) {
            print("  " + String(decoding: try JSONWriter().write(object), as: UTF8.self))
        }
    }
    for guess in store.guesses { print("guess: \(guess)") }
} catch {
    FileHandle.standardError.write(Data("sample-coredata: \(error)\n".utf8))
    exit(1)
}
