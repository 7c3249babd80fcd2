import Testing
@Test func placeholderForBranch() { #expect(Bool(true)) }
