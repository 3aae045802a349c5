import FerryAPI
import Foundation

/// Reads the CSV that Google exports for Firebase Dynamic Links (FDL) — Google Takeout, "Export Dynamic Links
/// metadata", one file per domain — and decides, row by row, the Ferry link to create or why the row is skipped.
/// Pure: no store, no clock, no randomness; the same file, app and options always give the same rows. Whether a
/// link already exists in the database is for the caller to check (by `domain` and `slug` of the request).
///
/// ## Columns
///
/// Google documents 29 fields, in this order: short link, deep link (`link`), `apn`, `afl`, `amv`, `ibi`, `ifl`,
/// `ius`, `ipfl`, `ipbi`, `isi`, `imv`, `efr`, `ofl`, `st`, `sd`, `si`, `utm_source`, `utm_medium`, `utm_campaign`,
/// `utm_term`, `utm_content`, iTunes Connect `at`, `ct`, `mt`, `pt`, archived, link name, creation timestamp. The
/// header's exact spelling is not documented, so a column is recognised by its header reduced to lowercase ASCII
/// letters and digits, matched against the words (`Deep link (link)` → `deeplink`) or the parameter code in
/// parentheses (`link`), and a few other spellings (`shortdynamiclink`, `created`, …). Unknown columns are ignored;
/// when a name appears twice, the first column counts. The first row is a header when it names at least three known
/// columns, or both the short link and the deep link; otherwise, when it has at least 29 fields, the file is taken
/// as headerless in the documented order. A header without a short-link or deep-link column is an error. Rows
/// whose cells are all empty are left out; cells are trimmed; a short row has empty cells at its end.
///
/// ## Mapping
///
/// How Ferry's click router treats a link decides the mapping: `destination` is where desktop visitors (and
/// Android visitors when the app has no package) are redirected and what the app is handed; `iosURL` is what the
/// iOS app routes on (FerryKit's `routingURL` is `iosURL ?? destination`) and the "Open in app" button in
/// browsers that block Universal Links; `androidURL` is what the Android app is handed (a custom-scheme one also
/// becomes an `intent://` redirect). Where the app is not installed, iPhones get Ferry's page leading to the
/// app's App Store page (or its fallback URL) and Android phones the Play Store page of the app's package: those
/// are app settings in Ferry, not link fields.
///
/// - **Domain and slug** come from the short link: `https://example.page.link/m9Mm` → `example.page.link`, `m9mm`.
///   With ``Options/domain`` every link goes on that domain (a `page.link` host stays with Google); without it, the
///   host must stand for one of the app's domains (``App/linkDomain(forHost:)``: the domain itself, with a port,
///   or a subdomain of it), else the row is skipped as `foreign_domain`. The slug is the one path segment (or the
///   segment after `/link/`, a path Ferry serves too), checked with ``Slug/validateCustom(_:field:)`` and stored
///   lowercase. Ferry slugs are case-insensitive, so the old mixed-case URL still opens the link; two FDL links that
///   differ only in case are one Ferry link, and the second is skipped as `duplicate_in_file`. The short link's
///   query and fragment, if any, are ignored (with a note).
/// - **Deep link (`link`)** is required and must be an http(s) URL Ferry accepts (FDL's own rule). It becomes the
///   `destination`, which reproduces FDL for an installed app (the app receives it) and for desktops without `ofl`.
/// - **Desktop fallback (`ofl`)**, when set and different from the deep link, becomes the `destination`, so
///   desktops still go there; the deep link then goes to `iosURL` and `androidURL` (when https: Ferry's app URLs
///   are https or a custom scheme, never http), so the app still routes on it, and to `params["fdl_link"]` for code
///   reading params (Android apps, the compatibility lookups). The cost: in a browser that blocks Universal Links,
///   "Open in app" leads to the https deep link rather than the app's scheme.
/// - **`ifl`, `afl`, `ipfl`** (per-link fallbacks for phones without the app) have no Ferry field: a note says
///   where such visitors went with FDL and where Ferry sends them, when the two differ.
/// - **`apn`, `ibi`, `ipbi`, `isi`, `ius`** are app settings in Ferry (Android package, bundle IDs, App Store ID, URL
///   scheme): a note tells when a row names other values than the app's. `ius` does not become `iosURL`: Ferry's
///   `iosURL` is a whole deep link, and the app's scheme already serves "Open in app" when the link has none.
/// - **`st`, `sd`, `si`** → `social` (title, description, image URL).
/// - **`utm_*`** → `utm`, which Ferry adds to the web destination and to the Play Store referrer as FDL did.
/// - **Archived** (`true`/`false`, `1`/`0`, `yes`/`no`, any case) → `disabled: true`: the link answers 404.
/// - **Link name** → `params["fdl_name"]`: Ferry links have no name field, and `campaign` groups statistics, which
///   a per-link label would defeat. Noted on the row.
/// - **Creation timestamp** → `createdAt` (ISO 8601 with or without fractional seconds and zone, `YYYY-MM-DD
///   HH:MM:SS`, both UTC without a zone, or Unix seconds or milliseconds); unreadable: nil, so the link gets the
///   import time, with a note.
/// - **`efr`, `amv`, `imv` and iTunes Connect `at`, `ct`, `mt`, `pt`** have no Ferry equivalent: noted when set.
///
/// Each request is then checked with ``LinkRules/makeLink(from:context:)``, so what the API would refuse is a
/// skip with Ferry's message (`invalid_destination` for the destination, `invalid_link` for anything else), never
/// a failure later. Notes are sentences without the row's URLs, so that a caller can count identical ones.
public struct FirebaseLinkImport: Sendable {
    /// How to import.
    public struct Options: Sendable, Hashable {
        /// Put every link on this Ferry domain, one of the app's (FDL `page.link` domains belong to Google and cannot
        /// move to Ferry). Nil keeps each short link's host, which must then be one of the app's domains.
        public var domain: String?

