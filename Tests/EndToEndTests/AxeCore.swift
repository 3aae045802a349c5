#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation

/// axe-core, the accessibility checker, run in headless Chromium on the page a test has open. Its script is not part
/// of the repository: `scripts/test-tools.sh` takes it from the `axe-selenium-python` package on PyPI into
/// `.build/test-tools/axe.min.js` (or `FERRY_AXE_SCRIPT` names one).
enum AxeCore {
    /// Where the script is looked for.
    static var scriptPath: String {
        if let path = ProcessInfo.processInfo.environment["FERRY_AXE_SCRIPT"], !path.isEmpty { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/test-tools/axe.min.js").path
    }

    /// The script, or nil when it is not installed.
    static let script: String? = try? String(contentsOfFile: scriptPath, encoding: .utf8)

    /// The violations of impact `serious` or `critical` on the page open in `page`, one line each: the rule, what it
    /// asks, and the first few elements that break it. The tab must bypass the page's Content-Security-Policy
    /// (`BrowserPage.bypassContentSecurityPolicy()`).
    static func seriousViolations(on page: BrowserPage) async throws -> [String] {
        guard let script else { throw BrowserError("axe-core is not installed at \(scriptPath): run scripts/test-tools.sh") }
        if try await page.evaluate("typeof window.axe") != "object" { _ = try await page.evaluate(script + "\n;'loaded'") }
        let found = try await page.evaluate("""
            axe.run(document, { resultTypes: ['violations'] }).then(results => JSON.stringify(results.violations
              .filter(v => v.impact === 'serious' || v.impact === 'critical')
              .map(v => v.impact + ' ' + v.id + ': ' + v.help + ' [' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ') + ']')))
            """) ?? "[]"
        return (try? JSONSerialization.jsonObject(with: Data(found.utf8)) as? [String]) ?? [found]
    }
}
#endif
