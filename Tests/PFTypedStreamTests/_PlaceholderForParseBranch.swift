import Testing
@Test func placeholderForParseBranch() { #expect(Bool(true)) }
