/// Decimal128 values (IEEE 754-2008 decimal, binary integer decimal encoding) as strings.
enum RealmDecimal {
    /// A BID128 value; Realm's null is the NaN with payload 0xAA.
    static func bid128(low: UInt64, high: UInt64) -> RealmValue {
        if high == 0x7c00_0000_0000_0000 && low == 0xaa { return .null }
        let negative = high >> 63 == 1
        if (high >> 61) & 3 == 3 {
            if (high >> 59) & 0xF == 0xF { return .decimal(special(high >> 58 & 0x1F, negative)) }
            return .decimal(format(hi: 0, lo: 0, exponent: Int((high >> 47) & 0x3FFF) - 6176, negative: negative))
        }
        let exponent = Int((high >> 49) & 0x3FFF) - 6176
        let hi = high & 0x1_FFFF_FFFF_FFFF
        // Coefficients past 10^34 - 1 are non-canonical and mean zero.
        let maxHi: UInt64 = 0x1_ED09_BEAD_87C0
        let maxLo: UInt64 = 0x378D_8E63_FFFF_FFFF
        if hi > maxHi || (hi == maxHi && low > maxLo) { return .decimal(format(hi: 0, lo: 0, exponent: exponent, negative: negative)) }
        return .decimal(format(hi: hi, lo: low, exponent: exponent, negative: negative))
    }

    /// A BID64 value.
    static func bid64(_ v: UInt64) -> RealmValue {
        if v == 0x7c00_0000_0000_00aa { return .null }
        let negative = v >> 63 == 1
        if (v >> 61) & 3 == 3 {
            if (v >> 59) & 0xF == 0xF { return .decimal(special(v >> 58 & 0x1F, negative)) }
            return .decimal(format(hi: 0, lo: (v & 0x7_FFFF_FFFF_FFFF) | 0x20_0000_0000_0000, exponent: Int((v >> 51) & 0x3FF) - 398, negative: negative))
        }
        return .decimal(format(hi: 0, lo: v & 0x1F_FFFF_FFFF_FFFF, exponent: Int((v >> 53) & 0x3FF) - 398, negative: negative))
    }

    /// A BID32 value.
    static func bid32(_ v: UInt32) -> RealmValue {
        if v == 0x7c00_00aa { return .null }
        let negative = v >> 31 == 1
        if (v >> 29) & 3 == 3 {
            if (v >> 27) & 0xF == 0xF { return .decimal(special(UInt64(v >> 26 & 0x1F), negative)) }
            return .decimal(format(hi: 0, lo: UInt64((v & 0x1F_FFFF) | 0x80_0000), exponent: Int((v >> 21) & 0xFF) - 101, negative: negative))
        }
        return .decimal(format(hi: 0, lo: UInt64(v & 0x7F_FFFF), exponent: Int((v >> 23) & 0xFF) - 101, negative: negative))
    }

    static func special(_ bits: UInt64, _ negative: Bool) -> String {
        bits == 0x1E ? (negative ? "-Inf" : "+Inf") : "NaN"
    }

    /// `coefficient × 10^exponent` in plain notation when short, else with `E`.
    static func format(hi: UInt64, lo: UInt64, exponent: Int, negative: Bool) -> String {
        var digits = ""
        var (h, l) = (hi, lo)
        repeat {
            // Divide the 128-bit (h, l) by 10, 32 bits at a time.
            var remainder: UInt64 = 0
            var words = [h >> 32, h & 0xFFFF_FFFF, l >> 32, l & 0xFFFF_FFFF]
            for i in 0..<4 {
                let cur = remainder << 32 | words[i]
                words[i] = cur / 10
                remainder = cur % 10
            }
            h = words[0] << 32 | words[1]
            l = words[2] << 32 | words[3]
            digits.append(Character(String(remainder)))
        } while h != 0 || l != 0
        digits = String(digits.reversed())
        var text: String
        if exponent == 0 {
            text = digits
        } else if exponent < 0 && -exponent <= 40 {
            let point = -exponent
            if digits.count > point {
                text = String(digits.dropLast(point)) + "." + String(digits.suffix(point))
            } else {
                text = "0." + String(repeating: "0", count: point - digits.count) + digits
            }
        } else {
            text = digits + "E" + (exponent > 0 ? "+" : "") + String(exponent)
        }
        return (negative ? "-" : "") + text
    }
}
