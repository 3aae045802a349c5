#if canImport(SwiftUI)
import SwiftUI

extension View {
    /// Hands the URLs that open the app (custom-scheme URLs through `onOpenURL`, Universal Links through
    /// `onContinueUserActivity`) to FerryKit, calls `action` with each ``DeepLink`` it returns, and `otherwise` with
    /// each URL it does not handle.
    ///
    /// ```swift
    /// WindowGroup {
    ///     ContentView()
    ///         .onFerryDeepLink { link in
    ///             router.open(link)
    ///         } otherwise: { url in
    ///             router.open(url)  // one of the app's own URLs, or a link the server does not have
    ///         }
    ///         .task { if let link = try? await Ferry.checkDeferredDeepLink() { router.open(link) } }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - ferry: the instance to use; the shared one when nil.
    ///   - onError: called when ``Ferry/handleDeepLink(_:)`` throws (a refused key), or when no instance is
    ///     configured.
    ///   - action: called on the main actor with each link.
    ///   - otherwise: called on the main actor with each URL for which ``Ferry/handleDeepLink(_:)`` returned nil: a URL
    ///     that is not Ferry's, or a link the server does not have (or no longer serves). Without it, those URLs are
    ///     dropped.
    public func onFerryDeepLink(
        ferry: Ferry? = nil,
        onError: (@MainActor @Sendable (FerryError) -> Void)? = nil,
        perform action: @escaping @MainActor @Sendable (DeepLink) -> Void,
        otherwise: (@MainActor @Sendable (URL) -> Void)? = nil
    ) -> some View {
        modifier(FerryDeepLinkModifier(ferry: ferry, onError: onError, action: action, otherwise: otherwise))
    }
}

private struct FerryDeepLinkModifier: ViewModifier {
    let ferry: Ferry?
    let onError: (@MainActor @Sendable (FerryError) -> Void)?
    let action: @MainActor @Sendable (DeepLink) -> Void
    let otherwise: (@MainActor @Sendable (URL) -> Void)?

    func body(content: Content) -> some View {
        content
            .onOpenURL { url in handle(url) }
            .onContinueUserActivity(NSUserActivityTypeBrowsingWeb) { activity in
                if let url = activity.webpageURL { handle(url) }
            }
    }

    private func handle(_ url: URL) {
        let ferry = ferry, onError = onError, action = action, otherwise = otherwise
        Task { @MainActor in
            guard let ferry = ferry ?? Ferry.shared else {
                onError?(FerryError(.notConfigured, "a link opened the app before Ferry.configure(apiKey:options:)"))
                return
            }
            do throws(FerryError) {
                if let link = try await ferry.handleDeepLink(url) { action(link) } else { otherwise?(url) }
            } catch {
                onError?(error)
            }
        }
    }
}
#endif
