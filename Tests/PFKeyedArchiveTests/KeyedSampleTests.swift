import Foundation
import Testing

/// Runs Samples/keyed (KeyedSample.swift is a symlink to the sample's code).
@Suite struct KeyedSampleTests {
    @Test func sampleKeepsIdentityAndCycles() throws {
        let output = try KeyedSample.run()
        for line in ["head is staff[0]: true", "staff share one department: true", "cycle closed: true",
                     "Alan's manager is Ada: true", "JSON shape: Sample.Department with $id 1"] {
            #expect(output.contains(line), "\(output)")
        }
    }
}