        /// Creates options.
        public init(domain: String? = nil) {
            self.domain = domain
        }
    }

    /// What becomes of a row.
    public enum Outcome: Sendable, Hashable {
        /// Create this link; `createdAt` is the FDL creation time when the file gave a readable one.
        case create(CreateLinkRequest, createdAt: Date?)
        /// Create nothing, for this reason.
        case skip(reason: SkipReason)
    }

    /// One data row of the file and its outcome.
    public struct Row: Sendable, Hashable {
        /// The line of the file the row starts on (lines inside quoted fields counted; blank lines, which the CSV
        /// reader drops, not counted).
        public let line: Int
        /// The short link as the file has it (trimmed), possibly empty.
        public let shortLink: String
        /// The link to create or the reason for the skip.
        public let outcome: Outcome
        /// What did not carry over or differs from FDL: fields ignored, values that differ from the app's settings,
        /// visitors sent elsewhere than FDL sent them. Empty for a faithful import, and for a skipped row (its reason
        /// says it all).
        public let notes: [String]

        /// The request to send, when the row creates a link.
        public var request: CreateLinkRequest? {
            if case .create(let request, _) = outcome { return request }
            return nil
        }

        /// The FDL creation time, when the row creates a link and the file gave a readable one.
        public var createdAt: Date? {
            if case .create(_, let createdAt) = outcome { return createdAt }
            return nil
        }

        /// The reason, when the row is skipped.
        public var skipReason: SkipReason? {
            if case .skip(let reason) = outcome { return reason }
            return nil
        }
    }

    /// Why a row creates no link.
    public struct SkipReason: Sendable, Hashable, CustomStringConvertible {
        /// A stable code.
        public enum Code: String, Sendable, Hashable, CaseIterable {
            /// The row has no short link.
            case missingShortLink = "missing_short_link"
            /// The row has no deep link.
            case missingDeepLink = "missing_deep_link"
            /// The short link is not an http(s) URL with a valid host.
            case invalidShortLink = "invalid_short_link"
            /// The short link's host is not one of the app's domains and no domain was given.
            case foreignDomain = "foreign_domain"
            /// The short link's path is not one valid Ferry slug.
            case invalidSlug = "invalid_slug"
            /// The slug is a word Ferry keeps for its own routes.
            case reservedSlug = "reserved_slug"
            /// The deep link (or the desktop fallback used as destination) is not a web URL Ferry accepts.
            case invalidDestination = "invalid_destination"
            /// An earlier row of the file already creates the same domain and slug.
            case duplicateInFile = "duplicate_in_file"
            /// Ferry's link rules refuse another field.
            case invalidLink = "invalid_link"
        }

