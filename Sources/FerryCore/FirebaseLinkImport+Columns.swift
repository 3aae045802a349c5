import Foundation

extension FirebaseLinkImport {
    /// The 29 documented fields; the raw value is the position in Google's documented order.
    enum Column: Int, CaseIterable, Sendable {
        case shortLink, deepLink, apn, afl, amv, ibi, ifl, ius, ipfl, ipbi, isi, imv, efr, ofl, st, sd, si
        case utmSource, utmMedium, utmCampaign, utmTerm, utmContent, itunesAt, itunesCt, itunesMt, itunesPt
        case archived, name, created

        /// The column as Google's documentation names it, for messages.
        var label: String {
            switch self {
            case .shortLink: "Short link"
            case .deepLink: "Deep link (link)"
            case .apn: "Android package name (apn)"
            case .afl: "Android fallback link (afl)"
            case .amv: "Android minimum package version code (amv)"
            case .ibi: "iOS bundle ID (ibi)"
            case .ifl: "iOS fallback link (ifl)"
            case .ius: "iOS custom scheme (ius)"
            case .ipfl: "iOS iPad fallback link (ipfl)"
            case .ipbi: "iOS iPad bundle ID (ipbi)"
            case .isi: "iOS app store ID (isi)"
            case .imv: "iOS minimum version (imv)"
            case .efr: "Enable forced redirect (efr)"
            case .ofl: "Desktop fallback link (ofl)"
            case .st: "Social title (st)"
            case .sd: "Social description (sd)"
            case .si: "Social image link (si)"
            case .utmSource: "UTM source (utm_source)"
            case .utmMedium: "UTM medium (utm_medium)"
            case .utmCampaign: "UTM campaign (utm_campaign)"
            case .utmTerm: "UTM term (utm_term)"
            case .utmContent: "UTM content (utm_content)"
            case .itunesAt: "iTunes Connect at"
            case .itunesCt: "iTunes Connect ct"
            case .itunesMt: "iTunes Connect mt"
            case .itunesPt: "iTunes Connect pt"
            case .archived: "Archived?"
            case .name: "Link name"
            case .created: "Creation timestamp"
            }
        }

        /// The column's short name in messages: its FDL parameter (`ifl`, `utm_source`), else its label.
        var code: String {
            switch self {
            case .shortLink, .itunesAt, .itunesCt, .itunesMt, .itunesPt, .archived, .name, .created: label
            case .deepLink: "link"
            case .utmSource: "utm_source"
            case .utmMedium: "utm_medium"
            case .utmCampaign: "utm_campaign"
            case .utmTerm: "utm_term"
            case .utmContent: "utm_content"
            default: "\(self)"
            }
        }

        /// Normalised header spellings that name the column.
        var aliases: [String] {
            switch self {
            case .shortLink: ["shortlink", "shortdynamiclink", "dynamiclink", "shorturl", "shortlinkurl"]
            case .deepLink: ["deeplink", "link", "deeplinkurl"]
            case .apn: ["androidpackagename", "apn", "androidpackage"]
            case .afl: ["androidfallbacklink", "afl", "androidfallbackurl"]
            case .amv: ["androidminimumpackageversioncode", "amv", "androidminimumversioncode", "androidminimumversion"]
            case .ibi: ["iosbundleid", "ibi"]
            case .ifl: ["iosfallbacklink", "ifl", "iosfallbackurl"]
            case .ius: ["ioscustomscheme", "ius", "iosurlscheme"]
            case .ipfl: ["iosipadfallbacklink", "ipfl", "ipadfallbacklink"]
            case .ipbi: ["iosipadbundleid", "ipbi", "ipadbundleid"]
            case .isi: ["iosappstoreid", "isi", "appstoreid"]
            case .imv: ["iosminimumversion", "imv"]
            case .efr: ["enableforcedredirect", "efr", "forcedredirect"]
            case .ofl: ["desktopfallbacklink", "ofl", "desktopfallbackurl"]
            case .st: ["socialtitle", "st"]
            case .sd: ["socialdescription", "sd"]
            case .si: ["socialimagelink", "si", "socialimageurl", "socialimage"]
            case .utmSource: ["utmsource"]
            case .utmMedium: ["utmmedium"]
            case .utmCampaign: ["utmcampaign"]
            case .utmTerm: ["utmterm"]
            case .utmContent: ["utmcontent"]
            case .itunesAt: ["itunesconnectat", "at"]
            case .itunesCt: ["itunesconnectct", "ct"]
            case .itunesMt: ["itunesconnectmt", "mt"]
            case .itunesPt: ["itunesconnectpt", "pt"]
            case .archived: ["archived", "isarchived"]
            case .name: ["linkname", "name"]
            case .created: ["creationtimestamp", "created", "createdat", "creationtime", "creationdate", "createtime", "timestamp"]
            }
        }

