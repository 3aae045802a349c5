import FerryKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The LimeLink SDK's calls, under its names and with its behaviour, answered by Ferry's LimeLink-compatible routes
// (`/api/v1/app/dynamic_link/{slug}`, `/api/v1/deferred-deep-link`, `/api/v1/stats/event`). See docs/migrating.md.

// MARK: Paths

/// The first and third segments of a URL's path, as the LimeLink SDK reads them.
///
/// `https://abc.go.example.com/link/spring-sale?ref=mail` gives `mainPath` `link` and `subPath` nil;
/// `https://go.example.com/spring-sale/offers/shoes` gives `spring-sale` and `shoes`. Case is kept and nothing is
/// skipped: this is LimeLink's reading, which differs from ``Ferry/parsePathParams(from:)``.
public struct PathParamResponse: Sendable, Hashable {
    /// The first segment of the path, or "" when the path has none.
    public var mainPath: String
    /// The third segment of the path, or nil when it has fewer.
    public var subPath: String?

    /// Creates a response.
    public init(mainPath: String, subPath: String? = nil) {
        self.mainPath = mainPath
        self.subPath = subPath
    }
}

/// The segments of `url`'s path, LimeLink's way: the first as ``PathParamResponse/mainPath``, the third as
/// ``PathParamResponse/subPath``; for nil, an empty main path and an empty sub path.
public func parsePathParams(from url: URL?) -> PathParamResponse {
    guard let url else { return PathParamResponse(mainPath: "", subPath: "") }
    let segments = url.pathComponents.filter { $0 != "/" }
    return PathParamResponse(mainPath: segments.first ?? "", subPath: segments.count > 2 ? segments[2] : nil)
}

// MARK: Statistics

/// Reports that the app was opened by `url`'s link: the link's slug is the path's first segment, the handle its
/// third (``parsePathParams(from:)``). Reports made during the install's first launch are its first run, later ones
/// reruns, told apart without touching ``LinkStats/isFirstLaunch()``: that answer stays the app's, whichever of the two
/// it calls first. Nothing is sent for a URL without a path.
///
/// `privateKey` is used when it is a Ferry publishable key; any other text (the LimeLink key an app's code still
/// carries) gives way to the configured ``FerryLimeLink/publishableKeyInfoKey``. Sent in the background; failures are
/// not reported, as in the LimeLink SDK.
public func saveLimeLinkStatus(url: URL?, privateKey: String) {
    let path = parsePathParams(from: url)
    guard !path.mainPath.isEmpty else { return }
    let eventType = LinkStats.isInstallsFirstRun ? "first_run" : "rerun"
    Task {
        guard let settings = try? FerryLimeLink.settings() else { return }
        let given = privateKey.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = APIKeyFormat(parsing: given)?.kind == .publishable ? given : settings.publishableKey
        var body: [String: String] = ["private_key": key, "suffix": path.mainPath, "event_type": eventType]
        if let handle = path.subPath { body["handle"] = handle }
        guard let url = settings.url("api/v1/stats/event"), let json = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]) else { return }
        _ = try? await FerryLimeLink.transport.send(settings.request(url, method: "POST", json: json))
    }
}

// MARK: First launch

/// Whether this is the install's first launch, as the LimeLink SDK tells it.
public final class LinkStats: NSObject {
    private static let key = "limelink.firstLaunchSeen"

    #if canImport(ObjectiveC)
    /// True the first time it is asked on an install, false every time after (the answer is kept in the app's storage).
    @objc public static func isFirstLaunch() -> Bool { takeFirstLaunch() }
    #else
    /// True the first time it is asked on an install, false every time after (the answer is kept in the app's storage).
    public static func isFirstLaunch() -> Bool { takeFirstLaunch() }
    #endif

    private static let asked = Locked(())
    private static let launchKey = "limelink.launchSeen"
    /// Whether this launch is the install's first, decided once per launch from a mark of its own.
    private static let firstRun = Locked<Bool?>(nil)

    /// Whether the app runs for the first time since it was installed: true for the whole of that launch, false on
    /// every later one. Unlike ``isFirstLaunch()``, asking changes nothing.
    static var isInstallsFirstRun: Bool {
        firstRun.withLock { known in
            if let known { return known }
            let storage = FerryLimeLink.storage
            let first = storage.data(forKey: launchKey) == nil
            if first { storage.setData(Data([1]), forKey: launchKey) }
            known = first
            return first
        }
    }

    private static func takeFirstLaunch() -> Bool {
        asked.withLock { _ in
            let storage = FerryLimeLink.storage
            guard storage.data(forKey: key) == nil else { return false }
            storage.setData(Data([1]), forKey: key)
            return true
        }
    }
}

// MARK: Universal Links

/// Opens the app's links: the app URL a link stands for.
public final class UniversalLink: NSObject, Sendable {
    #if canImport(ObjectiveC)
    /// The one handler.
    @objc public static let shared = UniversalLink()
    #else
    /// The one handler.
    public static let shared = UniversalLink()
    #endif

    override private init() {}

