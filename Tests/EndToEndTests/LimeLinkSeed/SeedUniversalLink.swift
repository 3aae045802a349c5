#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
// Seed 002, "AppDelegate Configuration" (Swift): the body of `application(_:continue:restorationHandler:)` once it has
// the activity's `webpageURL`, as written there (NSUserActivity itself is UIKit's and Apple's).
import Foundation
import FerryLimeLink

fileprivate func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    SeedRecorder.shared.print(items.map { "\($0)" }.joined(separator: separator))
}

enum SeedUniversalLink {
    @MainActor static func handle(_ url: URL) {
                UniversalLink.shared.handleUniversalLink(url) { uri in
                    if let uri = uri {
                        print("Universal Link URI: \(uri)")
                        // Handle the received URI here or pass it
                        // Note: You must use completion handler in both Swift and Objective-C
                    } else {
                        print("Failed to receive Universal Link URI")
                    }
                }
    }
}
#endif
