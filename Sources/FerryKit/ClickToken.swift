import Foundation

/// "Copy to open": the click token the link's page puts on the pasteboard, recognised and read without showing
/// iOS's paste prompt when the pasteboard holds nothing that could be one.
enum ClickToken {
    /// The query parameter that carries a click id in a URL (as in the Play Store referrer).
    static let urlParameter = "ferry_click_id"

    /// The click token in `text`, as the server takes it (`ferry:clk_…`), or nil when `text` is not one.
    ///
    /// The interstitial copies `ferry:clk_` followed by 22 letters and digits; a bare `clk_…`, and an `http(s)` URL
    /// whose query carries `ferry_click_id=clk_…` (a page that copies a link), are taken too. Whitespace around
    /// the text is ignored; anything else in it makes it not a token.
    static func extract(from text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 2048 else { return nil }
        if isClickID(trimmed) { return "ferry:" + trimmed }
        if trimmed.hasPrefix("ferry:") {
            let id = String(trimmed.dropFirst("ferry:".count))
            return isClickID(id) ? trimmed : nil
        }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", components.host?.isEmpty == false,
              let id = components.queryItems?.first(where: { $0.name == urlParameter })?.value, isClickID(id) else { return nil }
        return "ferry:" + id
    }

    /// The first click token among `texts` (the strings of a paste, say).
    static func extract(fromAny texts: [String]) -> String? {
        texts.lazy.compactMap(extract(from:)).first
    }

    /// `clk_` and 22 ASCII letters or digits: a click id as the server makes it.
    static func isClickID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 26, text.hasPrefix("clk_") else { return false }
        return bytes[4...].allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }
}

/// What can be learnt about the general pasteboard without reading it (so without the paste prompt).
struct PasteboardProbe: Sendable, Hashable {
    /// It holds text.
    var hasStrings: Bool
    /// It holds URLs.
    var hasURLs: Bool
    /// iOS takes its text for a web URL (`detectPatterns`, `.probableWebURL`).
    var probableWebURL: Bool = false
    /// iOS takes its text for a number (a one-time code, say), which a click token never is.
    var number: Bool = false

    /// What to read.
    enum Read: Sendable, Hashable {
        /// Nothing: no prompt.
        case nothing
        /// The pasteboard's URLs.
        case urls
        /// The pasteboard's text.
        case strings
    }

    /// Whether the pasteboard probably holds a click token, and what to read for it. `linksOnly` keeps to URLs and
    /// text iOS takes for a web URL.
    func read(linksOnly: Bool) -> Read {
        if hasURLs { return .urls }
        guard hasStrings else { return .nothing }
        if probableWebURL { return .strings }
        return linksOnly || number ? .nothing : .strings
    }
}

/// The general pasteboard, as far as FerryKit needs it after a click token was used: whether it changed, and
/// clearing it. Writing to it shows no prompt.
protocol PasteboardAccess: Sendable {
    /// The pasteboard's change count now.
    func changeCount() async -> Int
    /// Clears the pasteboard if its change count is still `count` (it still holds what was read then).
    func clear(ifChangeCountIs count: Int) async
}

extension Ferry {
    /// The link clicked before this app was installed, with the strings the user pasted (from a `PasteButton` or a
    /// `UIPasteControl`): when they hold a "copy to open" click token, the match request carries it and the install
    /// is matched with certainty. A paste made by the user shows no paste prompt.
    ///
    /// Call it instead of ``checkDeferredDeepLink()-swift.method`` when the first screen offers the paste button, before
    /// any other deferred check has answered: once an answer is stored (link or not), it is returned as it is and the
    /// paste is not looked at. After the server has answered, the pasteboard is cleared if it has not changed since
    /// this call (it still holds the token). Strings without a token make it an ordinary deferred check.
    ///
    /// ```swift
    /// PasteButton(payloadType: String.self) { strings in
    ///     Task { if let link = try await Ferry.checkDeferredDeepLink(pasted: strings) { router.open(link) } }
    /// }
    /// ```
    ///
    /// - Throws: as ``checkDeferredDeepLink()-swift.method``.
    public func checkDeferredDeepLink(pasted strings: [String]) async throws(FerryError) -> DeepLink? {
        if let cached = storage.value(CachedMatch.self, forKey: StorageKey.deferred) { return cached.link }
        guard let token = ClickToken.extract(fromAny: strings) else {
            logger.category(.deferred).debug("the paste holds no click token")
            return try await checkDeferredDeepLink()
        }
        let pasteboard = pasteboardAccess
        let mark = await pasteboard?.changeCount()
        storage.setValue(token, forKey: StorageKey.clickToken)
        let link = try await checkDeferredDeepLink()
        if storage.value(String.self, forKey: StorageKey.clickToken) == token {
            // A check already under way answered without it: the token was not used.
            storage.setData(nil, forKey: StorageKey.clickToken)
        } else if let mark {
            await pasteboard?.clear(ifChangeCountIs: mark)
        }
        return link
    }

    /// ``checkDeferredDeepLink(pasted:)-swift.method`` for code that is not async: `completion` runs on the main actor.
    public func checkDeferredDeepLink(pasted strings: [String], completion: @escaping Completion<DeepLink?>) {
        complete(completion) { ferry throws(FerryError) in try await ferry.checkDeferredDeepLink(pasted: strings) }
    }

    /// ``checkDeferredDeepLink(pasted:)-swift.method`` on the shared instance.
    public static func checkDeferredDeepLink(pasted strings: [String]) async throws(FerryError) -> DeepLink? {
        try await requireShared("checkDeferredDeepLink").checkDeferredDeepLink(pasted: strings)
    }

    /// ``checkDeferredDeepLink(pasted:completion:)-swift.method`` on the shared instance; without one, the completion
    /// gets ``FerryError/Code/notConfigured``.
    public static func checkDeferredDeepLink(pasted strings: [String], completion: @escaping Completion<DeepLink?>) {
        completeOnShared("checkDeferredDeepLink", completion) { ferry throws(FerryError) in try await ferry.checkDeferredDeepLink(pasted: strings) }
    }

    /// The general pasteboard where there is one (UIKit, but not tvOS or watchOS), or the options' stand-in.
    var pasteboardAccess: (any PasteboardAccess)? {
        if let access = options.pasteboardAccess { return access }
        #if canImport(UIKit) && !os(watchOS) && !os(tvOS)
        return GeneralPasteboard()
        #else
        return nil
        #endif
    }
}
