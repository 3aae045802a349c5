import FerryAPI
import Foundation

/// A stored answer to an install's match request: matched or not, it is given again to the same install.
package struct AttributionRecord: Sendable, Hashable {
    /// The app.
    package var appID: String
    /// Live or test.
    package var environment: APIEnvironment
    /// The install.
    package var installID: String
    /// The click it was tied to (consumed: no other install gets it); nil when not matched.
    package var clickID: String?
    /// The link of that click.
    package var linkID: String?
    /// How it was tied.
    package var matchType: MatchType?
    /// How sure.
    package var confidence: Double?
    /// When the answer was first given.
    package var createdAt: Date
    /// The installation the answer was given to (`MatchRequest.installationID`), once one was named.
    package var installationID: String?

    /// Creates a record.
    package init(appID: String, environment: APIEnvironment, installID: String, clickID: String?, linkID: String?, matchType: MatchType?, confidence: Double?,
                 createdAt: Date, installationID: String? = nil) {
        self.installationID = installationID
        self.appID = appID
        self.environment = environment
        self.installID = installID
        self.clickID = clickID
        self.linkID = linkID
        self.matchType = matchType
        self.confidence = confidence
        self.createdAt = createdAt
    }

    /// Whether a click was found.
    package var matched: Bool { clickID != nil }
}

/// An app user bound to the attribution of the install they signed up on.
package struct UserBinding: Sendable, Hashable {
    /// Who made a binding, and so how far it is believed.
    package enum Authority: String, Sendable, Hashable {
        /// An install, with the app's publishable key: anyone holding the app can send any user id, so such a binding
        /// is provisional (a binding from the app's backend replaces it) and is shown only to the install it names.
        case device
        /// The app's backend, with a secret key: it knows which user signed in on which install. The first such
        /// binding is kept for good.
        case server
    }

    /// The app's user id.
    package var userID: String
    /// The install the user was on at the first binding.
    package var installID: String
    /// That install's attribution, copied at binding time (nil link when it was organic).
    package var attribution: AttributionRecord
    /// Who bound it.
    package var authority: Authority

    /// Creates a binding.
    package init(userID: String, installID: String, attribution: AttributionRecord, authority: Authority = .server) {
        self.userID = userID
        self.installID = installID
        self.attribution = attribution
        self.authority = authority
    }
}

/// One SDK event, as stored.
package struct EventRecord: Sendable, Hashable {
    /// The app.
    package var appID: String
    /// Live or test.
    package var environment: APIEnvironment
    /// `install`, `open`, `reinstall`, `link_open` or a custom name.
    package var name: String
    /// The install.
    package var installID: String?
    /// The link involved.
    package var linkID: String?
    /// Small properties.
    package var properties: [String: String]
    /// When it happened.
    package var occurredAt: Date
    /// When the server got it.
    package var receivedAt: Date

    /// Creates an event.
    package init(appID: String, environment: APIEnvironment, name: String, installID: String?, linkID: String?, properties: [String: String], occurredAt: Date, receivedAt: Date) {
        self.appID = appID
        self.environment = environment
        self.name = name
        self.installID = installID
        self.linkID = linkID
        self.properties = properties
        self.occurredAt = occurredAt
        self.receivedAt = receivedAt
    }
}