        /// The code.
        public var code: Code
        /// A sentence for people.
        public var message: String

        /// Creates a reason.
        public init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        public var description: String { "\(code.rawValue): \(message)" }
    }

    /// A file (or options) that cannot be imported at all.
    public struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
        /// A stable code.
        public enum Code: String, Sendable, Hashable {
            /// The text is not valid CSV (a quote left open, text after a closing quote).
            case invalidCSV = "invalid_csv"
            /// The first row is neither a recognisable header nor a row of the 29 documented fields.
            case unrecognisedHeader = "unrecognised_header"
            /// The header lacks the short-link or deep-link column.
            case missingColumn = "missing_column"
            /// ``Options/domain`` is not a valid domain of the app.
            case invalidDomain = "invalid_domain"
        }

        /// The code.
        public var code: Code
        /// The line at fault, when there is one.
        public var line: Int?
        /// A sentence for people.
        public var message: String

        /// Creates an error.
        public init(_ code: Code, line: Int? = nil, _ message: String) {
            self.code = code
            self.line = line
            self.message = message
        }

        public var description: String { message }
    }

    /// The rows of an FDL export, in file order, for `app`.
    /// - Throws: ``ImportError`` when the text is not CSV, has no usable header, or the options name a domain
    ///   that is not the app's.
    public static func rows(csv text: String, app: App, options: Options = Options()) throws(ImportError) -> [Row] {
        let target = try targetDomain(options.domain, app: app)
        let records: [[String]]
        do {
            records = try CSV.parse(text)
        } catch {
            throw ImportError(.invalidCSV, line: error.line, "the file is not valid CSV: \(error.message)")
        }
        guard let first = records.first else { return [] }
        let columns = try Columns(firstRecord: first)

        var rows: [Row] = []
        var claimed: [String: Claim] = [:]
        var line = 1
        for (index, record) in records.enumerated() {
            let start = line
            line += 1 + record.reduce(0) { $0 + $1.unicodeScalars.count(where: { $0 == "\n" }) }
            if index == 0 && columns.hasHeader { continue }
            let cells = Cells(record: record, columns: columns)
            if cells.isBlank { continue }
            var draft = Draft(line: start, cells: cells, app: app, target: target)
            do {
                let outcome = try draft.plan(claimed: &claimed)
                rows.append(Row(line: start, shortLink: cells[.shortLink], outcome: outcome, notes: draft.notes))
            } catch {
                rows.append(Row(line: start, shortLink: cells[.shortLink], outcome: .skip(reason: error.reason), notes: []))
            }
        }
        return rows
    }

    /// The normalised ``Options/domain``, checked against the app.
    static func targetDomain(_ domain: String?, app: App) throws(ImportError) -> String? {
        guard let domain else { return nil }
        let normalized: String
        do {
            normalized = try DomainName.validate(domain.trimmingCharacters(in: .whitespaces))
        } catch {
            throw ImportError(.invalidDomain, error.message)
        }
        guard let own = app.domains.first(where: { $0.lowercased() == normalized }) else {
            let list = app.domains.isEmpty ? "it has none" : app.domains.joined(separator: ", ")
            throw ImportError(.invalidDomain, "domain '\(normalized)' is not one of the app's link domains (\(list))")
        }
        return own
    }
}

// MARK: - Columns

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

        var isBlank: Bool { record.allSatisfy { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty } }
    }
}

// MARK: - One row

extension FirebaseLinkImport {
    /// The first row that creates a given domain and slug.
    struct Claim {
        var line: Int
        var host: String
        var rawSlug: String
        var shortURL: String
    }

    /// A skip, thrown inside the planning of a row.
    struct Refusal: Error {
        var reason: SkipReason
        init(_ code: SkipReason.Code, _ message: String) { reason = SkipReason(code, message) }
    }

