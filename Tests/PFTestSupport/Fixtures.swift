import Foundation

/// Where the repository's test data lives.
public enum Fixtures {
    /// The repository root (found from this file's path).
    public static let repoRoot: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }()

    /// `Tests/Fixtures`.
    public static let root = repoRoot.appendingPathComponent("Tests/Fixtures")
    /// The JSONTestSuite `test_parsing` folder.
    public static let jsonTestSuite = root.appendingPathComponent("conformance/JSONTestSuite/test_parsing")
    /// The hostile corpus.
    public static let hostile = root.appendingPathComponent("conformance/hostile")
    /// Real files from public repositories, with peers' views in `EXPECTED/`.
    public static let real = root.appendingPathComponent("real")
    /// Benchmark inputs (`twitter.json`, `citm_catalog.json`, `canada.json`).
    public static let benchData = repoRoot.appendingPathComponent("Benchmarks/data")

    /// The files in a folder whose names match a predicate, sorted by name.
    public static func files(in folder: URL, where predicate: (String) -> Bool = { _ in true }) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter(predicate).sorted().map { folder.appendingPathComponent($0) }
    }

    /// The bytes of a file; a missing fixture is a test-setup failure, so this throws.
    public static func data(_ url: URL) throws -> Data { try Data(contentsOf: url) }
}
