import Foundation
import PFCore
import PFJSON
import PFParse
import PFParseAdapter
import PropertyBased
import Testing

/// Random models for round-trip properties: nested models, optionals, arrays, dates with
/// milliseconds and unicode strings.
enum ModelGen {
    static let pieces = ["a", "Zoë", "李雷", "🎉", "naïve", "\"q\"", "tab\t", "line\n", "\\", "€", "x²", " ", "Ω", "\u{1F600}"]

    static func string(_ rng: inout any SeededRandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...5, using: &rng)).map { _ in pieces.randomElement(using: &rng) ?? "" }.joined()
    }

    static func date(_ rng: inout any SeededRandomNumberGenerator) -> Date {
        // Whole milliseconds (Parse's precision) between 1900 and 2200.
        Date(timeIntervalSince1970: Double(Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &rng)) / 1000)
    }

    static func address(_ rng: inout any SeededRandomNumberGenerator) -> Address {
        Address(
            objectId: Bool.random(using: &rng) ? "A" + String(Int.random(in: 0...99_999, using: &rng)) : nil,
            street: string(&rng), city: Bool.random(using: &rng) ? string(&rng) : nil)
    }

    static func person(_ rng: inout any SeededRandomNumberGenerator) -> Person {
        Person(
            objectId: Bool.random(using: &rng) ? "P" + String(Int.random(in: 0...99_999, using: &rng)) : nil,
            createdAt: Bool.random(using: &rng) ? date(&rng) : nil,
            updatedAt: Bool.random(using: &rng) ? date(&rng) : nil,
            name: string(&rng),
            nickname: Bool.random(using: &rng) ? string(&rng) : nil,
            age: Int.random(in: Int.min...Int.max, using: &rng),
            score: [0.0, -0.5, 1e300, 1.0 / 3.0, Double.random(in: -1e6...1e6, using: &rng)].randomElement(using: &rng) ?? 0,
            born: date(&rng),
            tags: (0..<Int.random(in: 0...4, using: &rng)).map { _ in string(&rng) },
            home: Bool.random(using: &rng) ? address(&rng) : nil,
            friends: (0..<Int.random(in: 0...3, using: &rng)).map { _ in address(&rng) },
            city: Bool.random(using: &rng) ? string(&rng) : nil,
            active: Bool.random(using: &rng),
            avatar: Bool.random(using: &rng) ? Data((0..<Int.random(in: 0...9, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }) : nil)
    }

    static var people: Generator<Person, Shrink.None<Person>> { Generator(run: { rng in person(&rng) }) }

    /// A person's dictionary plus random keys the model does not map.
    static var dictionaries: Generator<PFValue, Shrink.None<PFValue>> {
        Generator(run: { rng in
            let rest = (try? ParseAdapter().restValue(of: person(&rng))) ?? [:]
            guard case .dictionary(var d) = rest else { return rest }
            for i in 0..<Int.random(in: 0...3, using: &rng) {
                d["extra\(i)"] = [PFValue.int(Int64(i)), .string(string(&rng)), .bool(true), ["k": .string(string(&rng))]]
                    .randomElement(using: &rng) ?? .null
            }
            if Bool.random(using: &rng), case .dictionary(var location)? = d["location"] {
                location["zip"] = .string(string(&rng))
                d["location"] = .dictionary(location)
            }
            return .dictionary(d)
        })
    }
}

@Suite struct AdapterPropertyTests {
    @Test func modelToDictionaryToModelIsTheIdentity() async {
        let adapter = ParseAdapter()
        await propertyCheck(count: 200, input: ModelGen.people) { person in
            do {
                let object = try adapter.parseObject(from: person)
                #expect(try adapter.decode(Person.self, from: object) == person)
                // Through JSON text too.
                let text = try JSONWriter().write(object.restValue)
                let reread = try ParseObject(rest: try JSONReader().read(text), className: "Person")
                #expect(try adapter.decode(Person.self, from: reread) == person)
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test func dictionaryToModelToDictionaryKeepsMappedAndUnmappedFields() async {
        let adapter = ParseAdapter()
        await propertyCheck(count: 200, input: ModelGen.dictionaries) { dictionary in
            do {
                let object = try ParseObject(rest: dictionary, className: "Person")
                let person = try adapter.decode(Person.self, from: object)
                let mapped = try adapter.restValue(of: person)
                guard case .dictionary(let out) = mapped, case .dictionary(let original) = object.restValue else {
                    Issue.record("not dictionaries")
                    return
                }
                for (key, value) in out where key != "location" {
                    #expect(original[key] == value, "mapped key \(key)")
                }
                #expect(out["location"]?["city"] == original["location"]?["city"])
                let dropped = Set(original.keys).subtracting(out.keys)
                #expect(dropped.allSatisfy { $0.hasPrefix("extra") }, "only unmapped keys are dropped: \(dropped)")
                let kept = try adapter.restValue(of: person, preservingUnmappedFrom: object)
                #expect(sortedKeys(kept) == sortedKeys(object.restValue))
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
