// swift-tools-version: 6.1
import PackageDescription

// One module per concern; each C library is imported by exactly one Swift module
// (CPFJSONC by PFJSON, CPFZlib by PFCompression). The CLI target is not named
// like a library module up to case, so nothing collides on a case-insensitive disk.
let package = Package(
    name: "pfarchive",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PFArchive", targets: ["PFArchive"]),
        .executable(name: "pfarchive", targets: ["PFArchiveCLI"]),
        .executable(name: "pfarchive-bench", targets: ["PFBench"]),
        .executable(name: "sample-formats", targets: ["SampleFormats"]),
        .executable(name: "sample-keyed", targets: ["SampleKeyed"]),
        .executable(name: "sample-typedstream", targets: ["SampleTypedStream"]),
        .executable(name: "sample-coredata", targets: ["SampleCoreData"]),
        .executable(name: "sample-parse", targets: ["SampleParse"]),
        .executable(name: "sample-graphcopy", targets: ["SampleGraphCopy"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // MARK: - C libraries
        .systemLibrary(
            name: "CPFJSONC",
            pkgConfig: "json-c",
            providers: [.apt(["libjson-c-dev"]), .brew(["json-c"])]
        ),
        .systemLibrary(
            name: "CPFZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),

        // MARK: - Libraries
        .target(
            name: "PFCore",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(
            name: "PFJSON",
            dependencies: ["PFCore", "CPFJSONC", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(name: "PFCompression", dependencies: ["PFCore", "CPFZlib"]),
        .target(
            name: "PFPropertyList",
            dependencies: ["PFCore", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(
            name: "PFCBOR",
            dependencies: ["PFCore", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(
            name: "PFKeyedArchive",
            dependencies: [
                "PFCore", "PFJSON", "PFCompression", "PFPropertyList", "PFCBOR",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFParse",
            dependencies: ["PFCore", "PFJSON", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(
            name: "PFTypedStream",
            dependencies: ["PFCore", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(
            name: "PFVersioning",
            dependencies: [
                "PFCore", "PFJSON", "PFKeyedArchive", "PFTypedStream",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFCoreData",
            dependencies: [
                "PFCore", "PFCompression", "PFKeyedArchive", "PFPropertyList", "PFFormats",
                // The SQLite C API only: GRDB's Swift layer exports operator overloads that
                // leak into every client module and blow up type-checking elsewhere.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFGraphCopy",
            dependencies: [
                "PFCore", "PFParse", "PFKeyedArchive", "PFJSON", "PFStores",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFStores",
            dependencies: [
                "PFCore", "PFJSON", "PFCompression", "PFParse", "PFKeyedArchive", "PFCoreData",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Not in the PFArchive umbrella: GRDB's Swift layer declares operators that, once its
        // module is loaded, slow type-checking in every client module to a halt. Import
        // PFSQLiteStore where the SQLite store is needed (the CLI does).
        .target(
            name: "PFSQLiteStore",
            dependencies: [
                "PFCore", "PFParse", "PFStores", "PFCoreData",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Not in the PFArchive umbrella either: it pulls in SwiftNIO and postgres-nio, which only
        // the CLI and its tests need.
        .target(
            name: "PFPostgresStore",
            dependencies: [
                "PFCore", "PFParse", "PFStores",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFFormats",
            dependencies: [
                "PFCore", "PFJSON", "PFCompression", "PFPropertyList", "PFCBOR", "PFKeyedArchive", "PFTypedStream",
                "PFParse", "PFVersioning",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // Structural comparison of values, graphs and stores; RFC 6902 JSON Patch.
        .target(
            name: "PFDiff",
            dependencies: [
                "PFCore", "PFJSON", "PFParse", "PFStores", "PFKeyedArchive", "PFFormats",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFArchive",
            dependencies: [
                "PFCore", "PFJSON", "PFCompression", "PFPropertyList", "PFCBOR", "PFKeyedArchive", "PFTypedStream",
                "PFParse", "PFVersioning", "PFCoreData", "PFFormats", "PFGraphCopy", "PFStores", "PFDiff",
            ]
        ),

        // MARK: - Executables
        .executableTarget(
            name: "PFArchiveCLI",
            dependencies: [
                "PFArchive", "PFSQLiteStore", "PFPostgresStore",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "PFBench",
            dependencies: [
                "PFArchive", "CPFJSONC", "CPFZlib",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            path: "Benchmarks/PFBench"
        ),

        // MARK: - Samples
        .executableTarget(name: "SampleFormats", dependencies: ["PFArchive"], path: "Samples/formats"),
        .executableTarget(name: "SampleKeyed", dependencies: ["PFArchive"], path: "Samples/keyed"),
        .executableTarget(name: "SampleTypedStream", dependencies: ["PFArchive"], path: "Samples/typedstream"),
        .executableTarget(name: "SampleCoreData", dependencies: ["PFArchive"], path: "Samples/coredata"),
        .executableTarget(name: "SampleParse", dependencies: ["PFArchive"], path: "Samples/parse"),
        .executableTarget(
            name: "SampleGraphCopy", dependencies: ["PFArchive"], path: "Samples/graphcopy", exclude: ["rules.json", "README.md"]
        ),

        // MARK: - Fuzz targets
        // One libFuzzer target per decoder (Docs/Security.md, scripts/fuzz.sh). Built normally,
        // each replays the files named on its command line; built by scripts/fuzz.sh with
        // `-sanitize=fuzzer,address -DPFFUZZ`, it runs libFuzzer through LLVMFuzzerRunDriver.
        .target(name: "PFFuzzSupport", dependencies: ["PFCore"], path: "Fuzz/PFFuzzSupport"),
        .executableTarget(name: "FuzzJSON", dependencies: ["PFFuzzSupport", "PFJSON"], path: "Fuzz/FuzzJSON"),
        .executableTarget(name: "FuzzBinaryPlist", dependencies: ["PFFuzzSupport", "PFPropertyList"], path: "Fuzz/FuzzBinaryPlist"),
        .executableTarget(name: "FuzzXMLPlist", dependencies: ["PFFuzzSupport", "PFPropertyList"], path: "Fuzz/FuzzXMLPlist"),
        .executableTarget(name: "FuzzCBOR", dependencies: ["PFFuzzSupport", "PFCBOR"], path: "Fuzz/FuzzCBOR"),
        .executableTarget(name: "FuzzKeyed", dependencies: ["PFFuzzSupport", "PFKeyedArchive"], path: "Fuzz/FuzzKeyed"),
        .executableTarget(name: "FuzzTypedStream", dependencies: ["PFFuzzSupport", "PFTypedStream"], path: "Fuzz/FuzzTypedStream"),
        .executableTarget(name: "FuzzParse", dependencies: ["PFFuzzSupport", "PFParse"], path: "Fuzz/FuzzParse"),
        .executableTarget(name: "FuzzCompression", dependencies: ["PFFuzzSupport", "PFCompression"], path: "Fuzz/FuzzCompression"),

        // MARK: - Tests
        .target(
            name: "PFTestSupport",
            dependencies: [
                "PFArchive",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/PFTestSupport"
        ),
        .testTarget(name: "PFCoreTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFJSONTests", dependencies: ["PFTestSupport", "CPFJSONC"]),
        .testTarget(name: "PFCompressionTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFPropertyListTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFCBORTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFKeyedArchiveTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFTypedStreamTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFParseTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFVersioningTests", dependencies: ["PFTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "PFCoreDataTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFFormatsTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFGraphCopyTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFStoresTests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFSQLiteStoreTests", dependencies: ["PFTestSupport", "PFSQLiteStore"]),
        .testTarget(name: "PFPostgresStoreTests", dependencies: ["PFTestSupport", "PFPostgresStore"]),
        .testTarget(name: "PFArchiveCLITests", dependencies: ["PFTestSupport"]),
        .testTarget(name: "PFDiffTests", dependencies: ["PFTestSupport", "PFSQLiteStore"]),
        // Every store into every store and back (issue 20's matrix): needs both server-side stores.
        .testTarget(name: "StoreMatrixTests", dependencies: ["PFTestSupport", "PFSQLiteStore", "PFPostgresStore"]),
    ],
    swiftLanguageModes: [.v6]
)

