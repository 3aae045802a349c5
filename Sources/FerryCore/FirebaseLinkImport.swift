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
/// Ferry's click router follows a link's ``LinkRouting`` field by field over the app's settings, so each FDL
/// parameter goes to the field that does what it did; what still differs from FDL is noted on the row.
///
/// - **Domain and slug** come from the short link: `https://example.page.link/m9Mm` → `example.page.link`, `m9mm`.
///   With ``Options/domain`` every link goes on that domain (a `page.link` host stays with Google); without it, the
///   host must stand for one of the app's domains (``App/linkDomain(forHost:)``: the domain itself, with a port,
///   or a subdomain of it), else the row is skipped as `foreign_domain`. The slug is the path, read as Ferry reads
///   paths on that host (``LinkPath``): one to four segments (`/promo/spring-26` → `promo/spring-26`), after
///   `/link/` or not; when the host stands for an app domain with a path prefix (`/links`), the path under it
///   (`/links/promo` → `promo`), and a path outside the prefix is skipped as `outside_path_prefix` (Ferry serves
///   that domain's links under the prefix only). The slug is checked with ``Slug/validateCustom(_:field:)`` and
///   stored lowercase; the short URL Ferry gives the link has the prefix again. Ferry slugs are case-insensitive, so the old mixed-case URL still opens the link; two FDL links that
///   differ only in case are one Ferry link, and the second is skipped as `duplicate_in_file`. The short link's
///   query and fragment, if any, are ignored (with a note).
/// - **Deep link (`link`)** is required and must be an http(s) URL Ferry accepts (FDL's own rule). It becomes the
///   `destination`: what the app receives, and where desktops go when the row has no `ofl`.
/// - **Desktop fallback (`ofl`)** → `routing.otherPlatformFallbackURL`, when it differs from the deep link: desktops
///   go there, the app still receives the deep link. It is where desktops land, so a bad one is
///   `invalid_destination`, like a bad deep link.
/// - **`ifl`, `ipfl`, `afl`** → `routing.iosFallbackURL`, `ipadFallbackURL`, `androidFallbackURL`: where iPhones,
///   iPads and Android phones without the app go instead of the store.
/// - **`ibi`, `apn`** name the app FDL opened; in Ferry they are app settings (bundle IDs, Android package), and a
///   note tells when a row names other values than the app's. A row that leaves `ibi` empty never sent iPhones to
///   the app or the App Store: FDL opened `ifl` or else the deep link, so `routing.iosFallbackURL` is `ifl ?? link`;
///   likewise an empty `apn` makes `routing.androidFallbackURL` `afl ?? link`. A file without the column says
///   nothing about it, and nothing is set.
/// - **`ipbi`** → `routing.ipadBundleID`. **`isi`** → `routing.appStoreID` (digits) when it is not the app's App
///   Store ID; the app's own ID sets nothing.
/// - **`imv`** → `routing.iosMinimumVersion`; **`amv`** → `routing.androidMinimumVersionCode`, a whole number (any
///   other value is noted and left out).
/// - **`efr`** true (`1`, `true`, any spelling ``boolean(_:)`` reads) → `routing.skipPreviewPage: true`; false sets
///   nothing; anything else is noted.
/// - **iTunes Connect `at`, `ct`, `mt`, `pt`** → `routing.appStoreAnalytics` (`affiliateToken`, `campaignToken`,
///   `mediaType`, `providerToken`).
/// - **`ius`** is the app's URL scheme in Ferry: a note tells when a row names another. It does not become `iosURL`:
///   Ferry's `iosURL` is a whole deep link, and the app's scheme already serves "Open in app" when the link has none.
/// - **`st`, `sd`, `si`** → `social` (title, description, image URL).
/// - **`utm_*`** → `utm`, which Ferry adds to the web destination and to the Play Store referrer as FDL did.
/// - **Archived** (`true`/`false`, `1`/`0`, `yes`/`no`, any case) → `disabled: true`: the link answers 404.
/// - **Link name** → `params["fdl_name"]`: Ferry links have no name field, and `campaign` groups statistics, which
///   a per-link label would defeat. Noted on the row.
/// - **Creation timestamp** → `createdAt` (ISO 8601 with or without fractional seconds and zone, `YYYY-MM-DD
///   HH:MM:SS`, both UTC without a zone, or Unix seconds or milliseconds); unreadable: nil, so the link gets the
///   import time, with a note.
///
/// Where visitors without the app still land elsewhere than FDL sent them, a note says so: a row naming the app
/// (`ibi`, `apn`, `ipbi`) when the app in Ferry has no App Store ID or Android package, or an iPad bundle ID on a
/// row without `ibi` (iPads without their own fallback follow the iPhones' one).
///
/// Each request is then checked with ``LinkRules/makeLink(from:context:)``, so what the API would refuse is a
/// skip with Ferry's message (`invalid_destination` for the deep link and `ofl`, `invalid_link` naming the column
/// for anything else, as in `(from ifl)`), never a failure later. Notes are sentences without the row's URLs, with
/// the values they quote bounded and their control characters escaped, so that a caller can count identical ones
/// and print them safely.
package struct FirebaseLinkImport: Sendable {
    /// How to import.
    package struct Options: Sendable, Hashable {
        /// Put every link on this Ferry domain, one of the app's (FDL `page.link` domains belong to Google and cannot
        /// move to Ferry). Nil keeps each short link's host, which must then be one of the app's domains.
        package var domain: String?

        /// Creates options.
        package init(domain: String? = nil) {
            self.domain = domain
        }
    }

    /// What becomes of a row.
    package enum Outcome: Sendable, Hashable {
        /// Create this link; `createdAt` is the FDL creation time when the file gave a readable one.
        case create(CreateLinkRequest, createdAt: Date?)
        /// Create nothing, for this reason.
        case skip(reason: SkipReason)
    }

    /// One data row of the file and its outcome.
    package struct Row: Sendable, Hashable {
        /// The line of the file the row starts on (lines inside quoted fields counted; blank lines, which the CSV
        /// reader drops, not counted).
        package let line: Int
        /// The short link as the file has it (trimmed), possibly empty.
        package let shortLink: String
        /// The link to create or the reason for the skip.
        package let outcome: Outcome
        /// What did not carry over or differs from FDL: fields ignored, values that differ from the app's settings,
        /// visitors sent elsewhere than FDL sent them. Empty for a faithful import, and for a skipped row (its reason
        /// says it all).
        package let notes: [String]

        /// The request to send, when the row creates a link.
        package var request: CreateLinkRequest? {
            if case .create(let request, _) = outcome { return request }
            return nil
        }

        /// The FDL creation time, when the row creates a link and the file gave a readable one.
        package var createdAt: Date? {
            if case .create(_, let createdAt) = outcome { return createdAt }
            return nil
        }

        /// The reason, when the row is skipped.
        package var skipReason: SkipReason? {
            if case .skip(let reason) = outcome { return reason }
            return nil
        }
    }

    /// Why a row creates no link.
    package struct SkipReason: Sendable, Hashable, CustomStringConvertible {
        /// A stable code.
        package enum Code: String, Sendable, Hashable, CaseIterable {
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
            /// The short link's host stands for a domain of the app with a path prefix, and the path is not under it.
            case outsidePathPrefix = "outside_path_prefix"
            /// The slug is a word Ferry keeps for its own routes.
            case reservedSlug = "reserved_slug"
            /// The deep link or the desktop fallback (`ofl`) is not a web URL Ferry accepts.
            case invalidDestination = "invalid_destination"
            /// An earlier row of the file already creates the same domain and slug.
            case duplicateInFile = "duplicate_in_file"
            /// Ferry's link rules refuse another field.
            case invalidLink = "invalid_link"
        }

        /// The code.
        package var code: Code
        /// A sentence for people.
        package var message: String

        /// Creates a reason.
        package init(_ code: Code, _ message: String) {
            self.code = code
            self.message = message
        }

        package var description: String { "\(code.rawValue): \(message)" }

        /// The longest message, in characters: messages quote values from the file, which may be huge.
        static let maxMessageLength = 500

        /// The reason with its message bounded and its control characters escaped, whatever value it quotes.
        var printable: SkipReason {
            let bounded = message.count > Self.maxMessageLength ? "\(message.prefix(Self.maxMessageLength))…" : message
            return SkipReason(code, FirebaseLinkImport.printable(bounded))
        }
    }

    /// A file (or options) that cannot be imported at all.
    package struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
        /// A stable code.
        package enum Code: String, Sendable, Hashable {
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
        package var code: Code
        /// The line at fault, when there is one.
        package var line: Int?
        /// A sentence for people.
        package var message: String

        /// Creates an error.
        package init(_ code: Code, line: Int? = nil, _ message: String) {
            self.code = code
            self.line = line
            self.message = message
        }

        package var description: String { message }
    }

    /// The rows of an FDL export, in file order, for `app`.
    /// - Throws: ``ImportError`` when the text is not CSV, has no usable header, or the options name a domain
    ///   that is not the app's.
    package static func rows(csv text: String, app: App, options: Options = Options()) throws(ImportError) -> [Row] {
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
                rows.append(Row(line: start, shortLink: cells[.shortLink], outcome: .skip(reason: error.reason.printable), notes: []))
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
