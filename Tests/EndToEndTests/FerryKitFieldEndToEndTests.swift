#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryKit
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Synchronization
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps every request the real URLSession transport carries, to see what left the device.
final class RecordingTransport: FerryTransport, @unchecked Sendable {
    // @unchecked: `requests` is only touched under `lock`.
    private let inner = URLSessionTransport(timeout: 10)
    private let lock = NSLock()
    private var requests: [URLRequest] = []
    var sent: [URLRequest] { lock.withLock { requests } }
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        lock.withLock { requests.append(request) }
        return try await inner.send(request)
    }
}

/// FerryKit as it behaves in the field, against the real server on a real port: the signals an app chooses to send,
/// the install id kept out of URLs, and links tapped while the server cannot answer.
@Suite("FerryKit in the field, against the real server", .takesTurns)
struct FerryKitFieldEndToEndTests {
    typealias Server = FerryKitEndToEndTests.Server

    /// With fewer signals the server still answers the first launch (matched or organic, never with another link),
    /// and what was sent holds only what the choice allows.
    @Test(arguments: [DeviceSignalsPolicy.minimal, .none])
    func anAppThatSendsFewerSignalsIsStillAnswered(policy: DeviceSignalsPolicy) async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            let created = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "fewer")
            let clickID = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: "fewer")
            for _ in 0..<250 where try await server.store.click(id: clickID) == nil { try await Task.sleep(nanoseconds: 20_000_000) }

            let transport = RecordingTransport()
            var options = FerryKitEndToEndTests.options(base, storage: InMemoryStorage(), transport: transport, device: ClickingIPhone())
            options.deviceSignals = policy
            let ferry = try Ferry(apiKey: server.publishable, options: options)
            let link = try await ferry.checkDeferredDeepLink()
            let match = try #require(transport.sent.first { $0.url?.path == FerryRoutes.attributionMatch })
            let data = try #require(match.httpBody)
            let body = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let signals = (body["signals"] as? [String: Any]) ?? [:]
            if policy == .minimal {
                #expect(Set(signals.keys) == ["platform", "osVersion", "languages"])
            } else {
                #expect(signals.isEmpty)
            }
            // Fewer signals find fewer installs (see the iOS guide's figures), never another link.
            #expect(link == nil || link?.linkID == created.id)
            // Either way the server answered this install and kept its answer.
            let installID = await ferry.installID()
            let apps = try await FerryAdmin(store: server.store).listApps()
            #expect(try await server.store.attribution(appID: try #require(apps.first).id, environment: .live, installID: installID) != nil)
        }
    }

    /// Copy to open: the page's button puts the click on the pasteboard as a link on the app's domain; the app that
    /// is handed that link (pasted, or read because iOS reported a URL) is matched to the click with certainty, even
    /// when it sends no device signal at all.
    @Test func theLinkThePageCopiesMatchesTheInstallWithCertainty() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        let admin = FerryAdmin(store: server.store)
        let app = try #require(try await admin.listApps().first)
        _ = try await admin.updateApp(id: app.id) { $0.attribution.copyToOpen = true }
        try await server.run { base in
            let created = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "copied")
            let (status, page) = try await FerryKitEndToEndTests.http("GET", base.appendingPathComponent("copied"),
                                                                     headers: ["User-Agent": FerryKitEndToEndTests.iPhoneSafari])
            #expect(status == 200)
            let html = String(decoding: page, as: UTF8.self)
            let clickID = String(html[try #require(html.range(of: "data-click=\"")).upperBound...].prefix(26))
            let copied = String(html[try #require(html.range(of: "data-token-link=\"")).upperBound...].prefix { $0 != "\"" })
            #expect(copied == "http://127.0.0.1/copied?ferry_click_id=\(clickID)")
            #expect(html.contains(#"data-token="ferry:\#(clickID)""#), "older apps read the token as text")
            for _ in 0..<250 where try await server.store.click(id: clickID) == nil { try await Task.sleep(nanoseconds: 20_000_000) }

            var options = FerryKitEndToEndTests.options(base, storage: InMemoryStorage(), device: ClickingIPhone())
            options.deviceSignals = .none
            let ferry = try Ferry(apiKey: server.publishable, options: options)
            let link = try #require(try await ferry.checkDeferredDeepLink(pasted: [copied]))
            #expect(link.linkID == created.id && link.matchType == .deterministic && link.confidence == 1)
        }
    }

    /// The app deleted and installed again: FerryKit goes by the install id the lasting storage kept (though the IDFV
    /// changed), its first launch is a `reinstall`, and the server answers it afresh, certain of the click made in the
    /// browser whose click led the first installation.
    @Test func aReinstallGoesByItsInstallIDAndIsAnsweredFromTheBrowserThatLedIt() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        let admin = FerryAdmin(store: server.store)
        let app = try #require(try await admin.listApps().first)
        _ = try await admin.updateApp(id: app.id) { $0.attribution.copyToOpen = true }
        try await server.run { base in
            let created = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "again")
            let browser = "fb_" + String(repeating: "Rb7", count: 7) + "x"
            let first = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: "again", browser: browser)
            for _ in 0..<250 where try await server.store.click(id: first) == nil { try await Task.sleep(nanoseconds: 20_000_000) }

            let keychain = InMemoryStorage()
            var options = FerryKitEndToEndTests.options(base, storage: InMemoryStorage(), device: ClickingIPhone())
            options.lastingStorage = keychain
            let installed = try Ferry(apiKey: server.publishable, options: options)
            let events = Mutex<[String]>([])
            let subscription = installed.onEvent { event in events.withLock { $0.append(event.name.rawValue) } }
            let copied = try #require(try await installed.checkDeferredDeepLink(pasted: ["\(base.absoluteString)/again?ferry_click_id=\(first)"]))
            #expect(copied.matchType == .deterministic)
            let installID = await installed.installID()
            #expect(events.withLock { $0 }.prefix(2) == ["install", "open"])
            subscription.cancel()

            // Days later the app is gone (its UserDefaults with it, and the IDFV: no other app of the maker stayed); the
            // person taps the link again in the same browser and installs the app again.
            let again = try await FerryKitEndToEndTests.clickAsIPhone(base, slug: "again", browser: browser)
            for _ in 0..<250 where try await server.store.click(id: again) == nil { try await Task.sleep(nanoseconds: 20_000_000) }
            var fresh = FerryKitEndToEndTests.options(base, storage: InMemoryStorage(), device: ClickingIPhone())
            fresh.lastingStorage = keychain
            let reinstalled = try Ferry(apiKey: server.publishable, options: fresh)
            let launched = Mutex<[String]>([])
            let watching = reinstalled.onEvent { event in launched.withLock { $0.append(event.name.rawValue) } }
            #expect(await reinstalled.installID() == installID)
            #expect(reinstalled.isFirstLaunch)
            #expect(launched.withLock { $0 }.prefix(2) == ["reinstall", "open"])
            watching.cancel()
            let link = try #require(try await reinstalled.checkDeferredDeepLink())
            #expect(link.linkID == created.id && link.matchType == .deterministic && link.confidence == 1)
            #expect(try await server.store.attribution(appID: app.id, environment: .live, installID: installID)?.clickID == again)
            // The first installation's answer stays its own.
            let answers = try await server.store.exportAttributions(appID: app.id, environment: .live, from: .distantPast, to: .distantFuture, after: nil, limit: 10)
            #expect(answers.filter { $0.installID == installID }.compactMap(\.clickID).sorted() == [first, again].sorted())
        }
    }

    /// The install that opens a link is sent in a header, never in the URL, and the server records the open under it.
    @Test func theInstallIDOfAnOpenTravelsInAHeader() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            let created = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "header")
            let transport = RecordingTransport()
            let ferry = try Ferry(apiKey: server.publishable,
                                  options: FerryKitEndToEndTests.options(base, storage: InMemoryStorage(), transport: transport, device: ClickingIPhone()))
            _ = try await ferry.validateKey()
            let opened = try #require(try await ferry.handleDeepLink(URL(string: "\(base.absoluteString)/header")!))
            #expect(opened.linkID == created.id && opened.isResolved)
            let installID = await ferry.installID()
            let resolve = try #require(transport.sent.first { $0.url?.path.hasPrefix(FerryRoutes.resolveURL) == true })
            #expect(resolve.value(forHTTPHeaderField: FerryRoutes.installIDHeader) == installID)
            #expect(resolve.url?.query?.contains(installID) != true)
            #expect(transport.sent.allSatisfy { $0.url?.absoluteString.contains(installID) != true })
            let apps = try await FerryAdmin(store: server.store).listApps()
            #expect(try await server.store.eventCount(appID: try #require(apps.first).id, name: "link_open") == 1)
        }
    }

    /// The network goes away while a link is tapped: the app gets the link read from its URL at once, and when the
    /// network is back the open reaches the server and the touch gets the link's data.
    @Test func aLinkTappedOfflineIsOpenedOnTheServerOnceTheNetworkIsBack() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            let created = try await FerryKitEndToEndTests.createLink(base, secret: server.secret, slug: "offline")
            let transport = SwitchableTransport()
            var options = FerryKitEndToEndTests.options(base, storage: InMemoryStorage(), transport: transport, device: ClickingIPhone())
            options.linkResolutionTimeout = 2
            options.validatesKeyOnLaunch = false
            options.linkDomains = ["127.0.0.1"]
            let ferry = try Ferry(apiKey: server.publishable, options: options)
            let app = try #require(try await FerryAdmin(store: server.store).listApps().first)

            transport.offline = true
            let url = URL(string: "\(base.absoluteString)/offline?utm_source=sms&coupon=TEN")!
            let offline = try #require(try await ferry.handleDeepLink(url))
            #expect(!offline.isResolved && offline.slug == "offline" && offline.linkID == nil)
            #expect(offline.params == ["coupon": "TEN"] && offline.utm.source == "sms")
            #expect(ferry.attribution.lastTouch?.linkID == nil)
            #expect(try await server.store.eventCount(appID: app.id, name: "link_open") == 0)

            transport.offline = false
            await ferry.flushEvents()
            var recorded = false
            for _ in 0..<250 {
                recorded = try await server.store.eventCount(appID: app.id, name: "link_open") == 1 && ferry.attribution.lastTouch?.linkID == created.id
                if recorded { break }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            #expect(recorded, "the open reached the server and the touch has the link")
            // Sent once: another flush sends nothing more.
            await ferry.flushEvents()
            #expect(try await server.store.eventCount(appID: app.id, name: "link_open") == 1)
        }
    }

    /// A Universal Link on the app's domain that is no link of its own (an app's own pattern) is handed to the app
    /// as it is, without asking the server.
    @Test func aURLOfTheAppsOwnOnTheLinkDomainIsAnOpenWithoutARequest() async throws {
        let server = try await Server.make()
        defer { server.remove() }
        try await server.run { base in
            let transport = RecordingTransport()
            let ferry = try Ferry(apiKey: server.publishable,
                                  options: FerryKitEndToEndTests.options(base, storage: InMemoryStorage(), transport: transport, device: ClickingIPhone()))
            _ = try await ferry.validateKey()
            let before = transport.sent.count
            let opened = try #require(try await ferry.handleDeepLink(URL(string: "\(base.absoluteString)/?dl_target=paywall&utm_source=newsletter")!))
            #expect(opened.source == .universalLink && opened.params == ["dl_target": "paywall"] && opened.utm.source == "newsletter")
            #expect(ferry.attribution.firstTouch?.target == "paywall" && ferry.attribution.firstTouch?.source == "newsletter")
            #expect(transport.sent.count == before, "no request for a URL of the app's own")
        }
    }
}

/// The real URLSession transport, or no network at all while `offline` is set.
final class SwitchableTransport: FerryTransport, @unchecked Sendable {
    // @unchecked: `isOffline` is only touched under `lock`.
    private let inner = URLSessionTransport(timeout: 10)
    private let lock = NSLock()
    private var isOffline = false
    var offline: Bool {
        get { lock.withLock { isOffline } }
        set { lock.withLock { isOffline = newValue } }
    }
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        if offline { throw URLError(.notConnectedToInternet) }
        return try await inner.send(request)
    }
}
#endif
