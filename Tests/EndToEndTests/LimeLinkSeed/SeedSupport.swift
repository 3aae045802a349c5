#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation

/// What the seed's samples printed and the URLs they opened, for the tests to read. Each sample file sends its
/// `print` here (a `print` of its own, so that the seed's code stays as written).
final class SeedRecorder: @unchecked Sendable {
    // @unchecked: `lines` and `urls` are only touched under `lock`.
    static let shared = SeedRecorder()
    private let lock = NSLock()
    private var lines: [String] = []
    private var urls: [URL] = []

    func print(_ line: String) { lock.withLock { lines.append(line) } }
    func open(_ url: URL) { lock.withLock { urls.append(url) } }
    var printed: [String] { lock.withLock { lines } }
    var opened: [URL] { lock.withLock { urls } }
    func reset() { lock.withLock { lines = []; urls = [] } }

    /// The first line printed that starts with `prefix`, waiting up to ten seconds for it.
    func line(startingWith prefix: String) async throws -> String? {
        for _ in 0..<500 {
            if let line = printed.first(where: { $0.hasPrefix(prefix) }) { return line }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

#if !canImport(UIKit)
/// The parts of UIKit the seed's samples touch, where there is no UIKit (the tests run on Linux and macOS): a view
/// controller whose `viewDidLoad` they override, and an application that records the URLs they open.
@MainActor class UIViewController {
    init() {}
    func viewDidLoad() {}
}

@MainActor final class UIApplication {
    static let shared = UIApplication()
    func open(_ url: URL, options: [String: Any], completionHandler: ((Bool) -> Void)?) {
        SeedRecorder.shared.open(url)
        completionHandler?(true)
    }
}
#endif
#endif
