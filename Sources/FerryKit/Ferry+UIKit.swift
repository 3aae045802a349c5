// watchOS has no scenes (and no UIKit app delegate): apps there use the SwiftUI modifier or call handleDeepLink.
#if canImport(UIKit) && !os(watchOS)
import UIKit

/// Conveniences for app and scene delegates.
///
/// ```swift
/// // SceneDelegate
/// func scene(_ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions) {
///     Task { if let link = try await Ferry.shared?.handle(connectionOptions: connectionOptions) { router.open(link) } }
/// }
/// func scene(_ scene: UIScene, continue userActivity: NSUserActivity) {
///     Task { if let link = try await Ferry.shared?.handle(userActivity: userActivity) { router.open(link) } }
/// }
/// func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {
///     Task { if let link = try await Ferry.shared?.handle(urlContexts: URLContexts) { router.open(link) } }
/// }
/// ```
extension Ferry {
    /// The URL of a Universal Link activity (`NSUserActivityTypeBrowsingWeb`), or nil for other activities.
    public static func url(of userActivity: NSUserActivity) -> URL? {
        userActivity.activityType == NSUserActivityTypeBrowsingWeb ? userActivity.webpageURL : nil
    }

    /// ``handleDeepLink(_:)-swift.method`` for the activity of `application(_:continue:restorationHandler:)` or
    /// `scene(_:continue:)`; nil for activities that are not Universal Links.
    @MainActor
    public func handle(userActivity: NSUserActivity) async throws(FerryError) -> DeepLink? {
        guard let url = Self.url(of: userActivity) else { return nil }
        return try await handleDeepLink(url)
    }

    /// ``handleDeepLink(_:)-swift.method`` for the Universal Link or URL a scene was launched with
    /// (`scene(_:willConnectTo:options:)`), nil when it was launched without one.
    @MainActor
    public func handle(connectionOptions: UIScene.ConnectionOptions) async throws(FerryError) -> DeepLink? {
        let url = connectionOptions.userActivities.lazy.compactMap(Self.url(of:)).first ?? connectionOptions.urlContexts.first?.url
        guard let url else { return nil }
        return try await handleDeepLink(url)
    }

    /// ``handleDeepLink(_:)-swift.method`` for the URLs of `scene(_:openURLContexts:)`: the first one FerryKit handles.
    @MainActor
    public func handle(urlContexts: Set<UIOpenURLContext>) async throws(FerryError) -> DeepLink? {
        let urls = urlContexts.map(\.url)
        guard let url = urls.first(where: canHandle) ?? urls.first else { return nil }
        return try await handleDeepLink(url)
    }
}
#endif