    /// Where visitors without the app are sent.
    enum Landing: Equatable {
        case appStore, playStore
        case web(String)

        var text: String {
            switch self {
            case .appStore: "the App Store"
            case .playStore: "the Play Store"
            case .web: "a web page"
            }
        }
    }

    /// The planning of one row: the request, with the notes gathered on the way.
    struct Draft {
        let line: Int
        let cells: Cells
        let app: App
        let target: String?
        var notes: [String] = []

        init(line: Int, cells: Cells, app: App, target: String?) {
            self.line = line
            self.cells = cells
            self.app = app
            self.target = target
        }

        mutating func plan(claimed: inout [String: Claim]) throws(Refusal) -> Outcome {
            let shortText = cells[.shortLink]
            guard !shortText.isEmpty else { throw Refusal(.missingShortLink, "the row has no short link") }
            let short = try ShortLink(shortText)
            if short.hasQueryOrFragment {
                notes.append("the short link's query or fragment was ignored: a Ferry link is its domain and slug")
            }
            let slug = try Self.slug(of: short)
            let domain = try domain(for: short)

            guard let deepLink = cells.value(.deepLink) else {
                throw Refusal(.missingDeepLink, "the row has no deep link (link): Ferry needs a destination")
            }
            do {
                try URLRules.validateWebURL(deepLink, field: "link")
            } catch {
                throw Refusal(.invalidDestination, "the deep link \(Self.quote(deepLink)) cannot be a destination: \(error.message)")
            }

            var destination = deepLink
            var iosURL: String?
            var androidURL: String?
            var params: [String: String] = [:]
            let desktop = cells.value(.ofl)
            if let desktop, desktop != deepLink {
                destination = desktop
                if (try? URLRules.validateAppURL(deepLink, field: "link")) != nil {
                    iosURL = deepLink
                    androidURL = deepLink
                } else {
                    notes.append("the deep link is http, which Ferry does not allow as an app URL: the app receives it in params.fdl_link only")
                }
                addParam("fdl_link", deepLink, to: &params, what: "the deep link")
            }
            if let name = cells.value(.name) {
                if addParam("fdl_name", name, to: &params, what: "the link name") {
                    notes.append("the link name is kept as params.fdl_name: Ferry links have no name")
                }
            }

            let utm = UTMParameters(
                source: cells.value(.utmSource), medium: cells.value(.utmMedium), campaign: cells.value(.utmCampaign),
                content: cells.value(.utmContent), term: cells.value(.utmTerm)
            )
            let social = SocialMetadata(title: cells.value(.st), description: cells.value(.sd), imageURL: cells.value(.si))
            var disabled: Bool?
            if let text = cells.value(.archived) {
                switch FirebaseLinkImport.boolean(text) {
                case true?: disabled = true
                case false?: break
                case nil: notes.append("Archived? value \(Self.quote(text)) is not a boolean: the link stays enabled")
                }
            }
            var createdAt: Date?
            if let text = cells.value(.created) {
                createdAt = FirebaseLinkImport.timestamp(text)
                if createdAt == nil {
                    notes.append("creation timestamp \(Self.quote(text)) was not understood: the link gets the import time")
                }
            }
            noteAppSettings()
            noteLandings(destination: destination, deepLink: deepLink)
            noteIgnoredFields()

            let request = CreateLinkRequest(
                domain: domain, slug: slug, destination: destination, iosURL: iosURL, androidURL: androidURL,
                params: params.isEmpty ? nil : params, utm: utm.isEmpty ? nil : utm, social: social.isEmpty ? nil : social,
                disabled: disabled
            )
            try check(request, destinationIsDesktop: destination != deepLink)

            let key = "\(domain)/\(slug)"
            if let earlier = claimed[key] {
                var message = "line \(earlier.line) already imports \(earlier.shortURL) as \(ShortURL.make(domain: domain, slug: slug))"
                if earlier.rawSlug != short.rawSlug {
                    message += "; Ferry slugs are case-insensitive, so '\(earlier.rawSlug)' and '\(short.rawSlug)' are the same slug"
                } else if earlier.host != short.host {
                    message += "; both hosts were put on \(domain)"
                }
                throw Refusal(.duplicateInFile, message)
            }
            claimed[key] = Claim(line: line, host: short.host, rawSlug: short.rawSlug, shortURL: cells[.shortLink])
            return .create(request, createdAt: createdAt)
        }

