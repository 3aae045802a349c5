#if canImport(SwiftUI)
import SwiftUI

extension View {
    /// Hands the URLs that open the app (custom-scheme URLs through `onOpenURL`, Universal Links through
    /// `onContinueUserActivity`) to FerryKit, and calls `action` with each ``DeepLink`` it returns.
    ///
    /// ```swift
    /// WindowGroup {
    ///     ContentView()
    ///         .onFerryDeepLink { link in router.open(link) }
    ///         .task { if let link = try? await Ferry.checkDeferredDeepLink() { router.open(link) } }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - ferry: the instance to use; the shared one when nil.
    ///   - onError: called when the server could not be asked; links that are not Ferry's are simply ignored.
    ///   - action: called on the main actor with each link.
    public func onFerryDeepLink(
        ferry: Ferry? = nil,
        onError: (@MainActor @Sendable (FerryError) -> Void)? = nil,
        perform action: @escaping @MainActor @Sendable (DeepLink) -> Void
    ) -> some View {
        modifier(FerryDeepLinkModifier(ferry: ferry, onError: onError, action: action))
    }
}

private struct FerryDeepLinkModifier: ViewModifier {
    let ferry: Ferry?
    let onError: (@MainActor @Sendable (FerryError) -> Void)?
    let action: @MainActor @Sendable (DeepLink) -> Void

    func body(content: Content) -> some View {
        content
            .onOpenURL { url in handle(url) }
            .onContinueUserActivity(NSUserActivityTypeBrowsingWeb) { activity in
                if let url = activity.webpageURL { handle(url) }
            }
    }

    private func handle(_ url: URL) {
        let ferry = ferry, onError = onError, action = action
        Task { @MainActor in
            guard let ferry = ferry ?? Ferry.shared else {
                onError?(FerryError(.notConfigured, "a link opened the app before Ferry.configure(apiKey:options:)"))
                return
            }
            do throws(FerryError) {
                if let link = try await ferry.handleDeepLink(url) { action(link) }
            } catch {
                onError?(error)
            }
        }
    }
}
#endif
