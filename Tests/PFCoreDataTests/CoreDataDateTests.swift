import Foundation
import PFCore
@testable import PFCoreData
import Testing

/// Core Data dates are seconds since 2001; `NSDate.distantPast` (-63114076800, year 0, Apple's
/// usual "no date", in a real WhatsApp `ChatStorage.sqlite`) is outside the years 1–9999 JSON
/// and XML property lists can write: it stays the stored number, with a warning, so a convert
/// to JSON or an import into an export no longer stops on the row.
@Suite struct CoreDataDateTests {
    @Test func aDateOutsideYearsOneToNineThousandIsKeptAsStored() {
        let past = CoreDataValueConverter.date(secondsSince2001: -63_114_076_800, stored: .int(-63_114_076_800))
        #expect(past.0 == .int(-63_114_076_800))
        #expect(past.1?.contains("NSDate.distantPast") == true, "\(past.1 ?? "")")
        let far = CoreDataValueConverter.date(secondsSince2001: 1e12, stored: .double(1e12))
        #expect(far.0 == .double(1e12) && far.1 != nil)
        // distantFuture (year 4001) and ordinary dates are dates.
        let future = CoreDataValueConverter.date(secondsSince2001: 63_113_904_000, stored: .int(63_113_904_000))
        #expect(future.0 == .date(Date(timeIntervalSinceReferenceDate: 63_113_904_000)) && future.1 == nil)
        let first = CoreDataValueConverter.date(secondsSince2001: -63_113_904_000, stored: .int(0))
        #expect(first.1 == nil, "0001-01-01 is a date")
    }
}
