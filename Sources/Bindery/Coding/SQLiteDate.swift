import Foundation

/// Fast conversion between `Date` and the text forms of SQLite's date and time functions, with
/// no `DateFormatter`: plain arithmetic on days since 1970 (Howard Hinnant's civil-from-days).
///
/// ```swift
/// SQLiteDate.string(from: Date(timeIntervalSince1970: 0.25))  // "1970-01-01 00:00:00.250"
/// SQLiteDate.date(from: "2024-02-29T12:30:00+01:00")          // 2024-02-29 11:30:00 UTC
/// ```
public enum SQLiteDate {
    /// Formats `date` as `yyyy-MM-dd HH:mm:ss.SSS` in UTC, rounded to the nearest millisecond; nil
    /// when the year falls outside 0…9999, which SQLite's date functions cannot read.
    public static func string(from date: Date) -> String? {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 4.0e14 else { return nil }
        let total = Int64(milliseconds)
        let (daysSinceEpoch, msOfDay) = floorDivide(total, 86_400_000)
        let (year, month, day) = civil(fromDays: daysSinceEpoch)
        guard (0...9999).contains(year) else { return nil }
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let millisecond = msOfDay % 1000
        return String(unsafeUninitializedCapacity: 23) { buffer in
            func put(_ value: Int64, digits: Int, at offset: Int) {
                var value = value
                for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(truncatingIfNeeded: 48 + value % 10)
                    value /= 10
                }
            }
            put(year, digits: 4, at: 0)
            buffer[4] = 45  // -
            put(month, digits: 2, at: 5)
            buffer[7] = 45
            put(day, digits: 2, at: 8)
            buffer[10] = 32  // space
            put(hour, digits: 2, at: 11)
            buffer[13] = 58  // :
            put(minute, digits: 2, at: 14)
            buffer[16] = 58
            put(second, digits: 2, at: 17)
            buffer[19] = 46  // .
            put(millisecond, digits: 3, at: 20)
            return 23
        }
    }

    /// Parses every text form that SQLite's date functions accept: `YYYY-MM-DD`, optionally followed
    /// by `T` or a space and `HH:MM`, `HH:MM:SS` or `HH:MM:SS.SSS` (any number of fraction digits),
    /// optionally followed by `Z` or `±HH:MM`; or a time alone, `HH:MM[:SS[.SSS]]`, on 2000-01-01.
    /// Like SQLite, it allows white space (and `T`s) between the date and the time, and white space
    /// before and after the time zone. Returns nil for anything else, and, unlike SQLite, which rolls
    /// `2024-02-30` over to 1 March, for a day the month does not have.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromUTF8: $0) }
    }

    /// The Julian day number of `date` (days since noon, 24 November 4714 BC, proleptic Gregorian).
    static func julianDay(from date: Date) -> Double {
        date.timeIntervalSince1970 / 86_400 + 2_440_587.5
    }

    /// The date of Julian day number `julianDay`.
    static func date(fromJulianDay julianDay: Double) -> Date {
        Date(timeIntervalSince1970: (julianDay - 2_440_587.5) * 86_400)
    }

    // MARK: Calendar arithmetic

    /// The number of days in `month` (1…12) of `year`, in the proleptic Gregorian calendar.
    static func daysIn(month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date; months and days past their end carry over
    /// as SQLite's do (February 30 is March 1 or 2).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = (month + 9) % 12
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a count of days since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