        /// The slug of the short link's path: one segment, or the one after `/link/`.
        static func slug(of short: ShortLink) throws(Refusal) -> String {
            let segments = short.path.split(separator: "/")
            let raw: Substring
            switch segments.count {
            case 0:
                throw Refusal(.invalidSlug, "the short link has no path: there is no slug to keep")
            case 1:
                raw = segments[0]
            case 2 where segments[0].lowercased() == "link":
                raw = segments[1]
            default:
                throw Refusal(
                    .invalidSlug,
                    "the path '\(short.path.prefix(100))' has \(segments.count) segments: a Ferry link is /{slug} (or /link/{slug}), so this URL cannot be served"
                )
            }
            if Slug.reserved.contains(raw.lowercased()) {
                throw Refusal(.reservedSlug, "the slug '\(raw.lowercased())' is reserved: Ferry serves its own routes there")
            }
            do {
                return try Slug.validateCustom(String(raw))
            } catch {
                throw Refusal(.invalidSlug, "'\(raw.prefix(100))' is not a valid Ferry slug: \(error.message)")
            }
        }

        /// The Ferry domain of the link: the target, or the app's domain the short link's host stands for.
        mutating func domain(for short: ShortLink) throws(Refusal) -> String {
            if let target { return target }
            guard let domain = app.linkDomain(forHost: short.host) ?? app.linkDomain(forHost: short.bareHost) else {
                let own = app.domains.isEmpty ? "it has none" : app.domains.joined(separator: ", ")
                throw Refusal(
                    .foreignDomain,
                    "'\(short.host)' is not one of the app's link domains (\(own)); pass --domain to put the links on one of them"
                )
            }
            if domain != short.host && domain != short.bareHost {
                notes.append("the short link's host is a subdomain of \(domain): old URLs keep working only where the subdomain points at Ferry")
            }
            return domain
        }

        /// Checks the request as the API would, naming the FDL column at fault.
        func check(_ request: CreateLinkRequest, destinationIsDesktop: Bool) throws(Refusal) {
            let context = LinkRules.Context(
                app: app, environment: .live, id: "lnk_import", generatedSlug: request.slug ?? "import",
                now: Date(timeIntervalSince1970: 0)
            )
            do {
                _ = try LinkRules.makeLink(from: request, context: context)
            } catch {
                let field = error.field ?? ""
                if field == "destination" {
                    let source = destinationIsDesktop ? "the desktop fallback link (ofl)" : "the deep link"
                    throw Refusal(.invalidDestination, "\(source) cannot be a destination: \(error.message)")
                }
                let sources: [String: String] = [
                    "iosURL": "deep link", "androidURL": "deep link", "params.fdl_link": "deep link", "params.fdl_name": "Link name",
                    "utm.source": "utm_source", "utm.medium": "utm_medium", "utm.campaign": "utm_campaign",
                    "utm.content": "utm_content", "utm.term": "utm_term",
                    "social.title": "st", "social.description": "sd", "social.imageURL": "si",
                ]
                let from = sources[field].map { " (from \($0))" } ?? ""
                throw Refusal(.invalidLink, "Ferry refuses the link: \(error.message)\(from)")
            }
        }

        /// Adds a param when Ferry's bounds allow it; otherwise notes that it was left out.
        @discardableResult
        mutating func addParam(_ name: String, _ value: String, to params: inout [String: String], what: String) -> Bool {
            guard value.unicodeScalars.count <= LinkRules.maxParamValueLength else {
                notes.append("\(what) is longer than \(LinkRules.maxParamValueLength) characters: it is not kept as params.\(name)")
                return false
            }
            guard !value.unicodeScalars.contains("\u{0}") else {
                notes.append("\(what) holds a NUL character: it is not kept as params.\(name)")
                return false
            }
            params[name] = value
            return true
        }

