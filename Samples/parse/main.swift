// A tour of the Parse model adapter: a class file read row by row into plain structs
// (snake_case columns, a Pointer or an included nested model, a default for a missing key), an edit
// saved as operations, a merge that does not clobber, class dispatch and validation.
//
// Run it with: swift run sample-parse
// (the package needs `.executableTarget(name: "SampleParse", dependencies: ["PFArchive"],
// path: "Samples/parse")` and a `sample-parse` executable product).
import Foundation
import PFArchive

struct Team: ParseModel {
    var objectId: String?
    var name: String?
    static let parseClassName = "Team"
}

struct Player: ParseModel {
    var objectId: String?
    var createdAt: Date?
    var playerName: String                 // column player_name
    var highScore: Int                     // column high_score, 0 when missing
    var nickname: String?
    var team: ParseReference<Team>         // a Pointer stub, or the whole Team when included
    var city: String?                      // location.city
    static let parseClassName = "Player"
    static var parseKeyMap: ParseKeyMap { ParseKeyMap(["city": "location.city"], strategy: .convertToSnakeCase) }
    static var parseDefaults: [String: PFValue] { ["highScore": 0] }
    static var parseValidators: [String: [ParsePropertyValidator]] { ["playerName": [.nonEmpty, .maxLength(40)]] }
}

struct Coach: ParseModel {
    var objectId: String?
    var name: String
    static let parseClassName = "Coach"
}

let export = Data("""
    {"results":[
      {"objectId":"p1","createdAt":"2024-05-01T10:00:00.123Z","player_name":"Zoë","high_score":1337,
       "team":{"__type":"Pointer","className":"Team","objectId":"t1"},"location":{"city":"Oslo","zip":"0150"}},
      {"objectId":"p2","createdAt":"2024-05-02T11:30:00.000Z","player_name":"李雷",
       "team":{"__type":"Object","className":"Team","objectId":"t2","name":"Fjord"}}
    ]}
    """.utf8)

func show(_ value: PFValue) -> String {
    (try? String(decoding: JSONWriter().write(value), as: UTF8.self)) ?? "?"
}

do {
    // A Pointer stub has no data: a plain `Team` property would fail on row 0 with a clear
    // error naming results[0].team; `ParseReference<Team>` takes either form.
    let adapter = ParseAdapter()

    // 1. A whole class file, one row at a time, into models.
    let players = try adapter.decodeExport(Player.self, fromJSON: export)
    for p in players {
        print("\(p.objectId ?? "-")  \(p.playerName)  score \(p.highScore)  team \(p.team.pointer?.objectId ?? p.team.model?.objectId ?? "-")  city \(p.city ?? "-")")
    }

    // 2. Edit a model and save only what changed, as REST operations.
    let original = try ParseExport.objects(fromJSON: export, className: "Player")[0]
    var edited = players[0]
    edited.highScore += 10
    edited.nickname = "Z"
    edited.city = nil
    let update = try adapter.parseObject(updating: original, with: edited)
    print("save payload:", show(update.savePayload()))

    // 3. Merge an incoming partial row: present keys win, missing keys keep the model's values.
    let merged = try adapter.merge(players[1], with: ["high_score": 99, "location": ["city": "Turku"]])
    print("merged:", merged.playerName, merged.highScore, merged.city ?? "-")

    // 4. Class dispatch: the model type comes from the className.
    let dispatch = ParseClassDispatch([Player.self, Coach.self])
    let coachRow = try ParseObject(rest: ["objectId": "c1", "name": "Ingrid"], className: "Coach")
    print("dispatched:", try dispatch.decode(coachRow, with: adapter))

    // 5. Validation: every failure, by key path, instead of stopping at the first.
    let bad = try ParseObject(rest: ["objectId": "p3", "player_name": "", "high_score": "lots"], className: "Player")
    let (_, issues) = adapter.decodeCollectingIssues(Player.self, from: bad)
    for issue in issues { print("issue:", issue) }
} catch {
    FileHandle.standardError.write(Data("sample-parse: \(error)\n".utf8))
    exit(1)
}
