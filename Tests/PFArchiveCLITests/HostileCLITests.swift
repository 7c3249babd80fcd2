import Foundation
import PFTestSupport
import Testing

/// The `pfarchive` binary over every file of the hostile corpus
/// (Tests/Fixtures/conformance/hostile/MANIFEST.md) and every `*-neg-*` fixture: each gets
/// the outcome the MANIFEST names — never a signal — within 2 s of CPU and 200 MB of memory.
///
/// Keyed archives (`ka_*`) are read `--from keyed --secure`: the allow-list is what makes
/// `ka_class_not_allowlisted` a "class not allowed" error, as the MANIFEST asks. Speed is
/// judged by CPU time from `wait4`, not wall-clock time, so a loaded machine cannot fail the
/// test; a watchdog still kills a real hang.
@Suite struct HostileCLITests {
    /// What the CLI must do with a file.
    enum Outcome: Sendable {
        /// Exit 0 with this JSON on stdout (compact, as `convert - --to json` writes it).
        case accept(String)
        /// Exit 0; the value is checked elsewhere (a large or graph-shaped output).
        case acceptAny
        /// Exit 1 with one line on stderr containing this text.
        case error(String)
    }

    static let maxRSS = 200 << 20
    static let maxCPUSeconds = 2.0

    /// MANIFEST.md's expected column, per file. "clean error" rows name the part of the
    /// message that says why; the few "documented policy" rows say which policy pfarchive has.
    static let outcomes: [String: Outcome] = [
        // Binary property lists.
        "bplist_valid_baseline.bplist": .accept(#"["a",7]"#),
        "bplist_truncated_magic.bplist": .error("unrecognised format"),  // 7 bytes: too short for the magic
        "bplist_trailer_only.bplist": .error("bplist: "),
        "bplist_unsupported_version.bplist": .error("a binary property list of version 15 (\"bplist15\"), which pfarchive does not read"),
        "bplist_top_object_out_of_range.bplist": .error("bplist: "),
        "bplist_offset_table_past_eof.bplist": .error("bplist: "),
        "bplist_offset_table_in_trailer.bplist": .error("bplist: "),
        "bplist_numobjects_mul_overflow.bplist": .error("bplist: "),
        "bplist_numobjects_huge_alloc.bplist": .error("bplist: "),
        "bplist_offset_int_size_zero.bplist": .error("bplist: "),
        "bplist_objref_size_zero.bplist": .error("bplist: "),
        "bplist_offset_int_size_16.bplist": .error("bplist: "),
        "bplist_refsize_too_small_for_count.bplist": .error("bplist: "),
        "bplist_object_offset_into_header.bplist": .error("bplist: "),
        "bplist_object_offset_into_offset_table.bplist": .error("bplist: "),
        "bplist_array_self_cycle.bplist": .error("reference cycle"),
        "bplist_mutual_cycle_dict_array.bplist": .error("reference cycle"),
        "bplist_cycle_below_depth_16.bplist": .error("reference cycle"),
        "bplist_array_ref_out_of_range.bplist": .error("bplist: "),
        "bplist_dict_key_ref_out_of_range.bplist": .error("bplist: "),
        "bplist_array_count_huge.bplist": .error("bplist: "),
        "bplist_dict_count_mul_overflow.bplist": .error("bplist: "),
        "bplist_ascii_len_past_end.bplist": .error("bplist: "),
        "bplist_utf16_len_overflow.bplist": .error("bplist: "),
        "bplist_data_len_negative.bplist": .error("bplist: "),
        "bplist_count_int_marker_not_int.bplist": .error("bplist: "),
        "bplist_int_32_bytes.bplist": .error("bplist: "),
        "bplist_real_2_bytes.bplist": .error("bplist: "),
        "bplist_unknown_marker.bplist": .error("bplist: "),
        "bplist_uid_too_wide.bplist": .error("bplist: "),
        "bplist_date_nan.bplist": .error("expected a finite number"),  // policy: a NaN date is refused
        "bplist_dict_nonstring_key.bplist": .error("bplist: "),
        "bplist_dict_duplicate_keys.bplist": .accept(#"{"k":2}"#),  // policy: last wins
        "bplist_dag_exponential_2pow63.bplist": .error("maxNodes"),
        "bplist_deep_nesting_100k.bplist": .error("maxDepth"),
        // NSKeyedArchiver archives, read --from keyed --secure.
        "ka_valid_baseline.bplist": .accept(#""hello""#),
        "ka_top_uid_out_of_range.bplist": .error("keyed archive"),
        "ka_class_uid_out_of_range.bplist": .error("keyed archive"),
        "ka_class_uid_points_to_string.bplist": .error("keyed archive"),
        "ka_class_not_allowlisted.bplist": .error("is not allowed"),
        "ka_classname_mismatch_classes.bplist": .error("keyed archive"),
        // The graph keeps the cycle: the array is rendered once, then referenced by $ref.
        "ka_self_referencing_array.bplist": .acceptAny,
        "ka_dict_keys_objects_count_mismatch.bplist": .error("keyed archive"),
        "ka_missing_top.bplist": .error("keyed archive"),
        "ka_wrong_archiver_version.bplist": .error("keyed archive"),
        "ka_objects_not_array.bplist": .error("keyed archive"),
        "ka_uid_huge_value.bplist": .error("keyed archive"),
        "ka_deep_nesting_20k.bplist": .error("maxDepth"),
        // Memoised: 40 objects, each rendered once.
        "ka_dag_exponential.bplist": .acceptAny,
        // typedstream.
        "ts_valid_nsstring_guess.typedstream": .accept(#""hello""#),
        "ts_truncated_in_classname.typedstream": .error("typedstream"),
        "ts_bad_magic.typedstream": .error("unrecognised format"),
        "ts_unsupported_version.typedstream": .error("typedstream"),
        "ts_string_len_huge.typedstream": .error("typedstream"),
        "ts_string_len_negative.typedstream": .error("typedstream"),
        "ts_reference_out_of_range.typedstream": .error("typedstream"),
        "ts_superclass_self_reference.typedstream": .error("typedstream"),
        // 100,000 NEW tags where a class name belongs: a syntax error at byte 22, before any nesting.
        "ts_deep_nesting_100k.typedstream": .error("typedstream"),
        "ts_reserved_tag.typedstream": .error("typedstream"),
        "ts_type_encoding_huge.typedstream": .error("typedstream"),
        "ts_empty_after_header.typedstream": .error("typedstream"),
        // JSON.
        "json_deep_arrays_1m_unclosed.json": .error("maxDepth"),
        "json_deep_arrays_500k_closed.json": .error("maxDepth"),
        "json_deep_objects_100k.json": .error("maxDepth"),
        "json_number_1mb_digits.json": .error("JSON"),
        "json_exponent_huge.json": .error("JSON"),
        "json_uint64_overflow.json": .error("JSON"),
        "json_duplicate_keys_50k.json": .acceptAny,  // policy: last wins, linear time
        "json_nul_escape_in_key.json": .acceptAny,  // keys stay distinct
        "json_embedded_nul_then_value.json": .error("JSON"),
        "json_lone_surrogate_key.json": .error("JSON"),
        "json_overlong_utf8.json": .error("JSON"),
        "json_surrogate_utf8.json": .error("JSON"),
        // zlib.
        "zlib_bomb_256MiB_zeros.zlib": .error("zlib"),
        // One layer is inflated (4 MB, within budget); the payload is another zlib stream,
        // which is never inflated again without a new budget, so no format is recognised.
        "zlib_nested_bomb_4GiB.zlib": .error("unrecognised format"),
        "zlib_truncated.zlib": .error("zlib"),
        "zlib_bad_adler32.zlib": .error("zlib"),
        "zlib_trailing_garbage.zlib": .error("zlib"),
        "zlib_bad_header.zlib": .error("unrecognised format"),
        "zlib_needs_preset_dict.zlib": .error("zlib"),
        "zlib_distance_too_far_back.zlib": .error("zlib"),
        "zlib_empty.zlib": .error("the input is empty (0 bytes)"),
        "zlib_stored_block_len_mismatch.zlib": .error("zlib"),
    ]

    static let hostileFiles = Fixtures.files(in: Fixtures.hostile) { name in
        !name.hasSuffix(".md") && !name.hasSuffix(".py")
    }.map(\.lastPathComponent)

    /// Every `*-neg-*` input fixture (not the peers' views of them in EXPECTED/).
    static let negativeFixtures: [String] = {
        var found: [String] = []
        let root = Fixtures.root
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let relative = walker?.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            guard name.contains("-neg-"), !relative.contains("EXPECTED/") else { continue }
            found.append(relative)
        }
        return found.sorted()
    }()

    @Test func everyHostileFileHasAnOutcome() {
        #expect(Set(Self.hostileFiles) == Set(Self.outcomes.keys))
        #expect(Self.hostileFiles.count == 83)
    }

    static func arguments(for name: String, path: String) -> [String] {
        name.hasPrefix("ka_") ? ["--from", "keyed", "--secure"] : []
    }

    static func checkResources(_ run: MeasuredRun, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.signal == nil && !run.timedOut, "\(what): \(run.summary)", sourceLocation: sourceLocation)
        #expect(run.maxRSSBytes <= maxRSS, "\(what): \(run.summary)", sourceLocation: sourceLocation)
        #expect(run.cpuSeconds <= maxCPUSeconds, "\(what): \(run.summary)", sourceLocation: sourceLocation)
    }

    /// One line on stderr, `pfarchive: <file>: …`.
    static func checkCleanError(_ run: MeasuredRun, file: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 1, "\(what): \(run.summary)", sourceLocation: sourceLocation)
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "\(what): one line expected: \(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.stderr.hasPrefix("pfarchive: \(file): "), "\(what): \(run.stderr)", sourceLocation: sourceLocation)
    }

    @Test(arguments: hostileFiles)
    func convertGivesTheManifestOutcome(_ name: String) throws {
        let path = Fixtures.hostile.appendingPathComponent(name).path
        let run = try CLI.runMeasured(["convert", path, "-", "--to", "json"] + Self.arguments(for: name, path: path))
        Self.checkResources(run, name)
        switch try #require(Self.outcomes[name]) {
        case .accept(let json):
            #expect(run.status == 0, "\(name): \(run.summary)")
            #expect(String(decoding: run.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == json)
        case .acceptAny:
            #expect(run.status == 0, "\(name): \(run.summary)")
            #expect(!run.stdout.isEmpty)
        case .error(let reason):
            Self.checkCleanError(run, file: path, name)
            #expect(run.stderr.contains(reason), "\(name): expected “\(reason)” in \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(name): no partial output on stdout")
        }
    }

