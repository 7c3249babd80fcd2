import Testing
import PFTestSupport

@Suite struct PFGraphCopySmokeTests {
    @Test func moduleLoads() {}
}
