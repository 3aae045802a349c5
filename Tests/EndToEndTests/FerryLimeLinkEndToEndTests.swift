#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryKit
import FerryLimeLink
import FerryServer
import FerryStore
import Foundation
import Testing

/// FerryLimeLink: the LimeLink SDK's calls, as seed 002's own samples make them (LimeLinkSeed/), against the real
/// server on a real port over URLSession.
// One at a time: FerryLimeLink's settings are the process's.
@Suite("FerryLimeLink against the real server", .takesTurns, .serialized)
struct FerryLimeLinkEndToEndTests {
    @Test func theSeedsSamplesRunUnchangedAgainstFerry() async throws {
        let server = try await FerryKitEndToEndTests.Server.make()
        defer { server.remove() }
        try await server.run { base in
            let promo = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "promo")
            // The stats sample reports `your_url`: a link of that slug counts it.
            let yours = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "your_url")
            let storage = InMemoryStorage()
            try FerryLimeLink.configure(serverURL: base, publishableKey: server.publishable, transport: URLSessionTransport(timeout: 10), storage: storage,
                                        device: ClickingIPhone())
            SeedRecorder.shared.reset()

            // A Universal Link in LimeLink's form, on a subdomain of a link domain, with a query: the app URI with the
            // query carried over.
            await SeedUniversalLink.handle(URL(string: "https://abc123.localhost/link/promo?campaign=summer&source=email")!)
            let opened = try #require(try await SeedRecorder.shared.line(startingWith: "Universal Link URI: "))
            let uri = try #require(URLComponents(string: String(opened.dropFirst("Universal Link URI: ".count))))
            #expect(uri.scheme == "example" && uri.host == "product" && uri.path == "/42", "\(opened)")
            #expect(uri.queryItems?.contains(URLQueryItem(name: "campaign", value: "summer")) == true
                    && uri.queryItems?.contains(URLQueryItem(name: "source", value: "email")) == true, "\(opened)")
            // Ferry's own short URL opens the same; a slug nobody made does not.
            SeedRecorder.shared.reset()
            await SeedUniversalLink.handle(base.appendingPathComponent("promo"))
            #expect(try await SeedRecorder.shared.line(startingWith: "Universal Link URI: example://product/42") != nil)
            SeedRecorder.shared.reset()
            await SeedUniversalLink.handle(URL(string: "https://abc123.localhost/link/nothing-here")!)
            #expect(try await SeedRecorder.shared.line(startingWith: "Failed to receive Universal Link URI") != nil)

            // The deferred link: an iPhone taps the link, installs, and on its first launch the sample asks.
            _ = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: "promo")
            SeedRecorder.shared.reset()
            await MainActor.run { SeedDeferredDeepLink.ViewController().viewDidLoad() }
            let deferred = try #require(try await SeedRecorder.shared.line(startingWith: "✅ Deferred Deep Link URI: "), "\(SeedRecorder.shared.printed)")
            #expect(deferred.hasPrefix("✅ Deferred Deep Link URI: example://product/42"), "\(deferred)")
            #expect(SeedRecorder.shared.opened.first?.absoluteString.hasPrefix("example://product/42") == true)
            // Not the first launch any more: the sample asks nothing.
            SeedRecorder.shared.reset()
            await MainActor.run { SeedDeferredDeepLink.ViewController().viewDidLoad() }
            try await Task.sleep(for: .milliseconds(300))
            #expect(SeedRecorder.shared.printed.isEmpty)
            // A device that clicked nothing is told so.
            try FerryLimeLink.configure(serverURL: base, publishableKey: server.publishable, transport: nil, storage: InMemoryStorage(), device: ElsewherePhone())
            await MainActor.run { SeedDeferredDeepLink.ViewController().viewDidLoad() }
            #expect(try await SeedRecorder.shared.line(startingWith: "❌ No deferred deep link found or error: No matching deferred deep link") != nil,
                    "\(SeedRecorder.shared.printed)")

            // The statistics sample, with the LimeLink key the app's code still carries: counted on `your_url` with the
            // configured key.
            await MainActor.run { SeedSaveStatistics.ViewController().viewDidLoad() }
            await MainActor.run { SeedHandleIntent.ViewController().viewDidLoad() }
            var counted = false
            for _ in 0..<250 where !counted {
                let (status, data) = try await FerryKitEndToEndTests.http("GET", base.appendingPathComponent("v1/links/\(yours.id)/stats"),
                                                                          headers: ["Authorization": "Bearer \(server.secret)"])
                #expect(status == 200)
                let report = try FerryJSON.makeDecoder().decode(StatsReport.self, from: data)
                counted = report.events["link_stats"] == 1
                if !counted { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(counted, "saveLimeLinkStatus was not counted on your_url")
            let installs = try await FerryKitEndToEndTests.http("GET", base.appendingPathComponent("v1/links/\(promo.id)/stats"),
                                                                headers: ["Authorization": "Bearer \(server.secret)"])
            let promoReport = try FerryJSON.makeDecoder().decode(StatsReport.self, from: installs.1)
            #expect(promoReport.totals.installs == 1 && promoReport.events["link_open"] ?? 0 >= 2, "\(promoReport.totals) \(promoReport.events)")
        }
    }

    @Test func reportingAnOpenLeavesTheFirstLaunchToTheApp() async throws {
        let storage = InMemoryStorage()
        try FerryLimeLink.configure(serverURL: URL(string: "http://127.0.0.1:9")!, publishableKey: "fk_live_" + String(repeating: "a", count: 32),
                                    transport: nil, storage: storage, device: nil)
        saveLimeLinkStatus(url: URL(string: "https://go.example.com/promo")!, privateKey: "your_private_key")
        saveLimeLinkStatus(url: URL(string: "https://go.example.com/promo")!, privateKey: "your_private_key")
        #expect(LinkStats.isFirstLaunch())
        #expect(!LinkStats.isFirstLaunch() && !LinkStats.isFirstLaunch())
        #expect(storage.keys.contains("limelink.firstLaunchSeen"))
    }

    @Test func pathsAreReadAsLimeLinkReadsThem() {
        // The seed's forms: https://{sub}.domain/link/{suffix}, with and without a query.
        for text in ["https://abc123.go.example.com/link/Spring-Sale", "https://abc123.go.example.com/link/Spring-Sale?test=1&value=2"] {
            let path = parsePathParams(from: URL(string: text)!)
            #expect(path == PathParamResponse(mainPath: "link", subPath: nil), "\(text)")
        }
        #expect(parsePathParams(from: URL(string: "https://go.example.com/Spring/Offers/Shoes?x=1")!) == PathParamResponse(mainPath: "Spring", subPath: "Shoes"))
        #expect(parsePathParams(from: URL(string: "https://go.example.com/link/Spring/Shoes")!) == PathParamResponse(mainPath: "link", subPath: "Shoes"))
        #expect(parsePathParams(from: URL(string: "https://go.example.com/")!) == PathParamResponse(mainPath: "", subPath: nil))
        #expect(parsePathParams(from: URL(string: "your_url")!) == PathParamResponse(mainPath: "your_url", subPath: nil))
        #expect(parsePathParams(from: nil) == PathParamResponse(mainPath: "", subPath: ""))
        // FerryKit's own reading of the same URL differs, which is why a moving app keeps LimeLink's.
        let ferry = Ferry.parsePathParams(from: URL(string: "https://go.example.com/link/Spring/Shoes")!)
        #expect(ferry.mainPath != "link")
    }

    @Test func aKeyOrURLThatIsNotFerrysIsRefused() throws {
        for (url, key, code) in [("ftp://go.example.com", "fk_live_" + String(repeating: "a", count: 32), FerryError.Code.invalidConfiguration),
                                 ("https://go.example.com", "your_private_key", .invalidAPIKey),
                                 ("https://go.example.com", "fs_live_" + String(repeating: "a", count: 32), .secretKeyInApp)] {
            #expect(throws: FerryError.self, "\(url) \(key)") {
                do { try FerryLimeLink.configure(serverURL: URL(string: url)!, publishableKey: key) } catch let error as FerryError {
                    #expect(error.code == code)
                    throw error
                }
            }
        }
    }
}

/// An iPhone that clicked nothing: another screen and system than the clicking one.
struct ElsewherePhone: DeviceSignalsProvider {
    func signals() async -> DeviceSignals {
        DeviceSignals(platform: "ios", osVersion: "16.2", model: "iPhone14,7", screenWidth: 390, screenHeight: 844, screenScale: 3,
                      timeZone: "Asia/Seoul", timeZoneOffsetSeconds: 32_400, languages: ["ko-KR"])
    }
    func installIdentifier() async -> String? { nil }
}
#endif
