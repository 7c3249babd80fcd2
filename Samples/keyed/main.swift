// Run with: swift run SampleKeyed (after adding the SampleKeyed target to Package.swift).
do {
    print(try KeyedSample.run())
} catch {
    print("error: \(error)")
}
