#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
// Seed 002, "Use handle information superficially", as written there but for the import, and one line (`_ = suffix`)
// so that the value the seed leaves for the app to use is not a warning.
import Foundation
import FerryLimeLink

fileprivate func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    SeedRecorder.shared.print(items.map { "\($0)" }.joined(separator: separator))
}

enum SeedHandleIntent {
class ViewController: UIViewController {

    override func viewDidLoad() {
        super.viewDidLoad()
        /* Example */
        handleIntent()

    }
    
    private func handleIntent() {
        if let url = URL(string: "your_url") {
            let pathParamResponse = parsePathParams(from:url)
            let suffix = pathParamResponse.mainPath
            _ = suffix

            let handle = pathParamResponse.subPath
            if handle == "example" {
              //Navigate to the desired screen
            }
        }
    }
}
}
#endif
