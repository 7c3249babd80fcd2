import Foundation
import PFCore
import PFJSON
import Testing

/// The native writer's exact output: numbers, escapes, layout and errors.
@Suite struct WriterTests {
    @Test func doublesAreShortestAndStayDoubles() throws {
        let cases: [(Double, String)] = [
            (1, "1.0"), (-0.0, "-0.0"), (0.1, "0.1"), (1e-7, "1e-07"), (1e20, "1e+20"), (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"), (123456.789, "123456.789"), (-2.5, "-2.5"),
        ]
        for (value, text) in cases {
            #expect(try JSONTest.text(.double(value)) == text)
            #expect(try JSONTest.read(text) == .double(value), "\(text)")
        }
    }

    @Test func integersAreExact() throws {
        #expect(try JSONTest.text([.int(.min), .int(.max), .uint(.max), 0, -7]) == "[-9223372036854775808,9223372036854775807,18446744073709551615,0,-7]")
        #expect(try JSONTest.read("[-9223372036854775808,18446744073709551615]") == [.int(.min), .uint(.max)])
    }

    @Test func nonFiniteDoublesAreUnrepresentableWithTheirPath() {
        for engine in [JSONWriter.Engine.native, .jsonC] {
            var options = JSONWriter.Options()
            options.engine = engine
            for bad in [Double.nan, .infinity, -.infinity] {
                #expect {
                    _ = try JSONWriter(options: options).write(["a": [1, .double(bad)]])
                } throws: { error in
                    let e = error as? PFError
                    return e?.code == .unrepresentable && e?.path == PFKeyPath([.key("a"), .index(1)])
                }
            }
        }
    }

    @Test func stringsAreEscaped() throws {
        let value: PFValue = .string("q\"b\\s/n\nt\tr\rb\u{8}f\u{C}c\u{1}\u{1F}z\u{7F}é😀\u{0}")
        #expect(try JSONTest.text(value) == #""q\"b\\s/n\nt\tr\rb\bf\fc\u0001\u001fz"# + "\u{7F}é😀" + #"\u0000""#)
        #expect(try JSONTest.text("a/b", .init(escapeSlashes: true)) == #""a\/b""#)
        #expect(try JSONTest.read(try JSONTest.text(value)) == value)
    }

    @Test func prettyLayout() throws {
        let value: PFValue = ["a": [1, 2], "b": [:], "c": [], "d": ["e": nil]]
        #expect(try JSONTest.text(value, .init(pretty: true)) == """
            {
              "a": [
                1,
                2
              ],
              "b": {},
              "c": [],
              "d": {
                "e": null
              }
            }

            """)
    }

    @Test func sortedKeysUseUTF8Order() throws {
        let value: PFValue = ["b": 1, "a": 2, "é": 3, "Z": 4, "aa": 5]
        #expect(try JSONTest.text(value, .init(sortedKeys: true)) == #"{"Z":4,"a":2,"aa":5,"b":1,"é":3}"#)
        var options = JSONWriter.Options(sortedKeys: true)
        options.engine = .jsonC
        #expect(try JSONTest.text(value, options) == #"{"Z":4,"a":2,"aa":5,"b":1,"é":3}"#)
    }

    @Test func writeIntoAppendsToTheBuffer() throws {
        var buffer = Array("prefix:".utf8)
        try JSONWriter().write([true, nil], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "prefix:[true,null]")
    }

    @Test func tooDeepTreesAreLimitErrors() {
        var value: PFValue = 1
        for _ in 0..<600 { value = [value] }
        for engine in [JSONWriter.Engine.native, .jsonC] {
            var options = JSONWriter.Options()
            options.engine = engine
            #expect(throws: PFError.self) { _ = try JSONWriter(options: options).write(value) }
            do {
                _ = try JSONWriter(options: options).write(value)
            } catch {
                #expect(error.code == .limitExceeded)
                #expect(error.path?.components.count == 512)
            }
        }
    }

    @Test func jsonCEngineRejectsNULInKeys() {
        var options = JSONWriter.Options()
        options.engine = .jsonC
        #expect {
            _ = try JSONWriter(options: options).write(["ok": ["a\u{0}b": 1]])
        } throws: { error in
            (error as? PFError)?.code == .unrepresentable && (error as? PFError)?.path == PFKeyPath([.key("ok"), .key("a\u{0}b")])
        }
    }
}
