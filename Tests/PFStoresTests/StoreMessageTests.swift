import Foundation
import PFCore
import PFKeyedArchive
import PFStores
import PFTestSupport
import Testing
import ZIPFoundation

/// Error messages of the stores say where: the class file of an export that is broken as a
/// whole, and Core Data failures under Core Data's name, each part once (issue 21).
@Suite struct StoreMessageTests {
    static let classFiles = [
        "_User.json": #"{"results":[{"objectId":"u1","username":"ann"}]}"#,
        "Post.json": #"{"results":[{"objectId":"p1","title":"hi"}]}"#,
    ]

    /// Class files broken as files, not in a row: cut short, not an object, rows not an array.
    static let brokenFiles: [(text: String, says: String)] = [
        (#"{"results": ["#, "the file ends inside the rows array"),
        (#"{"results": [{"objectId":"a"}"#, "Place.json"),
        (#"{"results": 7}"#, "Place.json"),
    ]

    @Test(arguments: [false, true])
    func aBrokenClassFileOfAMultiFileExportIsNamed(zipped: Bool) throws {
        let scratch = try Scratch()
        for (i, broken) in Self.brokenFiles.enumerated() {
            var files = Self.classFiles
            files["Place.json"] = broken.text
            var url = try scratch.directory("export\(i)", files)
            if zipped {
                let zip = scratch.path("export\(i).zip")
                let archive = try Archive(url: zip, accessMode: .create)
                for (name, text) in files.sorted(by: { $0.key < $1.key }) {
                    let data = Data(text.utf8)
                    try archive.addEntry(with: "export/\(name)", type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                        data.subdata(in: Int(position)..<Int(position) + size)
                    }
                }
                url = zip
            }
            let store = ParseExportStore(url: url)
            #expect {
                for name in try store.classNames() { _ = try store.objects(in: name) }
            } throws: { error in
                let text = "\(error)"
                return text.contains("\(url.path): Place.json: ") && text.contains(broken.says)
            }
        }
    }

    @Test func aCoreDataValueParseRefusesIsACoreDataErrorNamingTheObjectOnce() throws {
        let scratch = try Scratch()
        let store = scratch.path("App.sqlite")
        try FileManager.default.copyItem(
            at: Fixtures.real.appendingPathComponent("coredata/coredataplus/SampleModel2_V2.sqlite"), to: store)
        // A transformable attribute holding a dictionary that claims to be a Parse Pointer and
        // is not one (names Parse forbids are encoded by destinations now, not refused).
        let archive = try KeyedArchive.archive(try KeyedGraph(json: ["__type": "Pointer", "className": 3]))
        let hex = archive.map { String(format: "%02X", $0) }.joined()
        let sql = "UPDATE ZPAGE SET ZCONTENT = X'\(hex)' WHERE Z_PK = (SELECT min(Z_PK) FROM ZPAGE);"
        let result = try Peers.run("/usr/bin/sqlite3", [store.path], input: Data(sql.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let source = try CoreDataObjectStore(url: store)
        defer { source.close() }
        #expect {
            _ = try source.objects(in: "Page")
        } throws: { error in
            guard let e = error as? PFError else { return false }
            let text = e.description
            return e.format == .coreData && !text.hasPrefix("Parse")
                && text.hasPrefix("Core Data: App.sqlite: Page Page-") && text.components(separatedBy: "Page Page-").count == 2
                && text.contains("malformed Pointer")
        }
    }
}
