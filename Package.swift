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
        // The two server-side stores are products of their own, outside the umbrella: a library
        // user of PFArchive builds neither GRDB's Swift layer nor SwiftNIO unless it asks for them.
        .library(name: "PFSQLiteStore", targets: ["PFSQLiteStore"]),
        .library(name: "PFPostgresStore", targets: ["PFPostgresStore"]),
        .executable(name: "pfarchive", targets: ["PFArchiveCLI"]),
        .executable(name: "pfarchive-bench", targets: ["PFBench"]),
        .executable(name: "sample-formats", targets: ["SampleFormats"]),
        .executable(name: "sample-keyed", targets: ["SampleKeyed"]),
        .executable(name: "sample-typedstream", targets: ["SampleTypedStream"]),
        .executable(name: "sample-coredata", targets: ["SampleCoreData"]),
        .executable(name: "sample-parse", targets: ["SampleParse"]),
        .executable(name: "sample-graphcopy", targets: ["SampleGraphCopy"]),
        .executable(name: "sample-chatdb", targets: ["SampleChatDB"]),
        .executable(name: "sample-codegen", targets: ["SampleCodegen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
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
        // Shortest round-trip text of a Double (Schubfach), for every text writer; depends on nothing.
        .target(name: "PFDoubleFormatting"),
        .target(
            name: "PFJSON",
            dependencies: [
                "PFCore", "PFDoubleFormatting", "CPFJSONC",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(name: "PFCompression", dependencies: ["PFCore", "CPFZlib"]),
        .target(
            name: "PFPropertyList",
            dependencies: ["PFCore", "PFJSON", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(
            name: "PFCBOR",
            dependencies: ["PFCore", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        // The one layer that opens bytes (detection, decompression, container choice, value
        // trees), below the coders.
        .target(
            name: "PFSerialization",
            dependencies: ["PFCore", "PFJSON", "PFCompression", "PFPropertyList", "PFCBOR", "PFTypedStream"]
        ),
        .target(
            name: "PFKeyedArchive",
            dependencies: [
                "PFCore", "PFPropertyList", "PFSerialization",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // The Parse object model: objects, values, ACLs, operations, rules, schemas, name coding,
        // error codes and the join types of relations.
        .target(
            name: "PFParse",
            dependencies: ["PFCore", "PFJSON", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        // The Mantle-style model adapter: Codable structs <-> Parse objects (key maps,
        // transformers, class dispatch, validation, the decoder and encoder).
        .target(
            name: "PFParseAdapter",
            dependencies: [
                "PFCore", "PFJSON", "PFParse",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Parse export reading: class files row by row, the parallel row reader, validation
        // against a schema, and whole class files decoded into models through the adapter.
        .target(
            name: "PFParseExport",
            dependencies: [
                "PFCore", "PFJSON", "PFParse", "PFParseAdapter",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFTypedStream",
            dependencies: ["PFCore", .product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(
            name: "PFVersioning",
            dependencies: [
                "PFCore", "PFCompression", "PFSerialization", "PFKeyedArchive", "PFTypedStream",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Any SQLite database as a read-only source (issue 24), and the one home of reading
        // SQLite files through a private copy (StoreCopy, SQLiteConnection), shared with
        // PFCoreData and PFSQLiteStore.
        .target(
            name: "PFSQLiteSource",
            dependencies: [
                "PFCore", "PFJSON", "PFFormats", "PFPropertyList",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFCoreData",
            dependencies: [
                // SQLite is read through PFSQLiteSource (its C API only: GRDB's Swift layer exports
                // operator overloads that leak into every client module).
                "PFCore", "PFCompression", "PFKeyedArchive", "PFSerialization", "PFFormats", "PFSQLiteSource",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Realm files (.realm), read from the file format itself (issue 25).
        .target(
            name: "PFRealm",
            dependencies: [
                "PFCore", .product(name: "OrderedCollections", package: "swift-collections"),
                // AES-256-CBC for encrypted files (HMAC-SHA224 is PFRealm's own: swift-crypto has no SHA-224).
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "PFGraphCopy",
            dependencies: [
                "PFCore", "PFParse", "PFKeyedArchive", "PFJSON",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFStores",
            dependencies: [
                "PFCore", "PFJSON", "PFCompression", "PFParse", "PFParseExport", "PFKeyedArchive", "PFCoreData",
                "PFGraphCopy", "PFSerialization", "PFRealm", "PFSQLiteSource",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Not in the PFArchive umbrella: GRDB's Swift layer declares operators that, once its
        // module is loaded, slow type-checking in every client module to a halt. Import
        // PFSQLiteStore (a product of its own) where the SQLite store is needed (the CLI does).
        .target(
            name: "PFSQLiteStore",
            dependencies: [
                "PFCore", "PFJSON", "PFParse", "PFStores", "PFSQLiteSource",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Not in the PFArchive umbrella either (a product of its own): it pulls in SwiftNIO and
        // postgres-nio, which only its users need.
        .target(
            name: "PFPostgresStore",
            dependencies: [
                "PFCore", "PFJSON", "PFParse", "PFStores",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFFormats",
            dependencies: [
                "PFCore", "PFJSON", "PFCBOR", "PFCompression", "PFSerialization", "PFKeyedArchive", "PFTypedStream",
                "PFParse", "PFParseExport", "PFPropertyList",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        // Structural comparison of values, graphs and stores; RFC 6902 JSON Patch.
        .target(
            name: "PFDiff",
            dependencies: [
                "PFCore", "PFJSON", "PFCBOR", "PFParse", "PFStores", "PFKeyedArchive", "PFFormats", "PFSerialization",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Swift model types generated from the data itself (`pfarchive codegen`): streaming type
        // inference over rows and archived objects, and Swift emission in three styles.
        .target(
            name: "PFCodegen",
            dependencies: [
                "PFCore", "PFParse", "PFKeyedArchive", "PFVersioning", .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "PFArchive",
            dependencies: [
                "PFCore", "PFDoubleFormatting", "PFJSON", "PFCompression", "PFPropertyList", "PFCBOR", "PFSerialization",
                "PFKeyedArchive", "PFTypedStream", "PFParse", "PFParseAdapter", "PFParseExport", "PFVersioning", "PFCoreData",
                "PFFormats", "PFGraphCopy", "PFStores", "PFDiff", "PFRealm", "PFSQLiteSource",
            ]
        ),

        // MARK: - Executables
        .executableTarget(
            name: "PFArchiveCLI",
            dependencies: [
                "PFArchive", "PFSQLiteStore", "PFPostgresStore", "PFCodegen",
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
        .executableTarget(name: "SampleKeyed", dependencies: ["PFKeyedArchive"], path: "Samples/keyed"),
        .executableTarget(name: "SampleTypedStream", dependencies: ["PFArchive"], path: "Samples/typedstream"),
        .executableTarget(name: "SampleCoreData", dependencies: ["PFArchive"], path: "Samples/coredata"),
        .executableTarget(name: "SampleParse", dependencies: ["PFArchive"], path: "Samples/parse"),
        .executableTarget(name: "SampleChatDB", dependencies: ["PFArchive"], path: "Samples/chatdb"),
        // Uses the types `pfarchive codegen` writes into Models/ (Samples/codegen/generate.sh).
        .executableTarget(name: "SampleCodegen", dependencies: ["PFArchive"], path: "Samples/codegen", exclude: ["generate.sh"]),
        .executableTarget(
            name: "SampleGraphCopy", dependencies: ["PFArchive"], path: "Samples/graphcopy", exclude: ["rules.json", "README.md"]
        ),

        // MARK: - Fuzz targets
        // One libFuzzer target per decoder (Docs/Security.md, scripts/fuzz.sh). Built normally,
        // each replays the files named on its command line; built by scripts/fuzz.sh with
        // `-sanitize=fuzzer,address -DPFFUZZ`, it runs libFuzzer through LLVMFuzzerRunDriver.
        .target(
            name: "PFFuzzSupport", dependencies: ["PFCore", .product(name: "OrderedCollections", package: "swift-collections")],
            path: "Fuzz/PFFuzzSupport"),
        .executableTarget(
            name: "FuzzJSON",
            dependencies: ["PFFuzzSupport", "PFCore", "PFJSON"], path: "Fuzz/FuzzJSON"),
        .executableTarget(name: "FuzzBinaryPlist", dependencies: ["PFFuzzSupport", "PFCore", "PFPropertyList"], path: "Fuzz/FuzzBinaryPlist"),
        .executableTarget(name: "FuzzXMLPlist", dependencies: ["PFFuzzSupport", "PFCore", "PFPropertyList"], path: "Fuzz/FuzzXMLPlist"),
        .executableTarget(name: "FuzzCBOR", dependencies: ["PFFuzzSupport", "PFCore", "PFCBOR"], path: "Fuzz/FuzzCBOR"),
        .executableTarget(name: "FuzzKeyed", dependencies: ["PFFuzzSupport", "PFCore", "PFKeyedArchive"], path: "Fuzz/FuzzKeyed"),
        .executableTarget(name: "FuzzTypedStream", dependencies: ["PFFuzzSupport", "PFCore", "PFTypedStream"], path: "Fuzz/FuzzTypedStream"),
        .executableTarget(name: "FuzzParse", dependencies: ["PFFuzzSupport", "PFCore", "PFParse", "PFParseExport"], path: "Fuzz/FuzzParse"),
        .executableTarget(name: "FuzzCompression", dependencies: ["PFFuzzSupport", "PFCore", "PFCompression"], path: "Fuzz/FuzzCompression"),
        .executableTarget(name: "FuzzRealm", dependencies: ["PFFuzzSupport", "PFCore", "PFRealm"], path: "Fuzz/FuzzRealm"),

        // MARK: - Tests
        // Each test target depends on the modules it tests and on what it really uses; the test
        // support is cut the same way (PFTestSupport: fixtures, peers, generators of values;
        // PFCoreDataTestSupport: Core Data stores built from scratch; PFStoreTestSupport: store
        // generators and comparison). scripts/check-imports.sh keeps these lists exact.
        .target(
            name: "PFTestSupport",
            dependencies: [
                "PFCore", .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ], path: "Tests/PFTestSupport"
        ),
        .target(
            name: "PFCoreDataTestSupport",
            dependencies: [
                "PFTestSupport", "PFCore", "PFCompression", "PFPropertyList", "PFKeyedArchive", "PFCoreData",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ], path: "Tests/PFCoreDataTestSupport"
        ),
        .target(
            name: "PFStoreTestSupport",
            dependencies: [
                "PFTestSupport", "PFCoreDataTestSupport", "PFCore", "PFJSON", "PFKeyedArchive", "PFParse",
                "PFCoreData", "PFStores", .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ], path: "Tests/PFStoreTestSupport"
        ),
        .testTarget(
            name: "PFCoreTests",
            dependencies: [
                "PFTestSupport", "PFCore", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFDoubleFormattingTests",
            dependencies: [
                "PFDoubleFormatting", .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFJSONTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFJSON",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFCompressionTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFCompression",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFPropertyListTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFPropertyList",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFCBORTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFCBOR",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFKeyedArchiveTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFCompression", "PFKeyedArchive", "PFSerialization",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFTypedStreamTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFKeyedArchive", "PFTypedStream",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFParseTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFJSON", "PFParse", "PFParseAdapter", "PFParseExport",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFVersioningTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFJSON", "PFKeyedArchive", "PFTypedStream", "PFVersioning",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ], exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "PFCoreDataTests",
            dependencies: ["PFSQLiteSource", 
                "PFTestSupport", "PFCoreDataTestSupport", "PFStoreTestSupport", "PFCore", "PFCompression",
                "PFPropertyList", "PFKeyedArchive", "PFCoreData",
            ]
        ),
        .testTarget(
            name: "PFFormatsTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFJSON", "PFCompression", "PFPropertyList", "PFCBOR",
                "PFKeyedArchive", "PFTypedStream", "PFParseExport", "PFFormats", "PFSerialization",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFGraphCopyTests",
            dependencies: [
                "PFTestSupport", "PFStoreTestSupport", "PFCore", "PFKeyedArchive", "PFParse", "PFGraphCopy",
                "PFStores", .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFStoresTests",
            dependencies: [
                "PFTestSupport", "PFCoreDataTestSupport", "PFStoreTestSupport", "PFCompression", "PFCore", "PFJSON",
                "PFKeyedArchive", "PFParse", "PFParseExport", "PFStores",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .testTarget(
            name: "PFSQLiteStoreTests",
            dependencies: [
                "PFTestSupport", "PFStoreTestSupport", "PFCore", "PFJSON", "PFParse", "PFParseExport",
                "PFStores", "PFSQLiteSource", "PFSQLiteStore", "PFPropertyList", "PFFormats",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFPostgresStoreTests",
            dependencies: [
                "PFTestSupport", "PFStoreTestSupport", "PFCore", "PFJSON", "PFParse", "PFStores",
                "PFPostgresStore", .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFCodegenTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFJSON", "PFParse", "PFCodegen",
            ], exclude: ["Golden"]
        ),
        .testTarget(
            name: "PFArchiveCLITests",
            dependencies: [
                "PFTestSupport", "PFCoreDataTestSupport", "PFStoreTestSupport", "PFCore", "PFJSON",
                "PFCompression", "PFPropertyList", "PFCBOR", "PFKeyedArchive", "PFParse", "PFParseExport",
                "PFFormats", "PFSerialization", "PFStores", .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "PFDiffTests",
            dependencies: [
                "PFTestSupport", "PFStoreTestSupport", "PFCore", "PFKeyedArchive", "PFTypedStream", "PFParse", "PFFormats", "PFSerialization",
                "PFStores", "PFSQLiteStore", "PFDiff",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "StoreMatrixTests",
            dependencies: [
                "PFTestSupport", "PFCoreDataTestSupport", "PFStoreTestSupport", "PFCore", "PFParse",
                "PFStores", "PFSQLiteStore", "PFPostgresStore",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "PFSerializationTests",
            dependencies: [
                "PFTestSupport", "PFCore", "PFSerialization", "PFCBOR", "PFCompression", "PFPropertyList",
                "PFTypedStream", "PFKeyedArchive", "PFVersioning", "PFFormats", "PFStores",
            ]
        ),
        .testTarget(
            name: "PFSQLiteSourceTests",
            dependencies: [
                "PFTestSupport", "PFCoreDataTestSupport", "PFCore", "PFFormats", "PFJSON", "PFParse", "PFSQLiteSource",
                "PFStores", "PFTypedStream", .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "PFRealmTests",
            dependencies: [
                "PFTestSupport", "PFStoreTestSupport", "PFCore", "PFJSON", "PFParse", "PFStores", "PFRealm",
                "PFSQLiteStore", .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

