import Foundation

/// The campaign parameters of one link that opened the app, and where it landed: a touch in the install's journey.
///
/// ```swift
/// let touch = AttributionTouch(deepLink: link, at: Date())
/// touch.source       // "youtube"
/// touch.landingPath  // "/paywall"
/// touch.backendValue // ["source": "youtube", "landing_path": "/paywall", "url": "https://…", "timestamp": "2026-…Z"]
/// ```
public struct AttributionTouch: Sendable, Hashable, Codable {
    /// `utm_source`: where the traffic came from.
    public var source: String?
    /// `utm_medium`: the channel.
    public var medium: String?
    /// `utm_campaign`: the campaign.
    public var campaign: String?
    /// `utm_content`: the content variant.
    public var content: String?
    /// `utm_term`: the paid search keywords.
    public var term: String?
    /// The `dl_target` of the link, lowercased.
    public var target: String?
    /// The lowercased path of the opened URL (for a custom scheme, the host is the first segment); `/` when empty.
    /// The same normalisation as ``DeepLinkRequest/path``.
    public var landingPath: String
    /// The opened URL, as text.
    public var url: String
    /// The Ferry link id (`lnk_…`) when the URL was a Ferry link.
    public var linkID: String?
    /// When the app was opened with the link.
    public var timestamp: Date

    /// Creates a touch from its parts, as given.
    public init(
        source: String? = nil, medium: String? = nil, campaign: String? = nil, content: String? = nil, term: String? = nil,
        target: String? = nil, landingPath: String = "/", url: String, linkID: String? = nil, timestamp: Date
    ) {
        self.source = source
        self.medium = medium
        self.campaign = campaign
        self.content = content
        self.term = term
        self.target = target
        self.landingPath = landingPath
        self.url = url
        self.linkID = linkID
        self.timestamp = timestamp
    }

    /// The touch of a deep link: campaign parameters from ``DeepLink/utm``, target from ``DeepLink/target``, landing path
    /// and URL from ``DeepLink/url`` (the URL the app was opened with), link id from ``DeepLink/linkID``.
    /// Empty values are treated as absent.
    public init(deepLink: DeepLink, at date: Date) {
        self.init(
            utm: deepLink.utm, target: deepLink.target, url: deepLink.url, linkID: deepLink.linkID, timestamp: date)
    }

    /// The touch of a URL that is not a Ferry link: `utm_*` and `dl_target` read from its query.
    init(openedURL url: URL, at date: Date) {
        let query = URLQuery(url)
        self.init(
            utm: query.utm(over: UTMParameters()), target: query.value(DeepLinkParameter.target), url: url, linkID: nil,
            timestamp: date)
    }

    private init(utm: UTMParameters, target: String?, url: URL, linkID: String?, timestamp: Date) {
        func present(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        self.init(
            source: present(utm.source), medium: present(utm.medium), campaign: present(utm.campaign),
            content: present(utm.content), term: present(utm.term), target: DeepLinkRequest.normalizedTarget(target),
            landingPath: DeepLinkRequest(url: url).path, url: url.absoluteString, linkID: present(linkID), timestamp: timestamp)
    }

    /// The touch for the backend, with snake_case keys: `source`, `medium`, `campaign`, `content`, `term`, `dl_target`,
    /// `landing_path`, `url`, `link_id`, `timestamp` (ISO 8601, ``FerryJSON/formatDate(_:)``). Absent or empty values are left out.
    public var backendValue: [String: String] {
        var value: [String: String] = [:]
        func put(_ key: String, _ text: String?) {
            if let text, !text.isEmpty { value[key] = text }
        }
        put("source", source)
        put("medium", medium)
        put("campaign", campaign)
        put("content", content)
        put("term", term)
        put(DeepLinkParameter.target, target)
        put("landing_path", landingPath)
        put("url", url)
        put("link_id", linkID)
        put("timestamp", FerryJSON.formatDate(timestamp))
        return value
    }
}

/// The install's first touch (the first link that ever opened the app, kept for good) and last touch (the latest one),
/// kept in a ``FerryStorage`` so that both survive relaunches.
///
/// Attach ``currentAttributionForBackend()`` to a sign-up or login request so that the backend can credit the campaigns.
///
/// ```swift
/// let attribution = AttributionStore(storage: UserDefaultsStorage())
/// attribution.record(link)                      // a DeepLink the app was opened with
/// attribution.recordOpen(url: appURL)           // one of the app's own URLs, not a Ferry link
/// body["attribution"] = attribution.currentAttributionForBackend()
/// ```
///
/// Every method is safe to call from any thread. First touch is set exactly once even when several threads record at
/// once, and even when several stores share a storage in one process: the read-check-write runs under a lock shared
/// by all stores. A stored value that cannot be decoded reads as nil and is replaced by the next record.
/// Touches are stored as JSON with ISO 8601 timestamps, so a timestamp read back is exact to the millisecond.
public final class AttributionStore: Sendable {
    /// The storage key of the first touch.
    static let firstTouchKey = "attribution.firstTouch"
    /// The storage key of the last touch.
    static let lastTouchKey = "attribution.lastTouch"

