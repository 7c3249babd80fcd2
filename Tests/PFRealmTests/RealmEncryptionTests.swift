import Foundation
import PFCore
import PFJSON
import PFTestSupport
import Testing

@testable import PFRealm

@Suite("Realm encryption") struct RealmEncryptionTests {
    static let fixtureKey = [UInt8](repeating: 1, count: 64)
    static let hexKey = String(repeating: "01", count: 64)

    @Test func sha224AndItsHMACMatchTheStandardVectors() {
        func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(RealmSHA224.hash([[]])) == "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f")
        #expect(hex(RealmSHA224.hash([Array("abc".utf8)[...]])) == "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")
        #expect(
            hex(RealmSHA224.hash([Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)[...]]))
                == "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525")
        #expect(hex(RealmSHA224.hash([[UInt8](repeating: 0x61, count: 1000)[...]])) == "4e8f0ce90b64661a2b5e84be6d93a7d9b76871062f1814433d04a03d")
        // RFC 4231 test case 1, and a key longer than the block (hashed first); Python's hmac agrees.
        #expect(hex(RealmSHA224.hmac(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)[...]))
            == "896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22")
        #expect(hex(RealmSHA224.hmac(key: [UInt8](repeating: 0x6b, count: 100), message: [UInt8](repeating: 0x78, count: 130)[...]))
            == "032f7d28530a02b6e7a5e16a683bf4e6d73ba5121d99baed23c362f0")
    }

    @Test func theEncryptedFixtureDecryptsThenIsRefusedByVersion() throws {
        let encrypted = [UInt8](try Data(contentsOf: RealmFixtures.url("java-ios-alltypes-default-encrypted")))
        let plain = [UInt8](try Data(contentsOf: RealmFixtures.url("java-ios-alltypes-default")))
        let decrypted = try RealmEncryption.decrypt(encrypted, key: Self.fixtureKey)
        #expect(decrypted.count == 8192, "two data pages after one metadata page")
        #expect(RealmFile.hasRealmHeader(decrypted))
        #expect(decrypted[20] == 10 && decrypted[21] == 10, "format 10")
        // The same database as its plaintext twin from the same repository (8 bytes differ:
        // two values written at another moment).
        #expect(zip(decrypted, plain).filter { $0 != $1 }.count <= 8)
        #expect {
            try RealmFile(bytes: encrypted, key: Self.fixtureKey)
        } throws: { ($0 as? PFError)?.failure(as: RealmFailure.self) == .unsupportedVersion(10) }
    }

    @Test func theTestEncryptorRebuildsTheRealFixtureByteForByte() throws {
        let encrypted = [UInt8](try Data(contentsOf: RealmFixtures.url("java-ios-alltypes-default-encrypted")))
        let decrypted = try RealmEncryption.decrypt(encrypted, key: Self.fixtureKey)
        let storedIVs = (0..<2).map { p in (0..<4).reduce(UInt32(0)) { $0 | UInt32(encrypted[p * 64 + $1]) << UInt32(8 * $1) } }
        let rebuilt = try RealmEncryption.encrypt(decrypted, key: Self.fixtureKey, ivs: { storedIVs[$0] })
        // The fixture's entries also hold each page's previous IV and HMAC (iv2, hmac2), which
        // a single encryption does not write: compare with those cleared.
        var expected = encrypted
        for p in 0..<2 { expected.replaceSubrange((p * 64 + 32)..<(p * 64 + 64), with: [UInt8](repeating: 0, count: 32)) }
        #expect(rebuilt == expected)
    }

    @Test(arguments: RealmFixtures.readable)
    func encryptedFixturesOfFormats20To24ReadAsTheirPlainText(_ name: String) throws {
        let plain = [UInt8](try Data(contentsOf: RealmFixtures.url(name)))
        let key = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let encrypted = try RealmEncryption.encrypt(plain, key: key)
        let expected = try RealmDatabase(RealmFile(bytes: plain)).document(includeInternal: true)
        #expect(try RealmDatabase(RealmFile(bytes: encrypted, key: key)).document(includeInternal: true) == expected)
        #expect {
            try RealmFile(bytes: encrypted, key: Self.fixtureKey)
        } throws: { ($0 as? PFError)?.failure(as: RealmFailure.self) == .pageHMAC(page: 0) }
    }

    @Test func filesOfManyMetadataPagesAndPagesWithOnlyTheirPreviousIVRead() throws {
        // 6,000 objects: more than 64 data pages, so a second metadata page.
        let (plain, rows) = RealmGeneratedTests.makeFile(seed: 9, count: 6000, streaming: true)
        let key = [UInt8](repeating: 0xA5, count: 64)
        var encrypted = try RealmEncryption.encrypt(plain, key: key, ivs: { UInt32($0 * 3 + 7) })
        let dataPages = (plain.count + 4095) / 4096
        try #require(dataPages > 71, "\(dataPages) data pages")
        // Page 70's write "was interrupted": the entry's current IV and HMAC are new, the
        // previous ones (iv2, hmac2) describe the bytes on disk.
        let entry = 65 * 4096 + (70 - 64) * 64
        let current = Array(encrypted[entry..<(entry + 32)])
        encrypted.replaceSubrange((entry + 32)..<(entry + 64), with: current)
        encrypted.replaceSubrange(entry..<(entry + 32), with: [UInt8](repeating: 0x5A, count: 32))
        let padded = plain + [UInt8](repeating: 0, count: dataPages * 4096 - plain.count)
        let db = try RealmDatabase(RealmFile(bytes: encrypted, key: key))
        #expect(try db.objects(of: try #require(db.table(named: "Item"))).count == rows.count)
        #expect(try db.document() == RealmDatabase(RealmFile(bytes: plain)).document())
        #expect(try RealmEncryption.decrypt(encrypted, key: key) == padded)
        // A damaged byte in data page 70's ciphertext: neither HMAC matches.
        var damaged = encrypted
        damaged[(65 + 1 + 70 - 64) * 4096 + 100] ^= 1
        #expect {
            try RealmEncryption.decrypt(damaged, key: key)
        } throws: { ($0 as? PFError)?.failure(as: RealmFailure.self) == .pageHMAC(page: 70) }
    }

    @Test func keysAndFilesThatDoNotFitFailClearly() throws {
        let encrypted = [UInt8](try Data(contentsOf: RealmFixtures.url("java-ios-alltypes-default-encrypted")))
        let plain = [UInt8](try Data(contentsOf: RealmFixtures.url("js-simple")))
        func failure(_ body: () throws -> Void) -> RealmFailure? {
            do {
                try body()
                return nil
            } catch {
                return (error as? PFError)?.failure(as: RealmFailure.self)
            }
        }
        #expect(failure { _ = try RealmFile(bytes: encrypted) } == .encryptedWithoutKey)
        #expect(failure { _ = try RealmFile(bytes: plain, key: Self.fixtureKey) } == .notEncrypted)
        #expect(failure { _ = try RealmFile(bytes: encrypted, key: [UInt8](repeating: 2, count: 64)) } == .pageHMAC(page: 0))
        #expect(failure { _ = try RealmFile(bytes: encrypted, key: [UInt8](repeating: 1, count: 32)) } == .keyLength(32))
        #expect(failure { _ = try RealmFile(bytes: Array(encrypted.prefix(10000)), key: Self.fixtureKey) } == .encryptedSize(10000))
        #expect(failure { _ = try RealmEncryption.key(hex: String(repeating: "0g", count: 64)) } == .keyNotHex)
        #expect(failure { _ = try RealmEncryption.key(hex: "0102") } == .keyLength(2))
        #expect(try RealmEncryption.key(hex: Self.hexKey.uppercased()) == Self.fixtureKey)
        // Every truncation to whole pages and every flipped byte of a data page fails cleanly.
        for cut in stride(from: 4096, to: encrypted.count, by: 4096) {
            #expect(throws: PFError.self) { try RealmFile(bytes: Array(encrypted.prefix(cut)), key: Self.fixtureKey) }
        }
        for offset in stride(from: 4096, to: encrypted.count, by: 97) {
            var damaged = encrypted
            damaged[offset] ^= 0x40
            #expect(failure { _ = try RealmFile(bytes: damaged, key: Self.fixtureKey) } == .pageHMAC(page: offset / 4096 - 1))
        }
    }

    @Test func everyCommandThatOpensARealmFileTakesTheKey() throws {
        let dir = try RealmStoreTests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 3) }
        let hex = key.map { String(format: "%02x", $0) }.joined()
        let url = dir.appendingPathComponent("secret.realm")
        try Data(try RealmEncryption.encrypt([UInt8](try Data(contentsOf: RealmFixtures.url("js-simple"))), key: key)).write(to: url)
        let before = try Data(contentsOf: url)
        let out = dir.appendingPathComponent("out.json")
        let converted = try CLI.run(["convert", url.path, out.path, "--key", hex])
        #expect(converted.status == 0, "\(converted.stderr)")
        let plainOut = dir.appendingPathComponent("plain.json")
        #expect(try CLI.run(["convert", RealmFixtures.url("js-simple").path, plainOut.path]).status == 0)
        #expect(try Data(contentsOf: out) == Data(contentsOf: plainOut))
        let inspected = try CLI.run(["inspect", url.path, "--key", hex])
        #expect(inspected.status == 0 && inspected.stdoutText.contains("Realm file format 23"), "\(inspected.stderr)")
        let imported = try CLI.run(["import", url.path, dir.appendingPathComponent("db.sqlite").path, "--key", hex])
        #expect(imported.status == 0, "\(imported.stderr)")
        let diffed = try CLI.run(["diff", url.path, dir.appendingPathComponent("db.sqlite").path, "--key", hex, "--brief"])
        #expect(diffed.status == 0 || diffed.status == 1, "\(diffed.stderr)")
        // codegen too (the refusal without a key told it to pass --key, which it refused).
        let generated = try CLI.run(["codegen", url.path, "--key", hex])
        let plainGenerated = try CLI.run(["codegen", RealmFixtures.url("js-simple").path])
        #expect(generated.status == 0 && generated.stdoutText.contains("public struct"), "\(generated.stderr)")
        #expect(generated.stdoutText.replacingOccurrences(of: "secret.realm", with: "js-simple.realm") == plainGenerated.stdoutText)
        // A wrong key: one line, exit 1, nothing written; a malformed key: a usage error.
        for arguments in [["convert", url.path, dir.appendingPathComponent("x.json").path], ["inspect", url.path],
                          ["import", url.path, dir.appendingPathComponent("x.sqlite").path], ["codegen", url.path]] {
            let wrong = try CLI.run(arguments + ["--key", Self.hexKey])
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("wrong encryption key") && wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
            let without = try CLI.run(arguments)
            #expect(without.status == 1 && without.stderr.contains("--key"), "\(without.stderr)")
            let malformed = try CLI.run(arguments + ["--key", "abc"])
            #expect(malformed.status == 2, "\(malformed.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.json").path))
        #expect(try Data(contentsOf: url) == before)
        let fixture = try CLI.run(["inspect", RealmFixtures.url("java-ios-alltypes-default-encrypted").path, "--key", Self.hexKey])
        #expect(fixture.status == 1 && fixture.stderr.contains("file format version 10 is not supported"), "\(fixture.stderr)")
    }
}
