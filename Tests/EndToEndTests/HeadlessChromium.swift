#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A small driver for headless Chromium over the Chrome DevTools Protocol, for end-to-end tests.
//
// Chromium is spawned with `--remote-debugging-pipe`: it reads NUL-terminated JSON commands on fd 3
// and writes NUL-terminated replies and events on fd 4. One thread reads fd 4 and hands each reply to
// the task waiting for its `id`, and each event to the page its `sessionId` belongs to.

/// What went wrong talking to Chromium, in words a failing test can show as is.
struct BrowserError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

// MARK: - Browser

/// A headless Chromium process controlled over the DevTools pipe.
///
/// Launch one with ``launch(windowWidth:windowHeight:extraArguments:)``, open pages with ``newPage()``, and always
/// ``close()`` it: that ends Chromium and every process it started, and removes its temporary profile.
final class HeadlessChromium: Sendable {
    /// The Chromium to run: `/usr/bin/chromium-headless-shell` when installed, else a `chromium-headless-shell`
    /// or `chromium` found on `PATH`; `nil` when there is none.
    static var executable: String? {
        let fileManager = FileManager.default
        if fileManager.isExecutableFile(atPath: "/usr/bin/chromium-headless-shell") { return "/usr/bin/chromium-headless-shell" }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for name in ["chromium-headless-shell", "chromium"] {
            for directory in path.split(separator: ":") where !directory.isEmpty {
                let candidate = "\(directory)/\(name)"
                if fileManager.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// The command-line switches besides the profile directory and window size.
    ///
    /// Headless without GPU or sandbox (the tests run as root in a container), with every background
    /// service that might reach the network (updates, sync, metrics, safe browsing, proxies) turned off,
    /// and every host name but `localhost` failing to resolve, so a page cannot reach out either.
    static let switches = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-dev-shm-usage",
        "--remote-debugging-pipe",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-sync",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--disable-breakpad",
        "--metrics-recording-only",
        "--safebrowsing-disable-auto-update",
        "--no-proxy-server",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE ::1",
        "--password-store=basic",
        "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,CertificateTransparencyComponentUpdater,AutofillServerCommunication",
        "--disable-background-timer-throttling",
        "--disable-backgrounding-occluded-windows",
        "--disable-renderer-backgrounding",
        "--hide-scrollbars",
        "--mute-audio",
    ]

    /// How long a DevTools command may take before it fails.
    static let commandTimeout: Duration = .seconds(30)

    private let pid: pid_t
    private let connection: DevToolsConnection
    private let profileDirectory: String
    private let closed = Mutex(false)

    private init(pid: pid_t, connection: DevToolsConnection, profileDirectory: String) {
        self.pid = pid
        self.connection = connection
        self.profileDirectory = profileDirectory
    }

    /// Starts Chromium with a fresh profile and waits until it answers over the pipe.
    ///
    /// `extraArguments` go after ``switches``; Chromium takes the last of a repeated switch, so they can also
    /// replace one, e.g. `--host-resolver-rules=MAP go.example.com 127.0.0.1` to reach a local server by a
    /// made-up name. Throws when no Chromium is installed or when it does not come up within 20 seconds; the error then
    /// carries the end of Chromium's log.
    static func launch(windowWidth: Int = 1280, windowHeight: Int = 900, extraArguments: [String] = []) async throws -> HeadlessChromium {
        guard let executable else { throw BrowserError("no Chromium found: install chromium-headless-shell") }
        _ = ignoreBrokenPipes
        let profileDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ferry-chromium-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: profileDirectory, withIntermediateDirectories: true)
        let logPath = profileDirectory + "/chromium.log"
        let arguments = [executable] + switches + [
            "--user-data-dir=\(profileDirectory)/profile",
            "--window-size=\(windowWidth),\(windowHeight)",
        ] + extraArguments

        let spawned: (pid: pid_t, toChromium: Int32, fromChromium: Int32)
        do {
            spawned = try spawn(arguments, logPath: logPath)
        } catch {
            try? FileManager.default.removeItem(atPath: profileDirectory)
            throw error
        }
        let connection = DevToolsConnection(writing: spawned.toChromium, reading: spawned.fromChromium)
        let browser = HeadlessChromium(pid: spawned.pid, connection: connection, profileDirectory: profileDirectory)
        do {
            _ = try await connection.send("Browser.getVersion", timeout: .seconds(20))
        } catch {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)).map { String($0.suffix(2_000)) } ?? ""
            await browser.close()
            throw BrowserError("Chromium did not start (\(error)); its log ends with:\n\(log)")
        }
        return browser
    }

    /// Opens a blank tab, attaches to it and enables the Page, Runtime and Log domains.
    func newPage() async throws -> BrowserPage {
        let created = try await connection.send("Target.createTarget", ["url": "about:blank"])
        guard let targetID = created["targetId"]?.string else { throw BrowserError("Target.createTarget returned no targetId") }
        let attached = try await connection.send("Target.attachToTarget", ["targetId": .string(targetID), "flatten": true])
        guard let sessionID = attached["sessionId"]?.string else { throw BrowserError("Target.attachToTarget returned no sessionId") }
        let page = BrowserPage(connection: connection, sessionID: sessionID)
        connection.subscribe(session: sessionID) { [weak page] method, parameters in
            page?.receive(method, parameters)
        }
        for domain in ["Page", "Runtime", "Log"] {
            _ = try await page.send("\(domain).enable")
        }
        return page
    }

    /// Asks Chromium to quit, kills whatever of it is left after five seconds, reaps it and removes the profile.
    ///
    /// Safe to call more than once; pages of this browser fail from then on.
    func close() async {
        guard closed.withLock({ wasClosed in defer { wasClosed = true }; return !wasClosed }) else { return }
        connection.closing()
        if !Self.hasExited(pid) {
            _ = try? await connection.send("Browser.close", timeout: .seconds(5))
            let deadline = ContinuousClock.now + .seconds(5)
            while !Self.hasExited(pid), ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        finish()
    }

    /// The last resort when a test drops the browser without closing it: no process or directory outlives it.
    deinit {
        if closed.withLock({ wasClosed in defer { wasClosed = true }; return !wasClosed }) { finish() }
    }

    /// Kills Chromium's process group, reaps the process it started with, closes the pipe and removes the profile.
    private func finish() {
        // The group is killed while its leader is still unreaped, so its id cannot have been reused yet.
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        connection.closing()
        connection.shutDown()
        try? FileManager.default.removeItem(atPath: profileDirectory)
    }

    /// Whether the process has exited, without reaping it.
    private static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()  // zeroed: with WNOHANG it stays so while the process runs
        let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        return result == -1 ? errno == ECHILD : info.si_signo == SIGCHLD
    }

    /// Writing to a pipe whose reader is gone must fail with `EPIPE` rather than kill the test process.
    private static let ignoreBrokenPipes: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    /// Spawns Chromium in its own process group with the DevTools pipe on fds 3 and 4 and its output in `logPath`.
    ///
    /// Returns the process id and this side's ends of the two pipes.
    private static func spawn(_ arguments: [String], logPath: String) throws -> (pid: pid_t, toChromium: Int32, fromChromium: Int32) {
        let commands = try makePipe(), replies = try makePipe()  // commands: we write, Chromium reads; replies: the reverse
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // All four ends are close-on-exec and above fd 4, so these dup2s clear the flag on the copies
        // Chromium needs and nothing else of ours leaks into it.
        posix_spawn_file_actions_adddup2(&actions, commands.read, 3)
        posix_spawn_file_actions_adddup2(&actions, replies.write, 4)
        closeFrom(5, in: &actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), pipeSignal = sigset_t()
        sigemptyset(&noSignals)
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &pipeSignal)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + environment).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environment)
        closeDescriptor(commands.read)
        closeDescriptor(replies.write)
        guard result == 0 else {
            closeDescriptor(commands.write)
            closeDescriptor(replies.read)
            throw BrowserError("cannot run \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return (pid, commands.write, replies.read)
    }

    /// Adds "close every fd from `lowest` up" to `actions`, so descriptors other code left inheritable stay out of
    /// Chromium; glibc 2.34+ has this, but Swift's Glibc module does not import it, hence the lookup.
    private static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
        #if canImport(Glibc)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
        #endif
    }

    /// A pipe whose two ends are close-on-exec and numbered 10 or above.
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw BrowserError("pipe failed: \(String(cString: strerror(errno)))") }
        let moved = ends.map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
        ends.forEach(closeDescriptor)
        guard moved.allSatisfy({ $0 >= 0 }) else {
            moved.filter { $0 >= 0 }.forEach(closeDescriptor)
            throw BrowserError("fcntl failed: \(String(cString: strerror(errno)))")
        }
        return (moved[0], moved[1])
    }
}

