import FerryAPI
import Foundation

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
            let (slug, rawSlug) = try slug(of: short)
            let domain = try domain(for: short)

            guard let deepLink = cells.value(.deepLink) else {
                throw Refusal(.missingDeepLink, "the row has no deep link (link): Ferry needs a destination")
            }
            do {
                try URLRules.validateWebURL(deepLink, field: "link")
            } catch {
                throw Refusal(.invalidDestination, "the deep link \(Self.quote(deepLink)) cannot be a destination: \(error.message)")
            }

            var params: [String: String] = [:]
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
            let routing = routing(deepLink: deepLink)
            noteAppSettings()
            noteLandings(routing, deepLink: deepLink)

            let request = CreateLinkRequest(
                domain: domain, slug: slug, destination: deepLink, params: params.isEmpty ? nil : params,
                utm: utm.isEmpty ? nil : utm, social: social.isEmpty ? nil : social, disabled: disabled,
                routing: routing.isEmpty ? nil : routing
            )
            try check(request)

            let key = "\(domain)/\(slug)"
            if let earlier = claimed[key] {
                let url = ShortURL.make(domain: domain, slug: slug, prefix: app.pathPrefixes[domain])
                var message = "line \(earlier.line) already imports \(earlier.shortURL) as \(url)"
                if earlier.rawSlug != rawSlug {
                    message += "; Ferry slugs are case-insensitive, so '\(earlier.rawSlug)' and '\(rawSlug)' are the same slug"
                } else if earlier.host != short.host {
                    message += "; both hosts were put on \(domain)"
                }
                throw Refusal(.duplicateInFile, message)
            }
            claimed[key] = Claim(line: line, host: short.host, rawSlug: rawSlug, shortURL: cells[.shortLink])
            return .create(request, createdAt: createdAt)
        }

        /// The slug of the short link's path (and the slug as written, for messages), as Ferry reads such a path on
        /// the short link's host (`LinkPath`): under the path prefix of the app's domain the host stands for, when it
        /// has one; one to four segments, after `/link/` or not.
        func slug(of short: ShortLink) throws(Refusal) -> (slug: String, raw: String) {
            var path = short.path
            if let prefix = app.pathPrefix(forHost: short.host) ?? app.pathPrefix(forHost: short.bareHost) {
                let lower = path.lowercased()
                if lower == prefix || lower == prefix + "/" {
                    throw Refusal(.invalidSlug, "the short link is the path prefix '\(prefix)' of its domain: there is no slug to keep")
                }
                guard lower.hasPrefix(prefix + "/") else {
                    throw Refusal(
                        .outsidePathPrefix,
                        "the path '\(short.path.prefix(100))' is outside the path prefix '\(prefix)' of its domain: Ferry serves that domain's links at \(prefix)/{slug} only"
                    )
                }
                path = path.dropFirst(prefix.count)
            }
            var segments = path.split(separator: "/")
            if segments.count > 1, segments[0].lowercased() == "link" { segments.removeFirst() }
            guard !segments.isEmpty else { throw Refusal(.invalidSlug, "the short link has no path: there is no slug to keep") }
            guard segments.count <= Slug.maxSegments else {
                throw Refusal(
                    .invalidSlug,
                    "the path '\(short.path.prefix(100))' has \(segments.count) segments: a Ferry slug has at most \(Slug.maxSegments) (/{slug} or /link/{slug}), so this URL cannot be served"
                )
            }
            let raw = segments.joined(separator: "/")
            let first = segments[0].lowercased()
            if Slug.reserved.contains(first) {
                let what = segments.count == 1 ? "the slug" : "the slug's first segment"
                throw Refusal(.reservedSlug, "\(what) '\(first)' is reserved: Ferry serves its own routes there")
            }
            do {
                return (try Slug.validateCustom(raw), raw)
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
        func check(_ request: CreateLinkRequest) throws(Refusal) {
            let context = LinkRules.Context(
                app: app, environment: .live, id: "lnk_import", generatedSlug: request.slug ?? "import",
                now: Date(timeIntervalSince1970: 0)
            )
            do {
                _ = try LinkRules.makeLink(from: request, context: context)
            } catch {
                let field = error.field ?? ""
                if field == "destination" {
                    throw Refusal(.invalidDestination, "the deep link cannot be a destination: \(error.message)")
                }
                if field == "routing.otherPlatformFallbackURL" {
                    throw Refusal(.invalidDestination, "the desktop fallback link (ofl) cannot be a destination: \(error.message)")
                }
                let from = Self.sources[field].map { " (from \($0.code))" } ?? ""
                throw Refusal(.invalidLink, "Ferry refuses the link: \(error.message)\(from)")
            }
        }

        /// The column each field of a request comes from, by the field name Ferry's rules report.
        static let sources: [String: Column] = [
            "params.fdl_name": .name, "utm.source": .utmSource, "utm.medium": .utmMedium, "utm.campaign": .utmCampaign,
            "utm.content": .utmContent, "utm.term": .utmTerm, "social.title": .st, "social.description": .sd, "social.imageURL": .si,
            "routing.iosFallbackURL": .ifl, "routing.ipadFallbackURL": .ipfl, "routing.ipadBundleID": .ipbi,
            "routing.appStoreID": .isi, "routing.iosMinimumVersion": .imv, "routing.androidFallbackURL": .afl,
            "routing.androidMinimumVersionCode": .amv,
            "routing.appStoreAnalytics.affiliateToken": .itunesAt, "routing.appStoreAnalytics.campaignToken": .itunesCt,
            "routing.appStoreAnalytics.mediaType": .itunesMt, "routing.appStoreAnalytics.providerToken": .itunesPt,
        ]

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

        /// A value for a message, bounded, its control characters escaped.
        static func quote(_ text: String) -> String {
            "'\(FirebaseLinkImport.printable(text.count > 100 ? "\(text.prefix(100))…" : text))'"
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