/// Rules for what apps and browsers send about devices, installs and events.
package enum AttributionRules {
    /// Longest install id.
    package static let maxInstallIDLength = 128
    /// Longest user id.
    package static let maxUserIDLength = 128
    /// Most events in one request.
    package static let maxEventsPerRequest = 100
    /// Most properties on one event.
    package static let maxEventProperties = 20
    /// How long a browser that led an install to the app is remembered for that install's re-installs.
    package static let browserLinkRetention: TimeInterval = 90 * 86400
    /// The names the SDK's own events use; custom names follow the same alphabet.
    package static let standardEvents: Set<String> = ["install", "open", "reinstall"]

    /// An install or user id: 1 to `max` printable ASCII characters, no spaces.
    package static func validateIdentifier(_ text: String, field: String, max: Int) throws(ValidationError) -> String {
        guard !text.isEmpty, text.utf8.count <= max, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ValidationError(field: field, "\(field) must be 1 to \(max) printable ASCII characters without spaces")
        }
        return text
    }

    /// A minimum confidence, of a match request or an app's default: a number in `MatchRequest.minConfidenceRange`.
    package static func validateMinConfidence(_ value: Double, field: String = "minConfidence") throws(ValidationError) -> Double {
        guard value.isFinite, MatchRequest.minConfidenceRange.contains(value) else {
            throw ValidationError(field: field, "\(field) must be from \(minConfidenceRangeText)")
        }
        return value
    }

    /// `MatchRequest.minConfidenceRange` as people read it: `0.4 to 1`.
    package static var minConfidenceRangeText: String {
        func text(_ bound: Double) -> String { bound == bound.rounded() ? String(Int(bound)) : String(bound) }
        return "\(text(MatchRequest.minConfidenceRange.lowerBound)) to \(text(MatchRequest.minConfidenceRange.upperBound))"
    }

    /// Checks device signals; absurd values are refused by name.
    package static func validate(_ signals: DeviceSignals, field: String = "signals") throws(ValidationError) -> DeviceSignals {
        var clean = signals
        if let platform = signals.platform {
            guard !platform.isEmpty else { throw ValidationError(field: "\(field).platform", "\(field).platform must not be empty") }
            try LinkRules.checkText(platform, field: "\(field).platform", max: 32)
            clean.platform = platform.lowercased()
        }
        if let os = signals.osVersion {
            guard (1...32).contains(os.utf8.count), os.utf8.allSatisfy({ URLRules.isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") }) else {
                throw ValidationError(field: "\(field).osVersion", "\(field).osVersion must look like 18.1")
            }
        }
        if let model = signals.model {
            guard !model.isEmpty else { throw ValidationError(field: "\(field).model", "\(field).model must not be empty") }
            try LinkRules.checkText(model, field: "\(field).model", max: 64)
        }
        for (value, name) in [(signals.screenWidth, "screenWidth"), (signals.screenHeight, "screenHeight")] {
            if let value, !(1...20_000).contains(value) {
                throw ValidationError(field: "\(field).\(name)", "\(field).\(name) must be from 1 to 20000 points")
            }
        }
        if let scale = signals.screenScale, !(scale.isFinite && scale > 0 && scale <= 10) {
            throw ValidationError(field: "\(field).screenScale", "\(field).screenScale must be above 0 and at most 10")
        }
        if let zone = signals.timeZone {
            // By shape, not by this server's time zone database: a device may know a zone the server's is too old for, and
            // zones are only ever compared with each other.
            guard let first = zone.utf8.first, URLRules.isLetter(first), zone.utf8.count <= 64, zone.utf8.allSatisfy({
                URLRules.isLetter($0) || URLRules.isDigit($0) || [UInt8(ascii: "/"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-"),
                                                                  UInt8(ascii: ":"), UInt8(ascii: ".")].contains($0)
            }) else {
                throw ValidationError(field: "\(field).timeZone", "\(field).timeZone must be an IANA time zone such as Europe/Paris")
            }
        }
        if let offset = signals.timeZoneOffsetSeconds, !(-14 * 3600...14 * 3600).contains(offset) {
            throw ValidationError(field: "\(field).timeZoneOffsetSeconds", "\(field).timeZoneOffsetSeconds must be within ±14 hours")
        }
        if let languages = signals.languages {
            guard languages.count <= 16 else { throw ValidationError(field: "\(field).languages", "\(field).languages may list at most 16 languages") }
            for language in languages {
                guard (1...35).contains(language.utf8.count),
                      language.utf8.allSatisfy({ URLRules.isLetter($0) || URLRules.isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
                else { throw ValidationError(field: "\(field).languages", "\(field).languages must be language tags such as en-US") }
            }
        }
        return clean
    }

    /// What a browser reported, with every field that breaks the rules dropped rather than refused: a page's
    /// report is best effort, and one odd value (a screen of 0 points) should not lose the rest.
    package static func sanitize(_ signals: DeviceSignals) -> DeviceSignals {
        var clean = DeviceSignals()
        func keep<T>(_ value: T?, _ apply: (inout DeviceSignals, T) -> Void) {
            guard let value else { return }
            var probe = DeviceSignals()
            apply(&probe, value)
            if (try? validate(probe)) != nil { apply(&clean, value) }
        }
        keep(signals.platform) { $0.platform = $1.lowercased() }
        keep(signals.osVersion) { $0.osVersion = $1 }
        keep(signals.model) { $0.model = $1 }
        keep(signals.screenWidth) { $0.screenWidth = $1 }
        keep(signals.screenHeight) { $0.screenHeight = $1 }
        keep(signals.screenScale) { $0.screenScale = $1 }
        keep(signals.timeZone) { $0.timeZone = $1 }
        keep(signals.timeZoneOffsetSeconds) { $0.timeZoneOffsetSeconds = $1 }
        keep(signals.languages.map { Array($0.prefix(16)) }) { $0.languages = $1 }
        return clean
    }

    /// The click id in a pasteboard token (`ferry:clk_…` or `clk_…`), when it is well-formed.
    package static func clickID(fromToken token: String) -> String? {
        let text = token.hasPrefix("ferry:") ? String(token.dropFirst(6)) : token
        return isClickID(text) ? text : nil
    }

    /// The click id carried by a Play Store install referrer (`ferry_click_id=clk_…&utm_source=…`).
    package static func clickID(fromReferrer referrer: String) -> String? {
        guard referrer.utf8.count <= 2048 else { return nil }
        // The referrer may arrive still percent-encoded once more.
        let query = QueryString(referrer)
        if let id = query.value(of: ClickRouter.referrerClickParameter), isClickID(id) { return id }
        let decoded = QueryString.decode(Substring(referrer))
        if decoded != referrer, let id = QueryString(decoded).value(of: ClickRouter.referrerClickParameter), isClickID(id) { return id }
        return nil
    }

    /// The id the interstitial keeps in the browser's storage: `fb_` and 22 letters or digits.
    package static func isBrowserID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 25, text.hasPrefix("fb_") else { return false }
        return bytes[3...].allSatisfy { URLRules.isLetter($0) || URLRules.isDigit($0) }
    }

    /// `clk_` and 22 letters or digits.
    package static func isClickID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 26, text.hasPrefix("clk_") else { return false }
        return bytes[4...].allSatisfy { URLRules.isLetter($0) || URLRules.isDigit($0) }
    }

    /// Validates a batch of SDK events into records.
    package static func events(_ request: EventsRequest, appID: String, environment: APIEnvironment, now: Date) throws(ValidationError) -> [EventRecord] {
        guard !request.events.isEmpty else { throw ValidationError(field: "events", "events must hold at least one event") }
        guard request.events.count <= maxEventsPerRequest else {
            throw ValidationError(field: "events", "events may hold at most \(maxEventsPerRequest) events")
        }
        var records: [EventRecord] = []
        for (index, event) in request.events.enumerated() {
            let field = "events[\(index)]"
            guard (1...64).contains(event.name.utf8.count), event.name.utf8.allSatisfy({
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || URLRules.isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
            }) else {
                throw ValidationError(field: "\(field).name", "event names must be 1 to 64 characters of a-z, 0-9, '_', '.', '-'")
            }
            let installID = try validateIdentifier(event.installID, field: "\(field).installID", max: maxInstallIDLength)
            if let linkID = event.linkID { _ = try validateIdentifier(linkID, field: "\(field).linkID", max: 64) }
            let properties = event.properties ?? [:]
            if properties.count > maxEventProperties {
                throw ValidationError(field: "\(field).properties", "an event may have at most \(maxEventProperties) properties")
            }
            for (key, value) in properties {
                guard !key.isEmpty else { throw ValidationError(field: "\(field).properties", "property names must not be empty") }
                try LinkRules.checkText(key, field: "\(field).properties", max: 64)
                try LinkRules.checkText(value, field: "\(field).properties.\(key.prefix(64))", max: 256)
            }
            // A device's clock may be wrong either way; a time ahead of the server's is taken as the server's.
            let occurred = min(event.timestamp ?? now, now)
            records.append(EventRecord(appID: appID, environment: environment, name: event.name, installID: installID, linkID: event.linkID,
                                       properties: properties, occurredAt: occurred, receivedAt: now))
        }
        return records
    }
}
