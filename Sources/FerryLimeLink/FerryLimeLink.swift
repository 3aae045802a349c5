import FerryKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the LimeLink-compatible calls go: your Ferry server and the app's publishable key.
///
/// An app moving from the LimeLink SDK changes `import LimelinkIOSSDK` to `import FerryLimeLink` and adds two keys to
/// its Info.plist, nothing else:
///
/// ```xml
/// <key>FerryServerURL</key>        <string>https://go.example.com</string>
/// <key>FerryPublishableKey</key>   <string>fk_live_…</string>
/// ```
///
/// An app that prefers code calls ``configure(serverURL:publishableKey:)`` once at launch, before any other call;
/// it takes precedence over the Info.plist. Each call reads the settings as they are when it is made.
public enum FerryLimeLink {
    /// The Info.plist key of the server's URL: one of the app's link domains, such as `https://go.example.com`.
    public static let serverURLInfoKey = "FerryServerURL"
    /// The Info.plist key of the app's publishable key (`fk_live_…` or `fk_test_…`).
    public static let publishableKeyInfoKey = "FerryPublishableKey"

    /// Sets the server and key in code, instead of the Info.plist.
    ///
    /// - Throws: ``FerryError`` with ``FerryError/Code/invalidConfiguration`` for a URL that is not http(s) with a
    ///   host, ``FerryError/Code/invalidAPIKey`` for a key that is not a Ferry publishable key, and
    ///   ``FerryError/Code/secretKeyInApp`` for a secret key. Nothing is changed then.
    public static func configure(serverURL: URL, publishableKey: String) throws(FerryError) {
        try configure(serverURL: serverURL, publishableKey: publishableKey, transport: nil, storage: nil, device: nil)
    }

    /// ``configure(serverURL:publishableKey:)`` with the transport, storage and device signals to use (tests).
    package static func configure(serverURL: URL, publishableKey: String, transport: (any FerryTransport)?, storage: (any FerryStorage)?,
                                  device: (any DeviceSignalsProvider)?) throws(FerryError) {
        let settings = try Settings(serverURL: serverURL, publishableKey: publishableKey)
        state.withLock { state in
            state.settings = settings
            if let transport { state.transport = transport }
            if let storage { state.storage = storage }
            if let device { state.device = device }
        }
    }

    /// The server and key to use now: those configured, else the Info.plist's; an error says what is missing.
    static func settings() throws(FerryError) -> Settings {
        if let settings = state.withLock({ $0.settings }) { return settings }
        let info = Bundle.main.infoDictionary ?? [:]
        guard let url = (info[serverURLInfoKey] as? String).flatMap({ URL(string: $0.trimmingCharacters(in: .whitespaces)) }),
              let key = info[publishableKeyInfoKey] as? String else {
            throw FerryError(.notConfigured, "FerryLimeLink is not configured: add \(serverURLInfoKey) and \(publishableKeyInfoKey) to the "
                + "app's Info.plist, or call FerryLimeLink.configure(serverURL:publishableKey:) at launch")
        }
        let settings = try Settings(serverURL: url, publishableKey: key)
        state.withLock { $0.settings = settings }
        return settings
    }

    static var transport: any FerryTransport { state.withLock { $0.transport } }
    static var storage: any FerryStorage { state.withLock { $0.storage } }
    static var device: any DeviceSignalsProvider { state.withLock { $0.device } }

    /// The checked settings.
    struct Settings: Sendable {
        var serverURL: URL
        var publishableKey: String

        init(serverURL: URL, publishableKey: String) throws(FerryError) {
            guard let scheme = serverURL.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = serverURL.host, !host.isEmpty else {
                throw FerryError(.invalidConfiguration, "the server URL must be an http or https URL with a host, such as https://go.example.com")
            }
            let key = publishableKey.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let format = APIKeyFormat(parsing: key) else {
                throw FerryError(.invalidAPIKey, "the key is not a Ferry publishable key: expected fk_live_ or fk_test_ followed by 32 letters and digits")
            }
            guard format.kind == .publishable else {
                throw FerryError(.secretKeyInApp, "\(format.prefix)… is a secret server key: give the app a publishable key (ferry key create --kind publishable)")
            }
            self.serverURL = serverURL
            self.publishableKey = key
        }

        /// The URL of a route under the server's URL (`api/v1/…`), with a query.
        func url(_ path: String, query: [URLQueryItem] = []) -> URL? {
            var base = serverURL.absoluteString
            if !base.hasSuffix("/") { base += "/" }
            guard var components = URLComponents(string: base + path) else { return nil }
            if !query.isEmpty { components.queryItems = query }
            // `+` stands for a space in the server's query reading: a literal plus must be encoded.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            return components.url
        }

        /// A request to the server with the key and Ferry's headers.
        func request(_ url: URL, method: String = "GET", json: Data? = nil) -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.setValue("Bearer \(publishableKey)", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            request.setValue("FerryLimeLink/\(Ferry.sdkVersion)", forHTTPHeaderField: "User-Agent")
            if let json {
                request.httpBody = json
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            return request
        }
    }

    private struct State: Sendable {
        var settings: Settings?
        var transport: any FerryTransport = URLSessionTransport(timeout: 10)
        var storage: any FerryStorage = UserDefaultsStorage(suiteName: "dev.ferry.limelink")
        #if canImport(UIKit) && !os(watchOS)
        var device: any DeviceSignalsProvider = UIKitDeviceSignalsProvider()
        #else
        var device: any DeviceSignalsProvider = PortableDeviceSignalsProvider()
        #endif
    }

    private static let state = Locked(State())

    /// Calls `body` on the main actor: where every completion of FerryLimeLink is called.
    static func onMain(_ body: @escaping @MainActor @Sendable () -> Void) {
        Task { @MainActor in body() }
    }

    /// The answer's JSON object, when the status is 200.
    static func object(_ answer: (Data, HTTPURLResponse)) -> [String: Any]? {
        guard answer.1.statusCode == 200 else { return nil }
        return (try? JSONSerialization.jsonObject(with: answer.0)) as? [String: Any]
    }

    /// The server's error message of an answer, or its status.
    static func message(_ answer: (Data, HTTPURLResponse)) -> String {
        let object = (try? JSONSerialization.jsonObject(with: answer.0)) as? [String: Any]
        let error = object?["error"] as? [String: Any]
        return (error?["message"] as? String) ?? (object?["message"] as? String) ?? "the server answered \(answer.1.statusCode)"
    }
}