    /// A keyed archive of records is converted to compact JSON a record at a time from its
    /// bytes, and to `--pretty` JSON whole: the same exit status, and the same line for a
    /// file either refuses.
    @Test(arguments: hostileFiles.filter { $0.hasPrefix("ka_") })
    func keyedArchivesFailAsTheWholeRouteFails(_ name: String) throws {
        let path = Fixtures.hostile.appendingPathComponent(name).path
        let arguments = ["convert", path, "-", "--to", "json"] + Self.arguments(for: name, path: path)
        let streamed = try CLI.runMeasured(arguments)
        let whole = try CLI.runMeasured(arguments + ["--pretty"])
        Self.checkResources(streamed, name)
        #expect(streamed.status == whole.status, "\(name): \(streamed.summary) / \(whole.summary)")
        #expect(streamed.stderr == whole.stderr, "\(name)")
    }

    /// `inspect` prints the whole tree: the same outcome, through the printing path.
    @Test(arguments: hostileFiles)
    func inspectGivesTheSameOutcome(_ name: String) throws {
        let path = Fixtures.hostile.appendingPathComponent(name).path
        let run = try CLI.runMeasured(["inspect", path] + Self.arguments(for: name, path: path))
        Self.checkResources(run, "inspect \(name)")
        switch try #require(Self.outcomes[name]) {
        case .accept, .acceptAny:
            #expect(run.status == 0, "inspect \(name): \(run.summary)")
        case .error:
            Self.checkCleanError(run, file: path, "inspect \(name)")
        }
    }

    @Test func thereAreNegativeFixtures() {
        #expect(Self.negativeFixtures.count >= 5, "\(Self.negativeFixtures)")
    }

    @Test(arguments: negativeFixtures)
    func negativeFixtureIsACleanError(_ relative: String) throws {
        let path = Fixtures.root.appendingPathComponent(relative).path
        // Keyed fixtures are archives: read them as such (as plain property lists some are fine).
        let from = relative.hasPrefix("real/keyed/") ? ["--from", "keyed"] : []
        let run = try CLI.runMeasured(["convert", path, "-", "--to", "json"] + from)
        Self.checkResources(run, relative)
        Self.checkCleanError(run, file: path, relative)
        #expect(run.stdout.isEmpty)
    }
}

