// Helpers every test target may use: fixture paths, the Python peers, measured child
// processes, the test PostgreSQL server and value generators. It re-exports nothing: each
// test target imports the modules it tests. Store generators and comparison live in
// PFStoreTestSupport, Core Data store building in PFCoreDataTestSupport.