        /// Values of the row that Ferry keeps on the app, when they differ from the app's.
        mutating func noteAppSettings() {
            if let apn = cells.value(.apn), let own = app.android.packageName, apn != own {
                notes.append("Android package (apn) '\(apn)' is not the app's ('\(own)'): Ferry uses the app's")
            }
            for column in [Column.ibi, .ipbi] {
                guard let bundle = cells.value(column), !app.ios.bundleIDs.contains(bundle) else { continue }
                let own = app.ios.bundleIDs.isEmpty ? "it has none" : app.ios.bundleIDs.joined(separator: ", ")
                notes.append("\(column.label) '\(bundle)' is not one of the app's bundle IDs (\(own)): the app's association file decides which apps open the link")
            }
            if let isi = cells.value(.isi), isi != app.ios.appStoreID {
                let own = app.ios.appStoreID.map { "'\($0)'" } ?? "none"
                notes.append("App Store ID (isi) '\(isi)' is not the app's (\(own)): Ferry uses the app's")
            }
            if let ius = cells.value(.ius), ius.lowercased() != app.ios.urlScheme?.lowercased() {
                let own = app.ios.urlScheme.map { "'\($0)'" } ?? "none"
                notes.append("iOS custom scheme (ius) '\(ius)' is not the app's URL scheme (\(own)): Ferry's \"Open in app\" uses the app's")
            }
        }

        /// Where phones without the app went with FDL and go with Ferry, when that differs.
        mutating func noteLandings(destination: String, deepLink: String) {
            let fdlIOS: Landing = cells.value(.ifl).map { .web($0) } ?? (cells.value(.ibi) != nil ? .appStore : .web(deepLink))
            let ferryIOS: Landing = app.ios.appStoreURL != nil ? .appStore : .web(app.fallbackURL ?? destination)
            if fdlIOS != ferryIOS {
                let detail = cells.value(.ifl) != nil ? " (the iOS fallback link, ifl)" : ""
                notes.append("iPhones without the app went to \(fdlIOS.text)\(detail) with FDL; Ferry's page leads them to \(ferryIOS.text == fdlIOS.text ? "another web page" : ferryIOS.text)")
            }
            let fdlAndroid: Landing = cells.value(.afl).map { .web($0) } ?? (cells.value(.apn) != nil ? .playStore : .web(deepLink))
            let ferryAndroid: Landing = app.android.packageName != nil ? .playStore : .web(destination)
            if fdlAndroid != ferryAndroid {
                let detail = cells.value(.afl) != nil ? " (the Android fallback link, afl)" : ""
                notes.append("Android phones without the app went to \(fdlAndroid.text)\(detail) with FDL; Ferry sends them to \(ferryAndroid.text == fdlAndroid.text ? "another web page" : ferryAndroid.text)")
            }
        }

        /// Fields Ferry has no equivalent for, when the row sets them.
        mutating func noteIgnoredFields() {
            var ignored: [String] = []
            if let efr = cells.value(.efr), FirebaseLinkImport.boolean(efr) != false { ignored.append(Column.efr.label) }
            for column in [Column.amv, .imv, .ipfl, .itunesAt, .itunesCt, .itunesMt, .itunesPt] where cells.value(column) != nil {
                ignored.append(column.label)
            }
            if !ignored.isEmpty {
                notes.append("ignored, Ferry has no equivalent: \(ignored.joined(separator: ", "))")
            }
        }

        /// A value for a message, bounded.
        static func quote(_ text: String) -> String {
            text.count > 100 ? "'\(text.prefix(100))…'" : "'\(text)'"
        }
    }

    /// An FDL short link, taken apart: `https://example.page.link/m9Mm`.
    struct ShortLink {
        /// Lowercase `host[:port]`.
        var host: String
        /// The host without its port.
        var bareHost: String
        /// The path as written, from its `/`.
        var path: Substring
        var hasQueryOrFragment: Bool

        /// The path's single slug segment as written (mixed case), for messages.
        var rawSlug: String {
            let segments = path.split(separator: "/")
            return segments.last.map(String.init) ?? ""
        }

