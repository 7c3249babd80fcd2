// Uses the types `pfarchive codegen` generated from the sample export (Samples/data/scores.json):
// every row decodes into a `GameScore` struct, an edit is saved as Parse operations, and the rows
// encode back to what they were.
//
// Regenerate the types, build and run: bash Samples/codegen/generate.sh
// (or, with Models/ as committed: swift run sample-codegen)
import Foundation
import PFArchive

let export = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../data/scores.json")
let adapter = ParseAdapter()

do {
    let rows = try ParseExport.rows(fromJSON: try Data(contentsOf: export)).rows
    for row in rows {
        let object = try ParseObject(rest: row)
        // The dispatch table picks the generated type by the object's class.
        guard let score = try GeneratedModels.dispatch.decode(object, with: adapter) as? GameScore else { continue }
        print("\(score.playerName): \(score.score) (\(score.tags.joined(separator: ", "))), last played \(score.lastPlayed)")

        var edited = score
        edited.score += 1
        let update = try adapter.parseObject(updating: object, with: edited)
        print("  save payload after an edit: \(update.savePayload())")

        let back = try adapter.restValue(of: score, preservingUnmappedFrom: object)
        print("  encodes back with \(back.dictionaryValue?.count ?? 0) keys")
    }
} catch {
    FileHandle.standardError.write(Data("sample-codegen: \(error)\n".utf8))
    exit(1)
}
