import Foundation
import PFCore
import PFPropertyList
import PFTestSupport
import Testing

/// The hostile corpus (`conformance/hostile/bplist_*`, outcomes from its MANIFEST.md) and the
/// real files in `real/bplist` against what Python's plistlib made of them.
@Suite struct BinaryPlistCorpusTests {
    enum Outcome: Sendable, CustomStringConvertible {
        case accept(PFValue)
        case reject(PFError.Code, offset: Int)

        var description: String {
            switch self {
            case .accept(let v): "accept \(v.scalarDescription)"
            case .reject(let code, let offset): "reject \(code) at \(offset)"
            }
        }
    }

    /// Every `bplist_*` file in the hostile corpus and the outcome MANIFEST.md asks for
    /// (the code and offset are this reader's documented classification of the "clean error").
    static let hostile: [(String, Outcome)] = [
        ("bplist_valid_baseline", .accept(["a", 7])),
        ("bplist_truncated_magic", .reject(.truncated, offset: 7)),
        ("bplist_trailer_only", .reject(.truncated, offset: 40)),
        ("bplist_unsupported_version", .reject(.unsupported, offset: 6)),
        ("bplist_top_object_out_of_range", .reject(.syntax, offset: 27)),
        ("bplist_offset_table_past_eof", .reject(.syntax, offset: 35)),
        ("bplist_offset_table_in_trailer", .reject(.syntax, offset: 19)),
        ("bplist_numobjects_mul_overflow", .reject(.syntax, offset: 26)),
        ("bplist_numobjects_huge_alloc", .reject(.syntax, offset: 19)),
        ("bplist_offset_int_size_zero", .reject(.syntax, offset: 17)),
        ("bplist_objref_size_zero", .reject(.syntax, offset: 20)),
        ("bplist_offset_int_size_16", .reject(.syntax, offset: 17)),
        ("bplist_refsize_too_small_for_count", .reject(.syntax, offset: 1219)),
        ("bplist_object_offset_into_header", .reject(.syntax, offset: 10)),
        ("bplist_object_offset_into_offset_table", .reject(.syntax, offset: 13)),
        ("bplist_array_self_cycle", .reject(.invalidValue, offset: 8)),
        ("bplist_mutual_cycle_dict_array", .reject(.invalidValue, offset: 8)),
        ("bplist_cycle_below_depth_16", .reject(.invalidValue, offset: 18)),
        ("bplist_array_ref_out_of_range", .reject(.syntax, offset: 10)),
        ("bplist_dict_key_ref_out_of_range", .reject(.syntax, offset: 9)),
        ("bplist_array_count_huge", .reject(.truncated, offset: 8)),
        ("bplist_dict_count_mul_overflow", .reject(.syntax, offset: 9)),
        ("bplist_ascii_len_past_end", .reject(.truncated, offset: 14)),
        ("bplist_utf16_len_overflow", .reject(.syntax, offset: 9)),
        ("bplist_data_len_negative", .reject(.syntax, offset: 9)),
        ("bplist_count_int_marker_not_int", .reject(.syntax, offset: 9)),
        ("bplist_int_32_bytes", .reject(.syntax, offset: 8)),
        ("bplist_real_2_bytes", .reject(.syntax, offset: 8)),
        ("bplist_unknown_marker", .reject(.unsupported, offset: 8)),
        ("bplist_uid_too_wide", .reject(.invalidValue, offset: 8)),
        ("bplist_date_nan", .reject(.invalidValue, offset: 8)),
        ("bplist_dict_nonstring_key", .reject(.invalidValue, offset: 11)),
        ("bplist_dict_duplicate_keys", .accept(["k": 2])),
        ("bplist_dag_exponential_2pow63", .reject(.limitExceeded, offset: 122)),
        ("bplist_deep_nesting_100k", .reject(.limitExceeded, offset: 2056)),
    ]

    @Test func everyHostileFileIsListed() {
        let onDisk = Fixtures.files(in: Fixtures.hostile) { $0.hasPrefix("bplist_") }.map {
            $0.deletingPathExtension().lastPathComponent
        }
        #expect(onDisk.count == 35)
        #expect(Set(onDisk) == Set(Self.hostile.map(\.0)))
    }

    @Test(arguments: hostile)
    func hostileFileGetsItsManifestOutcome(name: String, outcome: Outcome) throws {
        let data = try Fixtures.data(Fixtures.hostile.appendingPathComponent(name + ".bplist"))
        let result = Result { () throws(PFError) in try BinaryPlistReader().read(data) }
        switch (outcome, result) {
        case (.accept(let expected), .success(let value)):
            #expect(value == expected)
        case (.reject(let code, let offset), .failure(let error)):
            #expect(error.code == code, "\(error)")
            #expect(error.location?.offset == offset, "\(error)")
            #expect(error.format == .bplist)
        default:
            Issue.record("\(name): expected \(outcome), got \(result)")
        }
    }

    // MARK: - Real files

    static let realFiles = Fixtures.files(in: Fixtures.real.appendingPathComponent("bplist")).map(\.lastPathComponent)

    @Test func realCorpusIsPresent() {
        #expect(Self.realFiles.count == 10)
    }

    @Test(arguments: realFiles.filter { !$0.contains("-neg-") })
    func realFileMatchesPlistlib(name: String) throws {
        let data = try Fixtures.data(Fixtures.real.appendingPathComponent("bplist/\(name)"))
        let value = try BinaryPlistReader().read(data)
        let expectedDir = Fixtures.real.appendingPathComponent("EXPECTED/bplist")
        let json = expectedDir.appendingPathComponent("\(name).plistlib.json")
        let expected: PFValue
        if FileManager.default.fileExists(atPath: json.path) {
            expected = try PlistlibJSON.value(fromJSON: Fixtures.data(json))
        } else {
            // plistlib's text rendering of a bare string, with a trailing newline.
            let text = try String(contentsOf: expectedDir.appendingPathComponent("\(name).plistlib.txt"), encoding: .utf8)
            expected = .string(String(text.dropLast()))
        }
        #expect(BPlist.sameUpToMicroseconds(value, expected), "\(name)")
    }

    @Test(arguments: realFiles.filter { $0.contains("-neg-") })
    func negativeRealFileFailsCleanly(name: String) throws {
        let data = try Fixtures.data(Fixtures.real.appendingPathComponent("bplist/\(name)"))
        let error = BPlist.error(data)
        #expect(error != nil)
        #expect(error?.location != nil)
        #expect(error.map { $0.code == .syntax || $0.code == .invalidValue } == true, "\(String(describing: error))")
    }
}

extension BPlist {
    /// Equality, except that dates may differ by up to a microsecond (plistlib renders
    /// dates with microsecond precision).
    static func sameUpToMicroseconds(_ a: PFValue, _ b: PFValue) -> Bool {
        switch (a, b) {
        case (.date(let x), .date(let y)):
            return abs(x.timeIntervalSinceReferenceDate - y.timeIntervalSinceReferenceDate) <= 1e-6
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { sameUpToMicroseconds($0, $1) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count
                && zip(x, y).allSatisfy { $0.key == $1.key && sameUpToMicroseconds($0.value, $1.value) }
        default:
            return a == b
        }
    }
}
