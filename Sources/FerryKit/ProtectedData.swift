import Foundation
#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// Whether the device's protected data (files protected until the first unlock, `UserDefaults` among them) can be
/// read now.
public enum ProtectedData {
    /// False when the device has not been unlocked since it started, as far as can be told from this thread.
    ///
    /// Where UIKit has an application (an app on iOS, iPadOS, Mac Catalyst, tvOS or visionOS), it is
    /// `UIApplication.isProtectedDataAvailable`, read on the main thread; on another thread, in an app extension and
    /// on other platforms, there is nothing to ask without risk, and it is true. FerryKit asks it on the main thread.
    public static func isAvailable() -> Bool {
        #if canImport(UIKit) && !os(watchOS)
        guard Thread.isMainThread, Bundle.main.bundleURL.pathExtension != "appex" else { return true }
        return MainActor.assumeIsolated {
            // `UIApplication.shared` is unavailable to code built for app extensions; asked for by name, the same
            // package builds for both (and an extension never gets here).
            guard let application = UIApplication.value(forKey: "sharedApplication") as? UIApplication else { return true }
            return application.isProtectedDataAvailable
        }
        #else
        return true
        #endif
    }
}
