import Foundation
import PFJSON
import PFStoreTestSupport
import PFTestSupport
import Testing

/// `pfarchive import` of a real device's Core Data store (issue 20, failure 1): the names
/// Parse forbids are encoded and counted, `--strict-names` refuses them as before.
@Suite struct NameEncodingCLITests {
    @Test func importEncodesCountsAndStrictNamesRefuses() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pfnames-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // The store has a model cache, as real devices' stores do, so the CLI reads the real
        // names, which Parse forbids (`_DKApplication…`, `$price`, `größe`, `length`).
        let store = try RealDeviceCoreData.write(in: dir)
        let export = dir.appendingPathComponent("export")

        let strict = try CLI.run(["import", store.path, export.path, "--strict-names"])
        #expect(strict.status == 1)
        #expect(strict.stderr.split(separator: "\n").count == 1, "\(strict.stderr)")
        #expect(strict.stderr.contains("(Parse error 105 InvalidFieldName)"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: export.path))

        let run = try CLI.run(["import", store.path, export.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONReader().read(Data(run.stdoutText.utf8))
        #expect(report["encodedFieldCount"]?.int64Value ?? 0 >= 4, "\(run.stdoutText)")
        let account = report["encodedNames"]?["Account"]
        let dk = account?["_DKApplicationActivityMetadataKey__contentDescription"]?["storedAs"]?.stringValue
        #expect(dk?.hasPrefix("pf__") == true && dk?.contains("DKApplicationActivityMetadataKey") == true, "\(run.stdoutText)")
        #expect(account?["$price"]?["storedAs"] == .string("pf___24_price"))

        // Read back out of the export into SQLite: the original names again.
        let sqlite = dir.appendingPathComponent("back.sqlite")
        let back = try CLI.run(["import", export.path, sqlite.path])
        #expect(back.status == 0, "\(back.stderr)")
        let fields = try Peers.run("/usr/bin/env", ["sqlite3", sqlite.path, "SELECT field FROM _SCHEMA WHERE className = 'Account' ORDER BY field"])
        let names = Set(fields.stdoutText.split(separator: "\n").map(String.init))
        #expect(names.isSuperset(of: ["_DKApplicationActivityMetadataKey__contentDescription", "$price", "größe", "length", RealDeviceCoreData.notes]), "\(names)")

        let text = try CLI.run(["import", store.path, dir.appendingPathComponent("text").path])
        #expect(text.stdoutText.contains("encoded name: Account.$price: stored as pf___24_price"), "\(text.stdoutText)")
        let help = try CLI.run(["import", "--help"])
        #expect(help.stdoutText.contains("--strict-names"))
    }
}
