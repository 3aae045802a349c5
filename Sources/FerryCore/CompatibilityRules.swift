import FerryAPI
import Foundation

/// The pure part of the routes that answer apps written for other deep-linking platforms: turning what their SDKs
/// send into Ferry's terms (device signals, an app URL), and checking their request bodies.
package enum CompatibilityRules {
    /// The app URL with the query of the URL the app was opened with carried over, as the dynamic-link lookup answers
    /// it: `abc123://test` and `https://abc123.example.com/link/test?campaign=summer&source=email` give
    /// `abc123://test?campaign=summer&source=email`. The query is carried as it was encoded; a fragment of the app
    /// URL stays at the end.
    package static func appURI(_ appURL: String, carryingQueryOf fullRequestURL: String?) -> String {
        guard let fullRequestURL, let query = rawQuery(of: fullRequestURL), !query.isEmpty else { return appURL }
        var base = appURL, fragment = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = String(base[hash...])
            base = String(base[..<hash])
        }
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + query + fragment
    }

    /// Whether an unencoded-looking URL has its query's `=` and `&` percent-encoded (`…/test?campaign%3Dsummer`).
    static func isQueryItemEncoded(_ url: Substring) -> Bool {
        guard let mark = url.firstIndex(of: "?") else { return false }
        let query = url[url.index(after: mark)...]
        return !query.contains("=") && query.range(of: "%3D", options: .caseInsensitive) != nil
    }

    /// The `full_request_url` parameter of a raw query, whether the SDK encoded it (`https%3A%2F%2F…`, as it should)
    /// or not (`https://host/link/test?campaign=summer&source=email`, as the platform's own examples write it, so
    /// that the URL's own parameters follow it unencoded), or half-encoded as `URLQueryItem` writes it. Parameters the
    /// route itself takes (`event_type`) are not taken for the URL's. Nil when absent or empty.
    package static func fullRequestURL(inRawQuery rawQuery: String?, ownParameters: Set<String> = ["event_type"]) -> String? {
        guard let rawQuery else { return nil }
        let name = "full_request_url="
        var start: String.Index?
        var search = rawQuery.startIndex
        while let range = rawQuery.range(of: name, range: search..<rawQuery.endIndex) {
            if range.lowerBound == rawQuery.startIndex || rawQuery[rawQuery.index(before: range.lowerBound)] == "&" {
                start = range.upperBound
                break
            }
            search = range.upperBound
        }
        guard let start else { return nil }
        var value = String(rawQuery[start...])
        let encoded = !value.hasPrefix("http://") && !value.hasPrefix("https://")
        // Encoded: the value ends at the next `&`. Not encoded: everything up to the route's own parameters is the URL's.
        let pieces = value.split(separator: "&", omittingEmptySubsequences: false)
        if encoded {
            value = String(pieces.first ?? "")
        } else if let first = pieces.first, Self.isQueryItemEncoded(first) {
            // `URLQueryItem` (and so an SDK building the request with `URLComponents`) leaves `:`, `/` and `?` of the
            // value as they are but encodes `=`, `&` and `%`: one decoding gives the URL back.
            return first.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 }
        } else {
            var kept: [Substring] = []
            for (index, piece) in pieces.enumerated() {
                let key = piece.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                if index > 0, ownParameters.contains(key) { break }
                kept.append(piece)
            }
            value = kept.joined(separator: "&")
        }
        if encoded { value = value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value }
        return value.isEmpty ? nil : value
    }

    /// The query of a URL as written (between `?` and `#`), or nil.
    static func rawQuery(of url: String) -> String? {
        guard let mark = url.firstIndex(of: "?") else { return nil }
        var query = url[url.index(after: mark)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        return String(query)
    }

    /// Signals from the deferred-link query of a LimeLink-style SDK: `width` and `height` of the screen in points
    /// and a `user_agent` that is either the short `iOS 18_7` form or a whole browser user agent. Languages come
    /// from the request's `Accept-Language`.
    ///
    /// - Throws: a ``ValidationError`` naming `width`, `height` or `user_agent` when one is unusable.
    package static func deviceSignals(width: String?, height: String?, userAgent: String?, acceptLanguage: String?) throws(ValidationError) -> DeviceSignals {
        var signals = DeviceSignals()
        signals.screenWidth = try dimension(width, field: "width")
        signals.screenHeight = try dimension(height, field: "height")
        if let userAgent {
            guard userAgent.unicodeScalars.count <= 512, !userAgent.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ValidationError(field: "user_agent", "user_agent must be at most 512 printable characters")
            }
            if let short = shortUserAgent(userAgent) {
                signals.platform = short.platform
                signals.osVersion = short.version
            } else {
                let client = UserAgentClassifier().classify(userAgent)
                switch client.platform {
                case .iOS: signals.platform = "ios"
                case .android: signals.platform = "android"
                default: break
                }
                signals.osVersion = client.osVersion
            }
        }
        signals.languages = acceptLanguage.map(AcceptLanguage.tags).flatMap { $0.isEmpty ? nil : Array($0.prefix(10)) }
        return signals
    }

    /// Signals from the user agent of an app's own HTTP client (`MyApp/3 CFNetwork/1568.200.51 Darwin/24.1.0`,
    /// `okhttp/4.12.0`, `Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/…)`): the platform and, where the agent
    /// tells it, the OS version (Darwin 24.1 is iOS 18.1). Languages come from `Accept-Language`, which URLSession
    /// fills in from the user's preferences.
    package static func appClientSignals(userAgent: String?, acceptLanguage: String?) -> DeviceSignals {
        var signals = DeviceSignals()
        let agent = String((userAgent ?? "").prefix(512))
        if let darwin = agent.range(of: "Darwin/") {
            let numbers = agent[darwin.upperBound...].prefix { $0.isNumber || $0 == "." }.split(separator: ".")
            if agent.contains("CFNetwork") || agent.contains("iOS") || agent.contains("iPhone") { signals.platform = "ios" }
            if signals.platform == "ios", let major = numbers.first.flatMap({ Int($0) }), major >= 20 {
                let minor = numbers.count > 1 ? Int(numbers[1]) ?? 0 : 0
                // Darwin 20 was iOS 14; from Darwin 25 on, iOS took the year's number (26).
                let iOSMajor = major >= 25 ? major + 1 : major - 6
                signals.osVersion = "\(iOSMajor).\(minor)"
            }
        } else if let android = agent.range(of: "Android ") {
            signals.platform = "android"
            let version = agent[android.upperBound...].prefix { $0.isNumber || $0 == "." }
            if !version.isEmpty { signals.osVersion = String(version) }
        } else if agent.lowercased().hasPrefix("okhttp") {
            signals.platform = "android"
        } else {
            let client = UserAgentClassifier().classify(agent)
            if client.platform == .iOS { signals.platform = "ios" } else if client.platform == .android { signals.platform = "android" }
            signals.osVersion = client.osVersion
        }
        signals.languages = acceptLanguage.map(AcceptLanguage.tags).flatMap { $0.isEmpty ? nil : Array($0.prefix(10)) }
        return signals
    }

    /// `iOS 18_7`, `iOS 18.7`, `Android 14`: the short user agent some SDKs send.
    static func shortUserAgent(_ text: String) -> (platform: String, version: String)? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 2 else { return nil }
        let platform: String
        switch parts[0].lowercased() {
        case "ios", "ipados", "iphone": platform = "ios"
        case "android": platform = "android"
        default: return nil
        }
        let version = parts[1].replacingOccurrences(of: "_", with: ".")
        let pieces = version.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(pieces.count), pieces.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }) else { return nil }
        return (platform, version)
    }

    static func dimension(_ text: String?, field: String) throws(ValidationError) -> Int? {
        guard let text, !text.isEmpty else { return nil }
        guard text.count <= 6, let value = Int(text), (1...20000).contains(value) else {
            throw ValidationError(field: field, "\(field) must be a whole number of points from 1 to 20000")
        }
        return value
    }

    /// The most pairs a referral link's `customPayload` may carry.
    package static let maxCustomPayloadPairs = 3

    /// Checks a referral link's identifier and campaign, and its custom payload (at most three pairs of strings,
    /// each key up to 64 characters and each value up to 256).
    package static func checkReferral(referrerIdentifier: String?, campaign: String?, customPayload: [String: String]?) throws(ValidationError) {
        guard let referrerIdentifier, !referrerIdentifier.isEmpty else {
            throw ValidationError(field: "referrerIdentifier", "referrerIdentifier is required: who shares the link")
        }
        try LinkRules.checkText(referrerIdentifier, field: "referrerIdentifier", max: 256)
        if let campaign { try LinkRules.checkText(campaign, field: "campaign", max: 256) }
        guard let customPayload else { return }
        guard customPayload.count <= maxCustomPayloadPairs else {
            throw ValidationError(field: "customPayload", "customPayload may hold at most \(maxCustomPayloadPairs) key-value pairs; it has \(customPayload.count)")
        }
        for (key, value) in customPayload.sorted(by: { $0.key < $1.key }) {
            guard !key.isEmpty, key.unicodeScalars.count <= 64,
                  !key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
                throw ValidationError(field: "customPayload", "customPayload keys must be 1 to 64 characters without spaces or control characters")
            }
            try LinkRules.checkText(value, field: "customPayload.\(key)", max: 256)
        }
    }
}
