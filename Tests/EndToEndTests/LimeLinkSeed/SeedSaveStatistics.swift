#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
// Seed 002, "Save statistical information", as written there but for the import (LimelinkIOSSDK → FerryLimeLink;
// UIKit's view controller comes from SeedSupport.swift where there is no UIKit).
import Foundation
import FerryLimeLink

fileprivate func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    SeedRecorder.shared.print(items.map { "\($0)" }.joined(separator: separator))
}

enum SeedSaveStatistics {
class ViewController: UIViewController {

    override func viewDidLoad() {
        super.viewDidLoad()
        /* Example */
        let url = URL(string: "your_url")!
        saveLimeLinkStatus(url: url, privateKey: "your_private_key")
    }
}
}
#endif
