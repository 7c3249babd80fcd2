// swift-tools-version: 6.1
import PackageDescription

// A library user of pfarchive, as another package sees it: it depends on pfarchive by path and
// imports the umbrella product and the two store products. scripts/test.sh builds and runs it.
let package = Package(
    name: "StoreConsumer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "pfarchive", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "StoreConsumer",
            dependencies: [
                .product(name: "PFArchive", package: "pfarchive"),
                .product(name: "PFSQLiteStore", package: "pfarchive"),
                .product(name: "PFPostgresStore", package: "pfarchive"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
