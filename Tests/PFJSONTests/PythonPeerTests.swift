import Foundation
import PFJSON
import PFTestSupport
import Testing

/// Python's json module reads our output of each benchmark file exactly as it reads the original.
@Suite struct PythonPeerTests {
    static let compare = """
        import json, sys
        original = json.load(open(sys.argv[1], 'rb'))
        ours = json.loads(sys.stdin.buffer.read())
        if original != ours:
            print('DIFFERENT'); sys.exit(1)
        print('EQUAL')
        """

    @Test(arguments: ["twitter.json", "citm_catalog.json", "canada.json"])
    func pythonReadsOurOutputLikeTheOriginal(_ name: String) throws {
        let url = Fixtures.benchData.appendingPathComponent(name)
        let value = try JSONReader().read(try Fixtures.data(url))
        for options in [JSONWriter.Options(), JSONWriter.Options(pretty: true)] {
            let ours = try JSONWriter(options: options).write(value)
            let result: Peers.Result
            do {
                result = try Peers.python(Self.compare, [url.path], input: ours)
            } catch {
                Issue.record("Python could not be started (\(error)); run scripts/setup.sh or set PFARCHIVE_PYTHON")
                return
            }
            #expect(result.status == 0, "Python failed (run scripts/setup.sh if it is missing): \(result.stderr)")
            #expect(result.stdoutText == "EQUAL\n")
        }
    }
}