// MARK: - Page

/// One tab of a ``HeadlessChromium``, driven through its flattened DevTools session.
///
/// Methods that take a selector use `document.querySelector` and throw when nothing matches.
final class BrowserPage: Sendable {
    /// How long ``goto(_:)`` and ``clickAndWaitForNavigation(_:)`` wait for the page to load.
    static let navigationTimeout: Duration = .seconds(15)

    private let connection: DevToolsConnection
    private let sessionID: String
    private let problems = Mutex<[String]>([])
    private let navigations = Mutex<[NavigationWatch]>([])

    fileprivate init(connection: DevToolsConnection, sessionID: String) {
        self.connection = connection
        self.sessionID = sessionID
    }

    deinit {
        connection.unsubscribe(session: sessionID)
    }

    /// Navigates to `url` and waits for the new document's load event, for at most ``navigationTimeout``.
    ///
    /// Throws when Chromium cannot load the address (`net::ERR_CONNECTION_REFUSED` and the like). A change of
    /// fragment only (same document, no load event) returns as soon as Chromium has applied it.
    func goto(_ url: String) async throws {
        try await navigating("loading \(url)") {
            let result = try await self.send("Page.navigate", ["url": .string(url)])
            if let error = result["errorText"]?.string, !error.isEmpty {
                throw BrowserError("could not load \(url): \(error)")
            }
            return result["loaderId"] != nil  // omitted for a same-document navigation
        }
    }

