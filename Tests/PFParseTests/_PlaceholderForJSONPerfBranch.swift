import Testing
@Test func placeholderForJSONPerfBranch() { #expect(Bool(true)) }
