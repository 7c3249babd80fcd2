import Testing
@Test func placeholderForPerfBranch() { #expect(Bool(true)) }
