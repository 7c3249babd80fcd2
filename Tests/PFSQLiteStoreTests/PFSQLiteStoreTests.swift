import Testing
import PFSQLiteStore
import PFTestSupport

@Suite struct PFSQLiteStoreSmokeTests {
    @Test func moduleLoads() {}
}