    #if canImport(ObjectiveC)
    /// Asks the server what `url` opens in the app: the link's iOS URL (else its destination) with `url`'s query
    /// carried over, `myapp://product/42?campaign=summer`. Works for `https://go.example.com/{slug}` and for
    /// `https://{any}.go.example.com/link/{slug}`, with or without a query. `completion` is called on the main thread
    /// with the URI, or nil when the URL is no link of the app, the link is gone, or the server cannot be reached.
    @objc(handleUniversalLink:completion:)
    public func handleUniversalLink(_ url: URL, completion: @escaping @Sendable (String?) -> Void) { resolve(url, completion) }
    #else
    /// Asks the server what `url` opens in the app: the link's iOS URL (else its destination) with `url`'s query
    /// carried over, `myapp://product/42?campaign=summer`. Works for `https://go.example.com/{slug}` and for
    /// `https://{any}.go.example.com/link/{slug}`, with or without a query. `completion` is called on the main thread
    /// with the URI, or nil when the URL is no link of the app, the link is gone, or the server cannot be reached.
    public func handleUniversalLink(_ url: URL, completion: @escaping @Sendable (String?) -> Void) { resolve(url, completion) }
    #endif

    private func resolve(_ url: URL, _ completion: @escaping @Sendable (String?) -> Void) {
        Task {
            let uri = await Self.uri(of: url)
            FerryLimeLink.onMain { completion(uri) }
        }
    }

    /// The slug a link URL names: what follows `/link/`, else the whole path.
    static func slug(of url: URL) -> String? {
        var segments = url.pathComponents.filter { $0 != "/" }
        if segments.first == "link", segments.count > 1 { segments.removeFirst() }
        return segments.isEmpty ? nil : segments.joined(separator: "/")
    }

    static func uri(of url: URL, setup: Bool = false) async -> String? {
        guard let settings = try? FerryLimeLink.settings(), let slug = slug(of: url) else { return nil }
        return await dynamicLink(slug: slug, fullRequestURL: url.absoluteString, setup: setup, settings: settings).uri
    }

    /// `GET /api/v1/app/dynamic_link/{slug}`: the URI, or why there is none.
    static func dynamicLink(slug: String, fullRequestURL: String?, setup: Bool, settings: FerryLimeLink.Settings) async -> (uri: String?, problem: String) {
        let escaped = slug.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? "" }
        var query: [URLQueryItem] = []
        if let fullRequestURL { query.append(URLQueryItem(name: "full_request_url", value: fullRequestURL)) }
        if setup { query.append(URLQueryItem(name: "event_type", value: "setup")) }
        guard let url = settings.url("api/v1/app/dynamic_link/" + escaped.joined(separator: "/"), query: query) else { return (nil, "the link's URL cannot be made") }
        do {
            let answer = try await FerryLimeLink.transport.send(settings.request(url))
            guard let uri = FerryLimeLink.object(answer)?["uri"] as? String else { return (nil, FerryLimeLink.message(answer)) }
            return (uri, "")
        } catch {
            return (nil, "the server cannot be reached: \(error.localizedDescription)")
        }
    }
}

// MARK: Deferred deep links

/// The link clicked before the app was installed.
public final class DeferredDeepLinkService: NSObject {
    #if canImport(ObjectiveC)
    /// The `Result` form below, for Objective-C (`getDeferredDeepLinkWithCompletion:`):
    /// the URI, or an `NSError` whose `localizedDescription` says why there is none.
    @objc(getDeferredDeepLinkWithCompletion:)
    public static func getDeferredDeepLink(completion: @escaping @Sendable (String?, NSError?) -> Void) {
        getDeferredDeepLink { (result: Result<String, any Error>) in
            switch result {
            case .success(let uri): completion(uri, nil)
            case .failure(let error): completion(nil, error as NSError)
            }
        }
    }
    #endif

    /// Asks the server for the link this device clicked before installing the app (matched on its screen, system and
    /// network), and that link's app URI; the server counts the install. Call it on the first launch
    /// (``LinkStats/isFirstLaunch()``). `completion` is called on the main thread with `.success(uri)`, or `.failure`
    /// with an error whose `localizedDescription` says why there is none (no matching click, no network, not
    /// configured).
    public static func getDeferredDeepLink(completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        Task {
            let result = await deferredLink()
            FerryLimeLink.onMain { completion(result) }
        }
    }

    static func deferredLink() async -> Result<String, any Error> {
        let settings: FerryLimeLink.Settings
        do { settings = try FerryLimeLink.settings() } catch { return .failure(error) }
        let signals = await FerryLimeLink.device.signals()
        guard let width = signals.screenWidth, let height = signals.screenHeight else {
            return .failure(FerryError(.invalidConfiguration, "the device's screen size is not known"))
        }
        let system = (signals.platform ?? "ios").lowercased() == "ios" ? "iOS" : (signals.platform ?? "iOS")
        let version = (signals.osVersion ?? "").replacingOccurrences(of: ".", with: "_")
        let query = [URLQueryItem(name: "width", value: String(width)), URLQueryItem(name: "height", value: String(height)),
                     URLQueryItem(name: "user_agent", value: "\(system) \(version)")]
        guard let url = settings.url("api/v1/deferred-deep-link", query: query) else {
            return .failure(FerryError(.invalidConfiguration, "the server URL cannot take the deferred-link route"))
        }
        let answer: (Data, HTTPURLResponse)
        do { answer = try await FerryLimeLink.transport.send(settings.request(url)) } catch {
            return .failure(FerryError(.network, "the server cannot be reached: \(error.localizedDescription)", underlying: error))
        }
        guard let found = FerryLimeLink.object(answer), let suffix = found["suffix"] as? String else {
            let status = answer.1.statusCode
            return .failure(FerryError(status == 404 ? .notFound : .server, status == 404 ? "No matching deferred deep link" : FerryLimeLink.message(answer),
                                       httpStatus: status))
        }
        let link = await UniversalLink.dynamicLink(slug: suffix, fullRequestURL: found["full_request_url"] as? String, setup: true, settings: settings)
        guard let uri = link.uri else { return .failure(FerryError(.notFound, link.problem)) }
        return .success(uri)
    }
}
