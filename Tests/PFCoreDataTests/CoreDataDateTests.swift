import Foundation
import PFCore
@testable import PFCoreData
import Testing

/// Core Data dates are seconds since 2001. `NSDate.distantPast` (-63114076800, Apple's usual
/// "no date", in a real WhatsApp `ChatStorage.sqlite`) is 0000-12-30, a date every writer holds
/// (a convert to JSON stopped on it); a number outside years 0–9999 stays the stored number,
/// with a warning.
@Suite struct CoreDataDateTests {
    @Test func distantPastIsADateAndOutsideYearsZeroToNineThousandIsKeptAsStored() throws {
        let past = CoreDataValueConverter.date(secondsSince2001: -63_114_076_800, stored: .int(-63_114_076_800))
        #expect(past.0 == .date(Date(timeIntervalSinceReferenceDate: -63_114_076_800)) && past.1 == nil)
        #expect(PFDateFormat.roundedMilliseconds(Date(timeIntervalSinceReferenceDate: -63_114_076_800)) == "0000-12-30T00:00:00.000Z")
        let before = CoreDataValueConverter.date(secondsSince2001: -63_200_000_000, stored: .int(-63_200_000_000))
        #expect(before.0 == .int(-63_200_000_000) && before.1?.contains("outside years 0-9999") == true)
        let far = CoreDataValueConverter.date(secondsSince2001: 1e12, stored: .double(1e12))
        #expect(far.0 == .double(1e12) && far.1 != nil)
        // distantFuture (year 4001) is a date.
        let future = CoreDataValueConverter.date(secondsSince2001: 63_113_904_000, stored: .int(63_113_904_000))
        #expect(future.0 == .date(Date(timeIntervalSinceReferenceDate: 63_113_904_000)) && future.1 == nil)
    }
}