    /// Evaluates `javaScript` in the page, awaiting it if it is a promise.
    ///
    /// Returns a string result as is, `nil` for `undefined` and `null`, and any other value as JSON
    /// (`NaN`, `Infinity` and bigints as JavaScript writes them). Throws with the exception's text
    /// (and stack) when the script throws or the promise rejects.
    func evaluate(_ javaScript: String) async throws -> String? {
        let value = try await evaluateValue(javaScript)
        switch value {
        case nil, .null?: return nil
        case .string(let string)?: return string
        case let other?: return other.jsonText
        }
    }

    /// Sets the value of the input, textarea or select matching `selector` and dispatches `input` and `change`.
    ///
    /// Uses the element's native value setter, so frameworks that watch the property see the change.
    func fill(_ selector: String, _ value: String) async throws {
        let outcome = try await evaluateValue("""
            (() => {
              const element = document.querySelector(\(JSONValue.string(selector).jsonText));
              if (element === null) return "missing";
              const kind = [HTMLInputElement, HTMLTextAreaElement, HTMLSelectElement].find(type => element instanceof type);
              if (kind === undefined) return "not a form field: <" + element.localName + ">";
              element.focus();
              Object.getOwnPropertyDescriptor(kind.prototype, "value").set.call(element, \(JSONValue.string(value).jsonText));
              element.dispatchEvent(new Event("input", { bubbles: true }));
              element.dispatchEvent(new Event("change", { bubbles: true }));
              return "ok";
            })()
            """)
        try check(outcome, "fill", selector)
    }

    /// Clicks the element matching `selector` with `element.click()`.
    func click(_ selector: String) async throws {
        try check(try await evaluateValue(clickScript(selector)), "click", selector)
    }

