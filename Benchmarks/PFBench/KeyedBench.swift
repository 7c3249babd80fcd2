import Foundation
import PFArchive

/// Archiving and unarchiving object graphs: pfarchive's KeyedArchiver/KeyedUnarchiver against
/// Foundation's NSKeyedArchiver/NSKeyedUnarchiver, on Parse-like graphs (scores sharing players).
enum KeyedBench {
    final class Player: ArchiveCoding {
        static let archiveClassName = "Player"
        var name: String
        var level: Int

        init(name: String, level: Int) {
            self.name = name
            self.level = level
        }

        func encode(with coder: KeyedArchiver) throws {
            try coder.encode(name, forKey: "name")
            coder.encode(level, forKey: "level")
        }

        init(from coder: KeyedUnarchiver) throws {
            name = try coder.decode(String.self, forKey: "name")
            level = try coder.decode(Int.self, forKey: "level")
        }
    }

    final class Score: ArchiveCoding {
        static let archiveClassName = "GameScore"
        var objectId: String
        var score: Int
        var ratio: Double
        var cheatMode: Bool
        var createdAt: Date
        var player: Player

        init(objectId: String, score: Int, ratio: Double, cheatMode: Bool, createdAt: Date, player: Player) {
            self.objectId = objectId
            self.score = score
            self.ratio = ratio
            self.cheatMode = cheatMode
            self.createdAt = createdAt
            self.player = player
        }

        func encode(with coder: KeyedArchiver) throws {
            try coder.encode(objectId, forKey: "objectId")
            coder.encode(score, forKey: "score")
            coder.encode(ratio, forKey: "ratio")
            coder.encode(cheatMode, forKey: "cheatMode")
            try coder.encode(createdAt, forKey: "createdAt")
            try coder.encode(player, forKey: "player")
        }

        init(from coder: KeyedUnarchiver) throws {
            objectId = try coder.decode(String.self, forKey: "objectId")
            score = try coder.decode(Int.self, forKey: "score")
            ratio = try coder.decode(Double.self, forKey: "ratio")
            cheatMode = try coder.decode(Bool.self, forKey: "cheatMode")
            createdAt = try coder.decode(Date.self, forKey: "createdAt")
            player = try coder.decode(Player.self, forKey: "player")
        }
    }

    /// `count` objects in all: one player per ten scores.
    static func graph(_ count: Int) -> [Score] {
        let players = (0..<max(1, count / 11)).map { Player(name: "player \($0)", level: $0 % 60) }
        var scores: [Score] = []
        scores.reserveCapacity(count)
        for i in 0..<(count - players.count) {
            let ratio = Double(i) / 3
            let date = Date(timeIntervalSinceReferenceDate: Double(i))
            scores.append(Score(objectId: "o\(i)", score: i * 7, ratio: ratio, cheatMode: i % 2 == 0, createdAt: date, player: players[i % players.count]))
        }
        return scores
    }

    static func run(_ bench: inout Bench) {
        let registry = ArchiveClassRegistry([Player.self, Score.self])
        for count in [10_000, 100_000] {
            let roots = graph(count)
            guard let data = try? KeyedArchiver.archivedData(withRootObject: roots) else {
                print("keyed: archiving failed"); return
            }
            bench.measure("pfarchive archive \(count) objects", group: "keyed", bytes: data.count, units: count, unitName: "obj") {
                _ = try? KeyedArchiver.archivedData(withRootObject: roots)
            }
            bench.measure("pfarchive unarchive \(count) objects", group: "keyed", bytes: data.count, units: count, unitName: "obj") {
                _ = try? KeyedUnarchiver.unarchivedObject(ofType: [Score].self, from: data, registry: registry)
            }
        }
        // Foundation on Linux archives in worse than linear time, so it gets a small graph.
        let count = 500
        let players = (0..<(count / 11)).map { FPlayer(name: "player \($0)", level: $0) }
        let roots = NSArray(array: (0..<(count - players.count)).map { FScore(objectId: "o\($0)", score: $0, player: players[$0 % players.count]) })
        guard let data = try? NSKeyedArchiver.archivedData(withRootObject: roots, requiringSecureCoding: true) else {
            print("keyed: Foundation archiving failed"); return
        }
        bench.measure("Foundation archive \(count) objects", group: "keyed", bytes: data.count, units: count, unitName: "obj") {
            _ = try? NSKeyedArchiver.archivedData(withRootObject: roots, requiringSecureCoding: true)
        }
        bench.measure("Foundation unarchive \(count) objects", group: "keyed", bytes: data.count, units: count, unitName: "obj") {
            _ = try? NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, FScore.self, FPlayer.self, NSString.self], from: data)
        }
    }
}

// Foundation's equivalent, for the comparison (NSKeyedArchiver on Linux needs top-level classes).
final class FPlayer: NSObject, NSSecureCoding {
    static let supportsSecureCoding = true
    let name: String
    let level: Int
    init(name: String, level: Int) { self.name = name; self.level = level }
    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(level, forKey: "level")
    }
    required init?(coder: NSCoder) {
        name = (coder.decodeObject(of: NSString.self, forKey: "name") as String?) ?? ""
        level = coder.decodeInteger(forKey: "level")
    }
}

final class FScore: NSObject, NSSecureCoding {
    static let supportsSecureCoding = true
    let objectId: String
    let score: Int
    let player: FPlayer
    init(objectId: String, score: Int, player: FPlayer) { self.objectId = objectId; self.score = score; self.player = player }
    func encode(with coder: NSCoder) {
        coder.encode(objectId as NSString, forKey: "objectId")
        coder.encode(score, forKey: "score")
        coder.encode(player, forKey: "player")
    }
    required init?(coder: NSCoder) {
        objectId = (coder.decodeObject(of: NSString.self, forKey: "objectId") as String?) ?? ""
        score = coder.decodeInteger(forKey: "score")
        guard let player = coder.decodeObject(of: FPlayer.self, forKey: "player") else { return nil }
        self.player = player
    }
}