    /// One lock for every store: two stores on the same storage must not both set first touch.
    private static let lock = Locked(())

    private let storage: any FerryStorage
    private let now: @Sendable () -> Date

    /// A store on `storage`, stamping touches with `now()`.
    ///
    /// ```swift
    /// let store = AttributionStore(storage: InMemoryStorage(), now: { Date(timeIntervalSince1970: 0) })
    /// ```
    public init(storage: any FerryStorage, now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.now = now
    }

    /// The first link that opened the app on this install, or nil before any (or when the stored value is unreadable).
    public var firstTouch: AttributionTouch? {
        storage.value(AttributionTouch.self, forKey: Self.firstTouchKey)
    }

    /// The latest link that opened the app, or nil before any (or when the stored value is unreadable).
    public var lastTouch: AttributionTouch? {
        storage.value(AttributionTouch.self, forKey: Self.lastTouchKey)
    }

    /// Records a touch: it becomes the last touch, and the first touch when there is none yet.
    ///
    /// - Returns: true when this call set the first touch.
    @discardableResult
    public func record(_ touch: AttributionTouch) -> Bool {
        Self.lock.withLock { _ in
            let setsFirst = storage.value(AttributionTouch.self, forKey: Self.firstTouchKey) == nil
            if setsFirst { storage.setValue(touch, forKey: Self.firstTouchKey) }
            storage.setValue(touch, forKey: Self.lastTouchKey)
            return setsFirst
        }
    }

    /// Records the touch of a deep link the app was opened with (see ``AttributionTouch/init(deepLink:at:)``), stamped now.
    ///
    /// - Returns: true when this call set the first touch.
    @discardableResult
    public func record(_ deepLink: DeepLink) -> Bool {
        record(AttributionTouch(deepLink: deepLink, at: now()))
    }

    /// Records an open of one of the app's own URLs that is not a Ferry link: `utm_*` and `dl_target` are read from its
    /// query, the landing path from its path. An open without campaign parameters is recorded too (a direct open).
    ///
    /// ```swift
    /// store.recordOpen(url: URL(string: "https://app.example.com/Paywall?utm_source=youtube&utm_medium=video")!)
    /// store.lastTouch?.landingPath  // "/paywall"
    /// ```
    ///
    /// - Returns: true when this call set the first touch.
    @discardableResult
    public func recordOpen(url: URL) -> Bool {
        record(AttributionTouch(openedURL: url, at: now()))
    }

    /// Both touches for the backend: `{"first_touch": {…}, "last_touch": {…}}` (see ``AttributionTouch/backendValue``),
    /// each key only when that touch is known. Ready for `JSONSerialization` or a `Codable` body.
    public func currentAttributionForBackend() -> [String: [String: String]] {
        let (first, last) = Self.lock.withLock { _ in (firstTouch, lastTouch) }
        var result: [String: [String: String]] = [:]
        if let first { result["first_touch"] = first.backendValue }
        if let last { result["last_touch"] = last.backendValue }
        return result
    }

    /// Puts `new` in place of the first and the last touch where they are still `old` (an open completed later, with the
    /// data of the link the server resolved); returns whether either was.
    @discardableResult
    func replace(_ old: AttributionTouch, with new: AttributionTouch) -> Bool {
        Self.lock.withLock { _ in
            var replaced = false
            for key in [Self.firstTouchKey, Self.lastTouchKey] where storage.value(AttributionTouch.self, forKey: key) == old {
                storage.setValue(new, forKey: key)
                replaced = true
            }
            return replaced
        }
    }

    /// Forgets both touches: the next record sets first touch again (for a test device, say).
    public func reset() {
        Self.lock.withLock { _ in
            storage.setData(nil, forKey: Self.firstTouchKey)
            storage.setData(nil, forKey: Self.lastTouchKey)
        }
    }
}