    /// Clicks the element matching `selector` (a submit button, a link) and waits for the next page's load event.
    func clickAndWaitForNavigation(_ selector: String) async throws {
        try await navigating("clicking \(selector)") {
            let outcome: JSONValue?
            do {
                outcome = try await self.evaluateValue(self.clickScript(selector))
            } catch let error as BrowserError where error.description.contains("Execution context was destroyed") {
                outcome = .string("ok")  // the click navigated before the script could answer
            }
            try self.check(outcome, "click", selector)
            return true
        }
    }

    /// The `innerText` of the element matching `selector`.
    func text(_ selector: String) async throws -> String {
        let value = try await evaluateValue("document.querySelector(\(JSONValue.string(selector).jsonText))?.innerText ?? null")
        guard case .string(let text)? = value else { throw BrowserError("text: no element matches \(selector)") }
        return text
    }

    /// The address of the document in the page.
    func url() async throws -> String {
        guard let url = try await evaluate("location.href") else { throw BrowserError("location.href is empty") }
        return url
    }

    /// Waits until an element matches `selector`, checking every 50 ms.
    func waitFor(_ selector: String, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        let probe = "document.querySelector(\(JSONValue.string(selector).jsonText)) !== null"
        while true {
            do {
                if case .bool(true)? = try await evaluateValue(probe) { return }
            } catch let error as BrowserError where error.description.contains("context") {
                // While a navigation swaps documents there is briefly no execution context: "not yet", not an error.
            }
            guard ContinuousClock.now < deadline else {
                throw BrowserError("no element matched \(selector) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Writes a PNG of the whole page (beyond the viewport when it is taller) to `path`; with `maxHeight`, of its first
    /// `maxHeight` CSS pixels only (a long list's first screens, so that committed files stay small).
    func screenshot(to path: String, maxHeight: Double? = nil) async throws {
        var parameters: [String: JSONValue] = ["format": "png", "captureBeyondViewport": true]
        let metrics = try await send("Page.getLayoutMetrics")
        if let size = metrics["cssContentSize"], let width = size["width"]?.double, let height = size["height"]?.double,
           width > 0, height > 0 {
            parameters["clip"] = ["x": 0, "y": 0, "width": .number(width.rounded(.up)), "height": .number(min(maxHeight ?? .infinity, height.rounded(.up))), "scale": 1]
        }
        let result = try await send("Page.captureScreenshot", parameters)
        guard let encoded = result["data"]?.string, let png = Data(base64Encoded: encoded) else {
            throw BrowserError("Page.captureScreenshot returned no image")
        }
        try png.write(to: URL(fileURLWithPath: path))
    }

    /// The cookies Chromium would send to the page's current address.
    func cookies() async throws -> [(name: String, value: String, httpOnly: Bool, sameSite: String?)] {
        let result = try await send("Network.getCookies")
        guard case .array(let cookies)? = result["cookies"] else { throw BrowserError("Network.getCookies returned no cookies") }
        return cookies.map { cookie in
            (cookie["name"]?.string ?? "", cookie["value"]?.string ?? "", cookie["httpOnly"]?.bool ?? false, cookie["sameSite"]?.string)
        }
    }

    /// Uncaught exceptions, `console.error` and `console.assert` failures, and security reports such as
    /// Content-Security-Policy violations, in the order they happened since the page was opened.
    func consoleErrors() -> [String] {
        problems.withLock { $0 }
    }

    /// Lets scripts the test injects run under any Content-Security-Policy of the pages this tab opens from now on
    /// (axe-core compiles its templates at run time, which the dashboard's policy refuses).
    func bypassContentSecurityPolicy() async throws {
        _ = try await send("Page.setBypassCSP", ["enabled": true])
    }

    /// Makes the tab's viewport `width` × `height` CSS pixels (a phone: 375 × 812, with touch), until changed again.
    func setViewport(width: Int, height: Int, mobile: Bool) async throws {
        _ = try await send("Emulation.setDeviceMetricsOverride", [
            "width": .number(Double(width)), "height": .number(Double(height)), "deviceScaleFactor": .number(1), "mobile": .bool(mobile),
        ])
    }

    /// Presses and releases Tab, as a keyboard does (focus moves to the next element in the page's order).
    func pressTab() async throws {
        for type in ["rawKeyDown", "keyUp"] {
            _ = try await send("Input.dispatchKeyEvent", [
                "type": .string(type), "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, "nativeVirtualKeyCode": 9,
            ])
        }
    }

    /// Forgets the console errors seen so far (a test that walks many pages reads each page's own).
    func clearConsoleErrors() {
        problems.withLock { $0.removeAll() }
    }

    // MARK: Internals

    /// Sends a command in this page's session.
    fileprivate func send(_ method: String, _ parameters: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await connection.send(method, parameters, session: sessionID)
    }

    /// `Runtime.evaluate` returning the value itself: `nil` for `undefined`.
    private func evaluateValue(_ javaScript: String) async throws -> JSONValue? {
        let result = try await send("Runtime.evaluate", [
            "expression": .string(javaScript), "returnByValue": true, "awaitPromise": true, "userGesture": true,
        ])
        if let details = result["exceptionDetails"] {
            let text = details["exception"]?["description"]?.string
                ?? details["exception"]?["value"]?.jsonText
                ?? details["text"]?.string ?? "unknown error"
            throw BrowserError("JavaScript threw: \(text)")
        }
        guard let remote = result["result"] else { return nil }
        if let unserializable = remote["unserializableValue"]?.string { return .string(unserializable) }
        if remote["type"]?.string == "undefined" { return nil }
        return remote["value"] ?? (remote["subtype"]?.string == "null" ? .null : nil)
    }

    private func clickScript(_ selector: String) -> String {
        """
        (() => {
          const element = document.querySelector(\(JSONValue.string(selector).jsonText));
          if (element === null) return "missing";
          element.click();
          return "ok";
        })()
        """
    }

    /// Turns a helper script's answer into success or an error naming the action and selector.
    private func check(_ outcome: JSONValue?, _ action: String, _ selector: String) throws {
        switch outcome?.string {
        case "ok": return
        case "missing": throw BrowserError("\(action): no element matches \(selector)")
        case let other: throw BrowserError("\(action) \(selector): \(other ?? "no answer")")
        }
    }

    /// Runs `action` and then waits for the main frame to commit a new document and fire its load event.
    ///
    /// The watch is armed before the action so a fast load cannot be missed, and a load counts only after
    /// a main-frame commit so a previous document's late load event cannot end the wait.
    /// `action` returns whether there is a load to wait for.
    private func navigating(_ what: String, _ action: @Sendable () async throws -> Bool) async throws {
        let watch = NavigationWatch()
        navigations.withLock { $0.append(watch) }
        defer { navigations.withLock { $0.removeAll { $0 === watch } } }
        guard try await action() else { return }
        try await watch.loaded.value(timeout: Self.navigationTimeout) {
            BrowserError("\(what): the page did not finish loading within \(Self.navigationTimeout)")
        }
    }

    /// Handles an event of this page's session; runs on the connection's reading thread.
    fileprivate func receive(_ method: String, _ parameters: JSONValue) {
        switch method {
        case "Runtime.exceptionThrown":
            // As DevTools shows it: "Uncaught" or "Uncaught (in promise)", then the error and its stack.
            let details = parameters["exceptionDetails"]
            let parts = [details?["text"]?.string, details?["exception"]?["description"]?.string].compactMap { $0 }
            record(parts.isEmpty ? "uncaught exception" : parts.joined(separator: " "))
        case "Runtime.consoleAPICalled":
            guard let type = parameters["type"]?.string, type == "error" || type == "assert" else { return }
            let words: [String] = parameters["args"]?.array?.map { argument in
                argument["value"].map { $0.string ?? $0.jsonText } ?? argument["description"]?.string ?? argument["type"]?.string ?? "?"
            } ?? []
            record("console.\(type): " + words.joined(separator: " "))
        case "Log.entryAdded":
            guard let entry = parameters["entry"], let source = entry["source"]?.string,
                  source == "security" || source == "violation", entry["level"]?.string != "verbose" else { return }
            record("\(source): \(entry["text"]?.string ?? "")")
        case "Page.frameNavigated", "Page.loadEventFired", "Inspector.targetCrashed", "Inspector.detached":
            for watch in navigations.withLock({ $0 }) { watch.receive(method, parameters) }
        default:
            return
        }
    }

    private func record(_ problem: String) {
        problems.withLock { $0.append(problem) }
    }
}

/// Follows one navigation of a page: a main-frame commit, then a load event.
private final class NavigationWatch: Sendable {
    let loaded = OneShot<Void>()
    private let committed = Mutex(false)

    func receive(_ method: String, _ parameters: JSONValue) {
        switch method {
        case "Page.frameNavigated":
            guard let frame = parameters["frame"], frame["parentId"] == nil else { return }
            if let url = frame["url"]?.string, url.hasPrefix("chrome-error:") {
                let address = frame["unreachableUrl"]?.string ?? "the page"
                loaded.resolve(.failure(BrowserError("could not load \(address): Chromium showed its error page")))
            }
            committed.withLock { $0 = true }
        case "Page.loadEventFired":
            if committed.withLock({ $0 }) { loaded.resolve(.success(())) }
        default:
            let reason = parameters["reason"]?.string.map { ": \($0)" } ?? ""
            loaded.resolve(.failure(BrowserError("the page went away (\(method)\(reason))")))
        }
    }
}

// MARK: - Connection

/// The DevTools pipe: numbered commands out, replies matched by id and events routed by session back in.
private final class DevToolsConnection: Sendable {
    typealias EventHandler = @Sendable (_ method: String, _ parameters: JSONValue) -> Void

    private struct State {
        var nextID = 1
        var pending: [Int: OneShot<JSONValue>] = [:]
        var subscribers: [String: EventHandler] = [:]
        var failure: BrowserError?
        /// Set by ``closing()``: the pipe's end is then expected and reported as the browser being closed.
        var closing = false
    }

    private let state = Mutex(State())
    /// This side's end of the command pipe; the lock keeps concurrent messages from interleaving.
    private let output: Mutex<Int32>
    private let input: Int32

    init(writing: Int32, reading: Int32) {
        output = Mutex(writing)
        input = reading
        let thread = Thread { [self] in readReplies() }
        thread.name = "chromium-devtools-reader"
        thread.start()
    }

    /// Sends `method` (in `session`, if given) and returns its `result`, throwing the protocol's error if any.
    func send(_ method: String, _ parameters: [String: JSONValue] = [:], session: String? = nil,
              timeout: Duration = HeadlessChromium.commandTimeout) async throws -> JSONValue {
        let reply = OneShot<JSONValue>()
        let id = try state.withLock { state in
            if let failure = state.failure { throw failure }
            defer { state.nextID += 1 }
            state.pending[state.nextID] = reply
            return state.nextID
        }
        defer { _ = state.withLock { $0.pending.removeValue(forKey: id) } }
        var message: [String: JSONValue] = ["id": .number(Double(id)), "method": .string(method), "params": .object(parameters)]
        if let session { message["sessionId"] = .string(session) }
        try writeMessage(JSONValue.object(message).jsonData + [0])
        let answer = try await reply.value(timeout: timeout) {
            BrowserError("\(method) got no answer within \(timeout)")
        }
        if let error = answer["error"] {
            let detail = error["data"]?.string.map { " (\($0))" } ?? ""
            throw BrowserError("\(method) failed: \(error["message"]?.string ?? error.jsonText)\(detail)")
        }
        return answer["result"] ?? .object([:])
    }

    /// Notes that the browser is being closed on purpose, so the end of the pipe is not reported as a crash.
    func closing() {
        state.withLock { $0.closing = true }
    }

    func subscribe(session: String, _ handler: @escaping EventHandler) {
        state.withLock { $0.subscribers[session] = handler }
    }

    func unsubscribe(session: String) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: session) }
    }

    /// Fails every waiting command and every later one with `error`, tells every session it is detached
    /// (so no page waits out a timeout for a load that cannot come), and closes this side's write end.
    /// Without an `error`, says the browser was closed or, if it was not being closed, that it went away.
    func shutDown(_ error: BrowserError? = nil) {
        let (waiting, subscribers, error) = state.withLock { state in
            if state.failure == nil {
                state.failure = error ?? BrowserError(state.closing
                    ? "the browser was closed" : "Chromium closed the DevTools pipe (it exited or crashed)")
            }
            let error = state.failure!
            defer { state.pending = [:]; state.subscribers = [:] }
            return (Array(state.pending.values), Array(state.subscribers.values), error)
        }
        waiting.forEach { $0.resolve(.failure(error)) }
        subscribers.forEach { $0("Inspector.detached", ["reason": .string(error.description)]) }
        output.withLock { fd in
            if fd >= 0 { closeDescriptor(fd) }
            fd = -1
        }
    }

    private func writeMessage(_ bytes: [UInt8]) throws {
        try output.withLock { fd in
            guard fd >= 0 else { throw BrowserError("the browser was closed") }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw BrowserError("cannot write to Chromium: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    /// The reading thread: splits fd 4 into NUL-terminated messages until Chromium closes it.
    private func readReplies() {
        var buffer: [UInt8] = []
        var scanned = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[0..<count])
            var start = 0
            while let end = buffer[scanned...].firstIndex(of: 0) {
                dispatch(buffer[start..<end])
                start = end + 1
                scanned = start
            }
            if start > 0 { buffer.removeFirst(start) }
            scanned = buffer.count
        }
        closeDescriptor(input)
        shutDown()
    }

    private func dispatch(_ bytes: ArraySlice<UInt8>) {
        guard let message = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else { return }
        if let id = message["id"]?.double {
            let reply = state.withLock { $0.pending.removeValue(forKey: Int(id)) }
            reply?.resolve(.success(message))
        } else if let method = message["method"]?.string, let session = message["sessionId"]?.string {
            let handler = state.withLock { $0.subscribers[session] }
            handler?(method, message["params"] ?? .object([:]))
        } else if message["method"]?.string == "Target.detachedFromTarget", let session = message["params"]?["sessionId"]?.string {
            // A session that ends (its tab closed or crashed) hears it in its own terms.
            let handler = state.withLock { $0.subscribers.removeValue(forKey: session) }
            handler?("Inspector.detached", ["reason": "the tab was closed or crashed"])
        }
    }
}

// MARK: - Plumbing

/// `close(2)`, under a name the types' own `close` methods do not shadow.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// A value delivered once, from any thread, to one task that may start waiting before or after it arrives.
private final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, any Error>)
        case done(Result<Value, any Error>)
    }

    private let state = Mutex(State.empty)

    /// Delivers `result`; later calls are ignored.
    func resolve(_ result: Result<Value, any Error>) {
        let waiter: CheckedContinuation<Value, any Error>? = state.withLock { state in
            switch state {
            case .empty:
                state = .done(result)
                return nil
            case .waiting(let continuation):
                state = .done(result)
                return continuation
            case .done:
                return nil
            }
        }
        waiter?.resume(with: result)
    }

    /// Waits for the value, failing with `timeoutError()` after `timeout` or when the task is cancelled.
    func value(timeout: Duration, _ timeoutError: @escaping @Sendable () -> BrowserError) async throws -> Value {
        let timer = Task { [self] in
            try await Task.sleep(for: timeout)
            resolve(.failure(timeoutError()))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Value, any Error>? = state.withLock { state in
                    if case .done(let result) = state { return result }
                    state = .waiting(continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            resolve(.failure(CancellationError()))
        }
    }
}

/// A JSON value that can cross tasks; what DevTools messages are parsed into and built from.
enum JSONValue: Sendable, Equatable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByDictionaryLiteral {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .number(Double(value)) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let number):
            // Whole numbers go out without a fraction: ids and pixel sizes read better, and match what JavaScript prints.
            if number.rounded() == number, abs(number) < 1e15 { try container.encode(Int64(number)) } else { try container.encode(number) }
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var string: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    var double: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    var bool: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// Compact JSON with sorted keys; also a safe way to write a string literal into JavaScript.
    var jsonText: String {
        String(decoding: jsonData, as: UTF8.self)
    }

    var jsonData: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }
}
#endif
