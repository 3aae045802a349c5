#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import ArgumentParser
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import Foundation

extension APIKeyKind: ExpressibleByArgument {}
extension APIEnvironment: ExpressibleByArgument {}
extension AttributionSettings.Model: ExpressibleByArgument {}

/// `--min-confidence`: a number (checked with the app's other settings), or `default` for the matcher's own threshold.
struct MinConfidenceArgument: ExpressibleByArgument {
    /// nil for `default`.
    var value: Double?

    init?(argument: String) {
        if argument.lowercased() == "default" {
            value = nil
        } else if let number = Double(argument) {
            value = number
        } else {
            return nil
        }
    }

    static let help = ArgumentHelp("The least confidence (\(AttributionRules.minConfidenceRangeText)) a probabilistic match must state when "
        + "the match request names none; 1 gives deterministic matches only; 'default' restores the matcher's own threshold.")
}

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "app", abstract: "Manage apps.", subcommands: [Create.self, Update.self, List.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app; prints only its id.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "A name for people.") var name: String
        @Option(name: .customLong("domain"), help: "A link domain (host[:port]); repeatable, first is the default.") var domains: [String]
        @Option(name: .customLong("bundle-id"), help: "iOS bundle id; repeatable.") var bundleIDs: [String] = []
        @Option(name: .customLong("team-id"), help: "Apple developer team id.") var teamID: String?
        @Option(name: .customLong("app-store-id"), help: "Numeric App Store id.") var appStoreID: String?
        @Option(name: .customLong("url-scheme"), help: "The app's custom URL scheme.") var urlScheme: String?
        @Option(name: .customLong("android-package"), help: "Android application id.") var androidPackage: String?
        @Option(name: .customLong("android-sha256"), help: "SHA-256 signing certificate fingerprint; repeatable.") var androidFingerprints: [String] = []
        @Option(name: .customLong("fallback-url"), help: "Web page for the domain root and store-less visitors.") var fallbackURL: String?
        @Option(help: "Default preview title.") var title: String?
        @Option(help: "Default preview description.") var description: String?
        @Option(name: .customLong("image-url"), help: "Default preview image URL.") var imageURL: String?
        @Option(name: .customLong("attribution-window"), help: "Hours after a click an install may be attributed to it (1 to 168).")
        var attributionWindowHours: Double = 24
        @Flag(name: .customLong("copy-to-open"), help: "Offer 'copy and open' on the iOS interstitial (a click token on the pasteboard).")
        var copyToOpen = false
        @Option(name: .customLong("min-confidence"), help: MinConfidenceArgument.help) var minConfidence: MinConfidenceArgument?
        @Option(name: .customLong("attribution-model"), help: AppCommand.attributionModelHelp)
        var attributionModel: AttributionSettings.Model = .fixed

        func run() async throws {
            try await runReportingErrors {
                let admin = FerryAdmin(store: try await database.open())
                var spec = FerryAdmin.AppSpec(name: name, domains: domains)
                spec.attribution = AttributionSettings(window: attributionWindowHours * 3600, copyToOpen: copyToOpen, minConfidence: minConfidence?.value,
                                                       model: attributionModel)
                spec.bundleIDs = bundleIDs
                spec.teamID = teamID
                spec.appStoreID = appStoreID
                spec.urlScheme = urlScheme
                spec.androidPackage = androidPackage
                spec.androidFingerprints = androidFingerprints
                spec.fallbackURL = fallbackURL
                spec.social = SocialMetadata(title: title, description: description, imageURL: imageURL)
                let app = try await admin.createApp(spec, by: .thisCommand)
                print(app.id)
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change an app's settings; options left out keep their value. A running server sees the change within a second.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The app's id.") var id: String
        @Option(help: "A new name.") var name: String?
        @Option(name: [.customLong("add-domain"), .customLong("domain")], help: "Add a link domain (no proof of control is asked of the operator); repeatable.")
        var addDomains: [String] = []
        @Option(name: .customLong("remove-domain"), help: "Remove a link domain; repeatable.") var removeDomains: [String] = []
        @Option(name: .customLong("bundle-id"), help: "iOS bundle id; repeatable; replaces the list.") var bundleIDs: [String] = []
        @Option(name: .customLong("team-id"), help: "Apple developer team id.") var teamID: String?
        @Option(name: .customLong("app-store-id"), help: "Numeric App Store id.") var appStoreID: String?
        @Option(name: .customLong("url-scheme"), help: "The app's custom URL scheme.") var urlScheme: String?
        @Option(name: .customLong("android-package"), help: "Android application id.") var androidPackage: String?
        @Option(name: .customLong("android-sha256"), help: "Signing certificate fingerprint; repeatable; replaces the list.") var androidFingerprints: [String] = []
        @Option(name: .customLong("fallback-url"), help: "Web page for the domain root and store-less visitors.") var fallbackURL: String?
        @Option(help: "Default preview title.") var title: String?
        @Option(help: "Default preview description.") var description: String?
        @Option(name: .customLong("image-url"), help: "Default preview image URL.") var imageURL: String?
        @Option(name: .customLong("attribution-window"), help: "Hours after a click an install may be attributed to it (1 to 168).")
        var attributionWindowHours: Double?
        @Option(name: .customLong("copy-to-open"), help: "on or off: offer 'copy and open' on the iOS interstitial.")
        var copyToOpen: Toggle?
        @Option(name: .customLong("min-confidence"), help: MinConfidenceArgument.help) var minConfidence: MinConfidenceArgument?
        @Option(name: .customLong("attribution-model"), help: AppCommand.attributionModelHelp)
        var attributionModel: AttributionSettings.Model?
        @Option(
            name: .customLong("allow-url-pattern"),
            help: "A regular expression long links' deep links and fallbacks must match in whole; repeatable; replaces the list."
        )
        var allowedURLPatterns: [String] = []
        @Flag(name: .customLong("clear-url-patterns"), help: "Remove every URL pattern: long links may then lead only to the app's own hosts.")
        var clearURLPatterns = false
        @Option(
            name: .customLong("client-links"),
            help: "on or off: let the app's publishable key create share links on the device, within the URL patterns (--allow-url-pattern)."
        )
        var clientLinks: Toggle?
        @Option(name: .customLong("path-prefix"),
                help: "DOMAIN=PREFIX: serve the domain's links under a path prefix (example.com=/links: https://example.com/links/{slug}); repeatable.")
        var pathPrefixes: [String] = []
        @Option(name: .customLong("remove-path-prefix"), help: "DOMAIN: serve the domain's links at /{slug} again; repeatable.")
        var removePathPrefixes: [String] = []

        enum Toggle: String, ExpressibleByArgument { case on, off }

        /// `--path-prefix` values as domain → prefix (the domain in its canonical form; the prefix is checked with the app).
        func prefixes() throws(FerryCore.ValidationError) -> [String: String] {
            var prefixes: [String: String] = [:]
            for text in pathPrefixes {
                guard let equals = text.firstIndex(of: "=") else {
                    throw FerryCore.ValidationError(field: "pathPrefix", "--path-prefix takes DOMAIN=PREFIX, such as example.com=/links")
                }
                prefixes[try DomainName.validate(String(text[..<equals]), field: "pathPrefix")] = String(text[text.index(after: equals)...])
            }
            return prefixes
        }

        func run() async throws {
            try await runReportingErrors {
                let admin = FerryAdmin(store: try await database.open())
                let removed = Set(try removeDomains.map { d throws(FerryCore.ValidationError) in try DomainName.validate(d) })
                let prefixes = try prefixes()
                let unprefixed = try removePathPrefixes.map { d throws(FerryCore.ValidationError) in try DomainName.validate(d, field: "pathPrefix") }
                let app = try await admin.updateApp(id: id, by: .thisCommand) { spec in
                    if let name { spec.name = name }
                    spec.domains = spec.domains.filter { !removed.contains($0) } + addDomains
                    for domain in unprefixed { spec.pathPrefixes[domain] = nil }
                    spec.pathPrefixes.merge(prefixes) { $1 }
                    if !bundleIDs.isEmpty { spec.bundleIDs = bundleIDs }
                    if let teamID { spec.teamID = teamID }
                    if let appStoreID { spec.appStoreID = appStoreID }
                    if let urlScheme { spec.urlScheme = urlScheme }
                    if let androidPackage { spec.androidPackage = androidPackage }
                    if !androidFingerprints.isEmpty { spec.androidFingerprints = androidFingerprints }
                    if let fallbackURL { spec.fallbackURL = fallbackURL }
                    if let title { spec.social.title = title }
                    if let description { spec.social.description = description }
                    if let imageURL { spec.social.imageURL = imageURL }
                    if let attributionWindowHours { spec.attribution.window = attributionWindowHours * 3600 }
                    if let copyToOpen { spec.attribution.copyToOpen = copyToOpen == .on }
                    if let minConfidence { spec.attribution.minConfidence = minConfidence.value }
                    if let attributionModel { spec.attribution.model = attributionModel }
                    if clearURLPatterns { spec.allowedURLPatterns = [] }
                    if !allowedURLPatterns.isEmpty { spec.allowedURLPatterns = allowedURLPatterns }
                    if let clientLinks { spec.clientLinks = clientLinks == .on }
                }
                print("\(app.id)\t\(app.name)\t\(app.domains.joined(separator: ","))")
            }
        }
    }

    static var attributionModelHelp: ArgumentHelp { """
        fixed or learned: answer probabilistic matches with the model every app shares (fixed), or with one learnt from \
        this app's own installs (learned: anonymised observations are kept, and the model refitted every 6 hours).
        """ }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List apps: id, name, domains.")
        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await runReportingErrors {
                for app in try await FerryAdmin(store: try await database.open()).listApps() {
                    print("\(app.id)\t\(app.name)\t\(app.domains.joined(separator: ","))")
                }
            }
        }
    }
}

struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "key", abstract: "Manage API keys.", subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key; prints only the key, which is not shown again.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The app's id.") var app: String
        @Option(help: "secret (server-side) or publishable (in apps).") var kind: APIKeyKind
        @Option(name: .customLong("env"), help: "live or test.") var environment: APIEnvironment = .live
        @Option(name: .customLong("scope"), help: ArgumentHelp(
            "Limit a secret key to a scope (repeat, or separate with commas): \(APIKeyScope.allCases.map(\.rawValue).joined(separator: ", ")). Without it, the key may do everything.",
            valueName: "scope"))
        var scopes: [String] = []

        func run() async throws {
            try await runReportingErrors {
                var limited: Set<APIKeyScope>?
                if !scopes.isEmpty {
                    do {
                        limited = try APIKeyScope.parseList(scopes.joined(separator: ","))
                    } catch let error as APIKeyScope.ScopeListError {
                        throw FerryCore.ValidationError(field: "scope", error.description)
                    }
                }
                let created = try await FerryAdmin(store: try await database.open()).createKey(appID: app, kind: kind, environment: environment,
                                                                                               scopes: limited, by: .thisCommand)
                print(created.key)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's keys: id, kind, environment, hint, state, scopes.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The app's id.") var app: String

        func run() async throws {
            try await runReportingErrors {
                for key in try await FerryAdmin(store: try await database.open()).keys(appID: app) {
                    let scopes = key.scopes.map { APIKeyScope.text($0).replacingOccurrences(of: " ", with: ",") } ?? (key.kind == .secret ? "all" : "-")
                    print("\(key.id)\t\(key.kind.rawValue)\t\(key.environment.rawValue)\t\(key.hint)\t\(key.revokedAt == nil ? "active" : "revoked")\t\(scopes)")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key by id; it stops working at once.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The key's id (key_…).") var id: String

        func run() async throws {
            try await runReportingErrors {
                guard try await FerryAdmin(store: try await database.open()).revokeKey(id: id, by: .thisCommand) else {
                    throw FerryCore.ValidationError(code: .notFound, field: "id", "no active key with id '\(id)'")
                }
            }
        }
    }
}

/// The per-link routing options of `ferry link create`, named after the Firebase Dynamic Links parameters they stand
/// for.
struct RoutingOptions: ParsableArguments {
    @Option(name: .customLong("ios-fallback-url"), help: "Where iPhones without the app go instead of the App Store (ifl).")
    var iosFallbackURL: String?
    @Option(name: .customLong("ipad-fallback-url"), help: "Where iPads without the app go (ipfl).") var ipadFallbackURL: String?
    @Option(name: .customLong("ipad-bundle-id"), help: "The bundle id that opens the link on iPads (ipbi).") var ipadBundleID: String?
    @Option(name: .customLong("app-store-id"), help: "The App Store id to install (isi).") var appStoreID: String?
    @Option(name: .customLong("ios-min-version"), help: "The lowest iOS app version that can open the link (imv).")
    var iosMinimumVersion: String?
    @Option(name: .customLong("android-fallback-url"), help: "Where Android phones without the app go instead of the Play Store (afl).")
    var androidFallbackURL: String?
    @Option(name: .customLong("android-min-version-code"), help: "The lowest Android version code that can open the link (amv).")
    var androidMinimumVersionCode: Int?
    @Option(name: .customLong("other-fallback-url"), help: "Where desktops and other platforms go instead of the destination (ofl).")
    var otherPlatformFallbackURL: String?
    @Flag(name: .customLong("skip-preview-page"), help: "No preview page for bots, no page before the App Store (efr=1).")
    var skipPreviewPage = false

    /// The options as the API's routing object.
    var routing: LinkRouting {
        LinkRouting(
            iosFallbackURL: iosFallbackURL, ipadFallbackURL: ipadFallbackURL, ipadBundleID: ipadBundleID, appStoreID: appStoreID,
            iosMinimumVersion: iosMinimumVersion, androidFallbackURL: androidFallbackURL,
            androidMinimumVersionCode: androidMinimumVersionCode, otherPlatformFallbackURL: otherPlatformFallbackURL,
            skipPreviewPage: skipPreviewPage ? true : nil
        )
    }
}

struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "link", abstract: "Manage links.", subcommands: [Create.self, List.self, Purge.self])

    static func app(_ id: String?, admin: FerryAdmin) async throws -> App {
        if let id {
            guard let app = try await admin.app(id: id) else { throw FerryCore.ValidationError(code: .notFound, field: "app", "no app with id '\(id)'") }
            return app
        }
        guard let app = try await admin.soleApp() else { throw FerryCore.ValidationError(field: "app", "there is more than one app (or none): pass --app") }
        return app
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a link; prints its short URL (or the whole link with --json).")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The app's id (optional when there is one app).") var app: String?
        @Option(name: .customLong("env"), help: "live or test.") var environment: APIEnvironment = .live
        @Option(help: "Web destination (http/https).") var destination: String
        @Option(help: "Custom slug.") var slug: String?
        @Option(help: "Link domain (default: the app's first).") var domain: String?
        @Option(name: .customLong("ios-url"), help: "iOS deep link.") var iosURL: String?
        @Option(name: .customLong("android-url"), help: "Android deep link.") var androidURL: String?
        @Option(name: .customLong("param"), help: "key=value for the app; repeatable.") var params: [String] = []
        @Option(name: .customLong("utm-source")) var utmSource: String?
        @Option(name: .customLong("utm-medium")) var utmMedium: String?
        @Option(name: .customLong("utm-campaign")) var utmCampaign: String?
        @Option(help: "Campaign name.") var campaign: String?
        @Option(help: "Who shared it.") var referrer: String?
        @Option(help: "Preview title.") var title: String?
        @Option(help: "Preview description.") var description: String?
        @Option(name: .customLong("image-url"), help: "Preview image URL.") var imageURL: String?
        @OptionGroup(title: "Routing (each overrides the app's setting for this link)") var routing: RoutingOptions
        @Flag(help: "Print the link as JSON.") var json = false

        func run() async throws {
            try await runReportingErrors {
                let admin = FerryAdmin(store: try await database.open())
                let app = try await LinkCommand.app(self.app, admin: admin)
                var parsed: [String: String] = [:]
                for pair in params {
                    guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else { throw FerryCore.ValidationError(field: "params", "--param must be key=value") }
                    parsed[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
                }
                let utm = UTMParameters(source: utmSource, medium: utmMedium, campaign: utmCampaign)
                let social = SocialMetadata(title: title, description: description, imageURL: imageURL)
                let request = CreateLinkRequest(
                    domain: domain, slug: slug, destination: destination, iosURL: iosURL, androidURL: androidURL,
                    params: parsed.isEmpty ? nil : parsed, utm: utm.isEmpty ? nil : utm, campaign: campaign, referrer: referrer,
                    social: social.isEmpty ? nil : social, routing: routing.routing.isEmpty ? nil : routing.routing
                )
                let link = try await LinkEditor(admin: admin).create(request, app: app, environment: environment, by: .thisCommand)
                if json {
                    print(String(decoding: try FerryJSON.makeEncoder().encode(link.response(in: app)), as: UTF8.self))
                } else {
                    print(link.shortURL(in: app))
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List links, newest first: id, short URL, destination.")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The app's id (optional when there is one app).") var app: String?
        @Option(name: .customLong("env"), help: "live or test.") var environment: APIEnvironment = .live
        @Option(help: "How many at most.") var limit: Int = 100
        @Flag(name: .customLong("created-in-app"), help: "Only the share links installs of the app made with its publishable key.")
        var createdInApp = false
        @Flag(help: "Print JSON lines.") var json = false

        func run() async throws {
            try await runReportingErrors {
                let admin = FerryAdmin(store: try await database.open())
                let app = try await LinkCommand.app(self.app, admin: admin)
                var cursor: Int64?
                var remaining = max(0, limit)
                let encoder = FerryJSON.makeEncoder()
                while remaining > 0 {
                    let page = try await LinkEditor(admin: admin).page(app: app, environment: environment, filter: LinkFilter(createdInApp: createdInApp ? true : nil),
                                                                       limit: min(100, remaining), after: cursor)
                    for link in page.links {
                        if json {
                            print(String(decoding: try encoder.encode(link.response(in: app)), as: UTF8.self))
                        } else {
                            print("\(link.id)\t\(link.shortURL(in: app))\t\(link.destination)")
                        }
                    }
                    remaining -= page.links.count
                    guard let next = page.nextCursor else { break }
                    cursor = next
                }
            }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the share links installs of an app made with its publishable key; prints how many.",
            discussion: "Links made any other way are never deleted here. A running server stops answering them within a second."
        )
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The app's id (optional when there is one app).") var app: String?
        @Option(name: .customLong("env"), help: "live or test.") var environment: APIEnvironment = .live
        @Flag(name: .customLong("created-in-app"), help: "Required: what is deleted is the links made in the app.") var createdInApp = false
        @Option(help: "Only those made before this instant (2026-01-31T00:00:00Z).") var before: String?

        func run() async throws {
            try await runReportingErrors {
                guard createdInApp else {
                    throw FerryCore.ValidationError(field: "created-in-app", "purge deletes only the links made in the app: add --created-in-app")
                }
                let admin = FerryAdmin(store: try await database.open())
                var cutoff = admin.now()
                if let before {
                    guard let date = FerryJSON.parseDate(before) else {
                        throw FerryCore.ValidationError(field: "before", "--before must be a date and time such as 2026-01-31T00:00:00Z")
                    }
                    cutoff = min(cutoff, date)
                }
                let app = try await LinkCommand.app(self.app, admin: admin)
                print(try await LinkEditor(admin: admin).deleteCreatedInApp(app: app, environment: environment, before: cutoff, by: .thisCommand))
            }
        }
    }
}
#endif
