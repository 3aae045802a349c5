#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
// Seed 002, "Deferred Deep Link" (Swift), as written there but for the import.
import Foundation
import FerryLimeLink

fileprivate func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    SeedRecorder.shared.print(items.map { "\($0)" }.joined(separator: separator))
}

enum SeedDeferredDeepLink {
class ViewController: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        
        // Check for deferred deep link on first launch
        if LinkStats.isFirstLaunch() {
            checkDeferredDeepLink()
        }
    }
    
    private func checkDeferredDeepLink() {
        DeferredDeepLinkService.getDeferredDeepLink { result in
            DispatchQueue.main.async {
                switch result {
                case .success(let uri):
                    print("✅ Deferred Deep Link URI: \(uri)")
                    // Navigate to the appropriate screen using the URI
                    self.handleDeepLink(uri)
                    
                case .failure(let error):
                    print("❌ No deferred deep link found or error: \(error.localizedDescription)")
                    // No matching deferred deep link found - continue with normal flow
                }
            }
        }
    }
    
    private func handleDeepLink(_ uri: String) {
        if let url = URL(string: uri) {
            // Handle the deep link
            // Example: myapp://product/123
            UIApplication.shared.open(url, options: [:], completionHandler: nil)
        }
    }
}
}
#endif
