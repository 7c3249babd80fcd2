import Foundation
import PFFormats
import PFSerialization
import PFTestSupport
import Testing

/// Replays Tests/Fixtures/regressions/<format>/: inputs that once crashed, hung or
/// misbehaved. Each must now read to a value or fail with a PFError, and a value read must
/// survive printing, comparing and writing back.
@Suite struct RegressionReplayTests {
    static let root = Fixtures.root.appendingPathComponent("regressions")

    /// The read options per folder: the format named (or detected, for compression).
    static let formats: [String: DataFormat?] = [
        "json": .json, "bplist": .bplist, "xmlplist": .xmlplist, "cbor": .cbor, "keyed": .keyed,
        "typedstream": .typedstream, "parse": .parse, "compression": nil,
    ]

    static let files: [String] = formats.keys.sorted().flatMap { folder in
        Fixtures.files(in: root.appendingPathComponent(folder)).map { "\(folder)/\($0.lastPathComponent)" }
    }

    @Test func everyFolderIsAFormat() {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: Self.root.path)) ?? []
        for folder in folders where folder != "README.md" {
            #expect(Self.formats[folder] != nil, "unknown regression folder \(folder)")
        }
    }

    @Test(arguments: files)
    func replays(_ relative: String) throws {
        let folder = String(relative.split(separator: "/")[0])
        let bytes = try Fixtures.data(Self.root.appendingPathComponent(relative))
        let format = Self.formats[folder] ?? nil
        do {
            let value = try FormatIO.read(bytes, options: .init(format: format)).value
            #expect(value == value)
            _ = value.description
            _ = try? FormatIO.write(value, as: .json)
            _ = try? FormatIO.write(value, as: .cbor)
        } catch {
            #expect(!error.message.isEmpty)
        }
    }
}