        init(_ text: String) throws(Refusal) {
            var rest = Substring(text)
            if let separator = text.range(of: "://"),
               !text[..<separator.lowerBound].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
                let scheme = text[..<separator.lowerBound].lowercased()
                guard scheme == "https" || scheme == "http" else {
                    throw Refusal(.invalidShortLink, "the short link \(Draft.quote(text)) is not an http(s) URL")
                }
                rest = text[separator.upperBound...]
            } else if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
            }
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            let afterAuthority = rest[authorityEnd...]
            let pathEnd = afterAuthority.firstIndex { $0 == "?" || $0 == "#" } ?? afterAuthority.endIndex
            path = afterAuthority[..<pathEnd]
            hasQueryOrFragment = afterAuthority[pathEnd...].count > 1
            do {
                host = try DomainName.validate(String(authority), field: "short link")
            } catch {
                throw Refusal(.invalidShortLink, "the short link \(Draft.quote(text)) has no valid host: \(error.message)")
            }
            bareHost = String(DomainName.hostPart(of: host))
        }
    }
}

// MARK: - Values

extension FirebaseLinkImport {
    /// `true`/`false`, `1`/`0`, `yes`/`no`, `y`/`n`, `on`/`off`, any case; nil for anything else.
    static func boolean(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "1", "yes", "y", "on", "t": true
        case "false", "0", "no", "n", "off", "f", "": false
        default: nil
        }
    }

    /// The instants a creation time may name: 2000-01-01T00:00:00Z up to 2100-01-01T00:00:00Z. FDL started in
    /// 2016; a value outside this range is a misreading (a bare year taken for Unix seconds, say).
    static let plausibleTimestamps: Range<TimeInterval> = 946_684_800..<4_102_444_800

    /// A creation time as FDL exports may write it: ISO 8601 (`2023-05-01T12:34:56Z`, with fractional seconds, a
    /// `±HH:MM` offset, or no zone meaning UTC), `2023-05-01 12:34:56` (UTC; a trailing `UTC` or `GMT` is allowed), a
    /// date alone (midnight UTC), or Unix time in seconds or, from 10^11 on, milliseconds. Nil when unreadable or
    /// outside 2000–2100.
    static func timestamp(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        let seconds = unixTime(trimmed) ?? calendarTime(Array(trimmed.utf8))
        guard let seconds, plausibleTimestamps.contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Digits with an optional fraction: seconds, or milliseconds from 10^11 on (10^11 seconds is year 5138).
    static func unixTime(_ text: String) -> TimeInterval? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let value = Double(text)
        else { return nil }
        return value >= 1e11 ? value / 1000 : value
    }

    /// `YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][ ][Z|±HH[:MM]|UTC|GMT]`, as seconds since 1970.
    static func calendarTime(_ bytes: [UInt8]) -> TimeInterval? {
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func take(_ character: Character) -> Bool {
            guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
            index += 1
            return true
        }
        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2),
              (1...12).contains(month), (1...StatsRange.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = TimeInterval(StatsRange.daysFromCivil(year: year, month: month, day: day)) * 86400
        if take("T") || take("t") || take(" ") {
            guard let hour = number(2), take(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
            seconds += TimeInterval(hour * 3600 + minute * 60)
            if take(":") {
                guard let second = number(2), second <= 60 else { return nil }
                seconds += TimeInterval(second)
                if take(".") || take(",") {
                    var scale = 0.1, fraction = 0.0, digits = 0
                    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                        fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                        scale /= 10
                        digits += 1
                        index += 1
                    }
                    guard digits > 0 else { return nil }
                    seconds += fraction
                }
            }
        }
        _ = take(" ")
        if index == bytes.count { return seconds }
        let zone = String(decoding: bytes[index...], as: UTF8.self).uppercased()
        if zone == "Z" || zone == "UTC" || zone == "GMT" { return seconds }
        let sign = bytes[index]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        index += 1
        guard let hours = number(2), hours < 24 else { return nil }
        var minutes = 0
        if index < bytes.count {
            _ = take(":")
            guard let value = number(2), value < 60 else { return nil }
            minutes = value
        }
        guard index == bytes.count else { return nil }
        let offset = TimeInterval(hours * 3600 + minutes * 60)
        return sign == UInt8(ascii: "+") ? seconds - offset : seconds + offset
    }
}
