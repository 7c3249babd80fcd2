import Testing
@Test func placeholderUntilTheCBORBranchMerges() { #expect(Bool(true)) }