/// The decoding-limit options are one group shared by convert, inspect, validate and migrate.
@Suite struct LimitOptionsCLITests {
    static let deep = Fixtures.root.appendingPathComponent("conformance/JSONTestSuite/test_parsing/i_structure_500_nested_arrays.json").path
    static let comment = Fixtures.root.appendingPathComponent("real/parse/Comment.json").path
    static let schema = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures/schema.json").path
    static let employees = Fixtures.repoRoot.appendingPathComponent("Tests/PFVersioningTests/Fixtures/json/employees-v1.json").path

    @Test(arguments: [
        (["convert", comment, "-", "--max-nodes", "5"], "maxNodes (5)"),
        (["convert", comment, "-", "--max-collection", "2"], "maxCollectionCount (2)"),
        (["convert", comment, "-", "--max-string-bytes", "3"], "maxStringBytes (3)"),
        (["inspect", comment, "--max-bytes", "10"], "maxInputBytes (10)"),
        (["inspect", deep, "--max-depth", "100"], "maxDepth (100)"),
        (["validate", comment, "--max-bytes", "10"], "maxInputBytes (10)"),
        (["migrate", employees, "-", "--schema", schema, "--max-depth", "2"], "maxDepth (2)"),
    ])
    func eachCommandTakesTheLimits(_ arguments: [String], _ message: String) throws {
        let run = try CLI.run(arguments)
        #expect(run.status == 1, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
    }

    @Test func defaultsAcceptWhatTheLimitsRefuse() throws {
        #expect(try CLI.run(["convert", Self.comment, "-"]).status == 0)
        #expect(try CLI.run(["inspect", Self.deep]).status == 0)
    }

    @Test(arguments: ["--max-depth", "--max-bytes", "--max-nodes", "--max-collection", "--max-string-bytes", "--max-decompressed-bytes", "--max-ratio"])
    func aLimitBelowOneIsAUsageError(_ option: String) throws {
        let run = try CLI.run(["convert", Self.comment, "-", option, "0"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("\(option) must be at least 1"))
    }
}