        static let byAlias: [String: Column] = {
            var table: [String: Column] = [:]
            for column in allCases {
                for alias in column.aliases { table[alias] = column }
            }
            return table
        }()

        /// The column a header names, if any: the whole header, the words before a parenthesis, or the code inside.
        init?(header: String) {
            var candidates = [Self.normalize(header)]
            if let open = header.firstIndex(of: "(") {
                candidates.append(Self.normalize(header[..<open]))
                let inside = header[header.index(after: open)...]
                candidates.append(Self.normalize(inside.prefix { $0 != ")" }))
            }
            guard let column = candidates.lazy.compactMap({ Self.byAlias[$0] }).first else { return nil }
            self = column
        }

        /// Lowercase ASCII letters and digits only: `Deep link` → `deeplink`, `utm_source` → `utmsource`.
        static func normalize(_ text: some StringProtocol) -> String {
            var result = ""
            for scalar in text.lowercased().unicodeScalars where ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            }
            return result
        }
    }

    /// Where each column is in the file.
    struct Columns {
        var index: [Column: Int]
        /// Whether the first record is a header (else it is data, in the documented order).
        var hasHeader: Bool

        init(firstRecord: [String]) throws(ImportError) {
            var found: [Column: Int] = [:]
            for (position, title) in firstRecord.enumerated() {
                if let column = Column(header: title), found[column] == nil { found[column] = position }
            }
            if found.count >= 3 || (found[.shortLink] != nil && found[.deepLink] != nil) {
                for required in [Column.shortLink, .deepLink] where found[required] == nil {
                    throw ImportError(.missingColumn, line: 1, "the header has no '\(required.label)' column; columns found: \(Self.list(found))")
                }
                index = found
                hasHeader = true
            } else if firstRecord.count >= Column.allCases.count {
                index = Dictionary(uniqueKeysWithValues: Column.allCases.map { ($0, $0.rawValue) })
                hasHeader = false
            } else {
                throw ImportError(
                    .unrecognisedHeader, line: 1,
                    "line 1 is neither a header naming the export's columns (Short link, Deep link (link), …) nor a row of the \(Column.allCases.count) documented fields (it has \(firstRecord.count))"
                )
            }
        }

        static func list(_ found: [Column: Int]) -> String {
            let names = found.sorted { $0.value < $1.value }.map { $0.key.label }
            return names.isEmpty ? "none" : names.joined(separator: ", ")
        }
    }

    /// One record's cells, by column, trimmed.
    struct Cells {
        let record: [String]
        let columns: Columns

        subscript(column: Column) -> String {
            guard let position = columns.index[column], position < record.count else { return "" }
            return record[position].trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A value, or nil when the cell is empty.
        func value(_ column: Column) -> String? {
            let text = self[column]
            return text.isEmpty ? nil : text
        }

        /// Whether the file has the column and this row leaves it empty (a file without the column says nothing).
        func isEmptyInFile(_ column: Column) -> Bool {
            columns.index[column] != nil && value(column) == nil
        }

        var isBlank: Bool { record.allSatisfy { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty } }
    }
}
