import Foundation

// What the Objective-C facade (FerryObjC.swift, built where there is an Objective-C runtime) hands to Objective-C,
// made here in plain Swift so that it is built and tested on every platform: errors as NSError, links and
// attributions as dictionaries, the facade's options as FerryOptions.

extension FerryError: CustomNSError {
    /// The `NSError` domain of FerryKit's errors: `dev.ferry.FerryKit`.
    public static let errorDomain = "dev.ferry.FerryKit"

    /// `userInfo` key of the code's text (`timeout`, `secret_key_in_app`…).
    public static let codeNameUserInfoKey = "FerryErrorCode"
    /// `userInfo` key of the HTTP status (an integer), when the server answered.
    public static let httpStatusUserInfoKey = "FerryHTTPStatus"
    /// `userInfo` key of the server's own error code (`invalid_field`…), when its answer carried one.
    public static let serverCodeUserInfoKey = "FerryServerCode"
    /// `userInfo` key of the request field the error is about, when there is one.
    public static let fieldUserInfoKey = "FerryField"

    /// The code as a number, stable across releases (see ``FerryError/Code/number``).
    public var errorCode: Int { code.number }

    /// The message (`NSLocalizedDescriptionKey`), the code's text, the HTTP status, the server's code, the field,
    /// and the error underneath (`NSUnderlyingErrorKey`), each when there is one.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message, Self.codeNameUserInfoKey: code.rawValue]
        if let httpStatus { info[Self.httpStatusUserInfoKey] = httpStatus }
        if let serverCode { info[Self.serverCodeUserInfoKey] = serverCode.rawValue }
        if let field { info[Self.fieldUserInfoKey] = field }
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return info
    }
}

extension FerryError.Code {
    /// Every code with its number, the `NSError` code and `FRYErrorCode` of Objective-C. A number never changes
    /// meaning; new codes get new numbers.
    static let numbered: [(code: FerryError.Code, number: Int)] = [
        (.invalidAPIKey, 1), (.secretKeyInApp, 2), (.invalidConfiguration, 3), (.notConfigured, 4), (.invalidArgument, 5),
        (.network, 6), (.timeout, 7), (.unauthorized, 8), (.forbidden, 9), (.badRequest, 10), (.notFound, 11),
        (.rateLimited, 12), (.server, 13), (.invalidResponse, 14), (.cancelled, 15), (.disabled, 16),
    ]

    /// The code as a number: 1 ``invalidAPIKey``, 2 ``secretKeyInApp``, 3 ``invalidConfiguration``, 4 ``notConfigured``,
    /// 5 ``invalidArgument``, 6 ``network``, 7 ``timeout``, 8 ``unauthorized``, 9 ``forbidden``, 10 ``badRequest``,
    /// 11 ``notFound``, 12 ``rateLimited``, 13 ``server``, 14 ``invalidResponse``, 15 ``cancelled``, 16 ``disabled``.
    public var number: Int {
        Self.numbered.first { $0.code == self }?.number ?? 0
    }
}

/// Links and attributions as the dictionaries the Objective-C facade hands out (`dictionaryRepresentation`): string
/// keys, and values that are strings, numbers, booleans or dictionaries of strings, so that they go to JSON as they
/// are. Absent values are left out.
enum ObjectiveCBridge {
    /// `url`, `slug`, `linkID`, `destination`, `iosURL`, `params`, `utm` (`source`, `medium`, `campaign`, `content`,
    /// `term`), `campaign`, `referrer`, `isDeferred`, `matchType`, `confidence`, `source` (`universalLink`,
    /// `customScheme` or `deferred`), `minimumAppVersion`.
    static func dictionary(for link: DeepLink) -> [String: Any] {
        var value: [String: Any] = ["url": link.url.absoluteString, "params": link.params, "isDeferred": link.isDeferred,
                                    "source": link.source.rawValue]
        let utm = utmDictionary(link.utm)
        if !utm.isEmpty { value["utm"] = utm }
        for (key, text) in [("slug", link.slug), ("linkID", link.linkID), ("destination", link.destination?.absoluteString),
                            ("iosURL", link.iosURL?.absoluteString), ("campaign", link.campaign), ("referrer", link.referrer),
                            ("matchType", link.matchType?.rawValue), ("minimumAppVersion", link.minimumAppVersion)] {
            if let text { value[key] = text }
        }
        if let confidence = link.confidence { value["confidence"] = confidence }
        return value
    }

    /// The campaign parameters that are present, by their short names.
    static func utmDictionary(_ utm: UTMParameters) -> [String: String] {
        var value: [String: String] = [:]
        for (key, text) in [("source", utm.source), ("medium", utm.medium), ("campaign", utm.campaign), ("content", utm.content), ("term", utm.term)] {
            if let text { value[key] = text }
        }
        return value
    }

    /// `userID`, `attributed`, `boundToThisInstall`, `matchType`, `confidence`, `link` (as ``dictionary(for:)``).
    static func dictionary(for attribution: UserAttribution) -> [String: Any] {
        var value: [String: Any] = ["userID": attribution.userID, "attributed": attribution.attributed,
                                    "boundToThisInstall": attribution.boundToThisInstall]
        if let matchType = attribution.matchType { value["matchType"] = matchType.rawValue }
        if let confidence = attribution.confidence { value["confidence"] = confidence }
        if let link = attribution.link { value["link"] = dictionary(for: link) }
        return value
    }
}

/// The options the Objective-C facade takes (`FRYOptions`), as plain values.
struct ObjectiveCOptions: Sendable {
    var serverURL: URL
    var linkDomains: [String] = []
    var urlSchemes: [String] = []
    /// ``FerryLogLevel``'s raw value: 0 debug, 1 info, 2 warning, 3 error, 4 none.
    var logLevel: Int = FerryLogLevel.warning.rawValue
    var networkTimeout: TimeInterval = 10
    var validatesKeyOnLaunch = true
    /// Whether to read a "copy to open" token from the pasteboard (``PasteboardClickTokenProvider``), where there is one.
    var readsPasteboardClickToken = false
    /// ``FerryOptions/minimumMatchConfidence``.
    var minimumMatchConfidence: Double?
    /// ``FerryOptions/recognizesReinstalls``.
    var recognizesReinstalls = true

    /// The options, or ``FerryError/Code/invalidConfiguration`` for a log level that is not one.
    func ferryOptions() throws(FerryError) -> FerryOptions {
        guard let level = FerryLogLevel(rawValue: logLevel) else {
            throw FerryError(.invalidConfiguration, "the log level must be 0 (debug) to 4 (none), not \(logLevel)", field: "logLevel")
        }
        var options = FerryOptions(serverURL: serverURL, linkDomains: linkDomains, urlSchemes: urlSchemes)
        options.logLevel = level
        options.networkTimeout = networkTimeout
        options.validatesKeyOnLaunch = validatesKeyOnLaunch
        options.minimumMatchConfidence = minimumMatchConfidence
        options.recognizesReinstalls = recognizesReinstalls
        #if canImport(UIKit) && !os(watchOS) && !os(tvOS)
        if readsPasteboardClickToken { options.clickTokenProvider = PasteboardClickTokenProvider() }
        #endif
        return options
    }
}
