#if os(macOS) || os(Linux)  // runs Node.js through ChildProcess
import Foundation
import Testing
@testable import FerryCore
import FerryTestSupport

/// Runs the interstitial's real script in Node with a small stand-in for the browser's window, and reads what it
/// did: the beacon it sent, the pasteboard it wrote, where it navigated.
@Suite("The interstitial's script", .takesTurns)
struct InterstitialScriptTests {
    static let node: String? = ["/usr/bin/node", "/usr/local/bin/node", "/opt/homebrew/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// What the stand-in browser's pasteboard API offers.
    enum Clipboard: String {
        /// `writeText` only (no `ClipboardItem`).
        case textOnly
        /// `ClipboardItem` that takes `text/uri-list` (Safari's).
        case items
        /// `ClipboardItem` whose `supports` refuses `text/uri-list` (Chromium's).
        case itemsWithoutURIs
        /// `ClipboardItem` with no `supports`, whose `write` fails.
        case itemsFailing
    }

    /// `storage`: what the browser's `localStorage` holds at first (nil: none, as when storage is off); what it holds at
    /// the end is the record's `storage`.
    func run(body attributes: [String: String], clickCopy: Bool = false, sendBeaconWorks: Bool = true, clipboard: Clipboard = .textOnly,
             storage: [String: String]? = nil) throws -> [String: Any] {
        let node = try #require(Self.node)
        let stored = try storage.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) } ?? "null"
        let harness = """
        const record = { beacons: [], xhr: [], copied: null, item: null, navigated: null, timers: [], storage: \(stored) };
        const mode = "\(clipboard.rawValue)";
        const attributes = \(String(decoding: try JSONSerialization.data(withJSONObject: attributes), as: UTF8.self));
        const listeners = {};
        global.window = {
          screen: { width: 393, height: 852 }, devicePixelRatio: 3,
          location: { replace: (url) => { record.navigated = url; } },
          setTimeout: (fn, ms) => { record.timers.push(ms); fn(); }
        };
        global.document = {
          body: { getAttribute: (name) => (name in attributes ? attributes[name] : null) },
          getElementById: (id) => id === "ferry-copy" ? { addEventListener: (type, fn) => { listeners[type] = fn; } } : null
        };
        global.navigator = {
          platform: "iPhone", languages: ["en-US", "en"], language: "en-US",
          sendBeacon: \(sendBeaconWorks ? "(url, data) => { record.beacons.push({ url, data: JSON.parse(data) }); return true; }" : "undefined"),
          clipboard: {
            writeText: (text) => { record.copied = text; return { then: (ok) => ok() }; },
            write: (items) => {
              if (mode === "itemsFailing") { return { then: (ok, fail) => fail(new Error("NotAllowedError")) }; }
              record.item = items[0].parts;
              return { then: (ok) => ok() };
            }
          }
        };
        global.window.navigator = global.navigator;
        if (record.storage) {
          global.window.localStorage = {
            getItem: (key) => (key in record.storage ? record.storage[key] : null),
            setItem: (key, value) => { record.storage[key] = String(value); }
          };
          global.window.crypto = require("crypto").webcrypto;
        }
        if (mode !== "textOnly") {
          global.window.ClipboardItem = function (parts) { this.parts = parts; };
          if (mode !== "itemsFailing") { global.window.ClipboardItem.supports = (type) => mode === "items" || type !== "text/uri-list"; }
        }
        global.XMLHttpRequest = function () { this.open = (m, u) => { this.url = u; }; this.send = (d) => { record.xhr.push({ url: this.url, data: JSON.parse(d) }); }; };
        global.Intl = { DateTimeFormat: () => ({ resolvedOptions: () => ({ timeZone: "America/New_York" }) }) };
        \(InterstitialPage.script)
        if (\(clickCopy ? "true" : "false") && listeners.click) { listeners.click({ preventDefault: () => {} }); }
        (async () => {
          if (record.item) {
            const parts = {};
            for (const type of Object.keys(record.item)) { parts[type] = { type: record.item[type].type, text: await record.item[type].text() }; }
            record.item = parts;
          }
          process.stdout.write(JSON.stringify(record));
        })();
        """
        let script = try ChildProcess(executable: node, arguments: ["-e", harness])
        let (data, errors) = script.collect()
        #expect(script.wait() == 0, "\(String(decoding: errors, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(.enabled(if: node != nil, "needs Node.js to run the page's script"))
    func itReportsTheDeviceThenLeadsToTheStore() throws {
        let record = try run(body: ["data-click": "clk_AAAAAAAAAAAAAAAAAAAAAA", "data-store": "https://apps.apple.com/app/id1", "data-auto": "1"])
        let beacons = try #require(record["beacons"] as? [[String: Any]])
        #expect(beacons.count == 1)
        #expect(beacons.first?["url"] as? String == HTML.signalsPath)
        let payload = try #require(beacons.first?["data"] as? [String: Any])
        #expect(payload["click"] as? String == "clk_AAAAAAAAAAAAAAAAAAAAAA")
        let signals = try #require(payload["signals"] as? [String: Any])
        #expect(signals["screenWidth"] as? Int == 393)
        #expect(signals["screenHeight"] as? Int == 852)
        #expect(signals["screenScale"] as? Int == 3)
        #expect(signals["timeZone"] as? String == "America/New_York")
        #expect(signals["languages"] as? [String] == ["en-US", "en"])
        #expect(signals["platform"] as? String == "iPhone")
        #expect(record["navigated"] as? String == "https://apps.apple.com/app/id1")
        // Without storage, no browser id.
        #expect(payload["browser"] is NSNull)
    }

    /// The id the page keeps in the browser's storage: made once, sent with every report, and made again when what is
    /// stored is not one.
    @Test(.enabled(if: node != nil, "needs Node.js to run the page's script"))
    func itSendsTheBrowsersIDAndKeepsIt() throws {
        let body = ["data-click": "clk_DDDDDDDDDDDDDDDDDDDDDD", "data-auto": "0"]
        func reported(_ record: [String: Any]) throws -> String? {
            let beacon = try #require((record["beacons"] as? [[String: Any]])?.first?["data"] as? [String: Any])
            return beacon["browser"] as? String
        }
        let fresh = try run(body: body, storage: [:])
        let made = try #require(try reported(fresh))
        #expect(AttributionRules.isBrowserID(made))
        #expect((fresh["storage"] as? [String: String])?["ferry_browser"] == made)
        // Another page of the same browser sends the same id; another browser, another id.
        let kept = try run(body: body, storage: ["ferry_browser": made, "other": "x"])
        #expect(try reported(kept) == made)
        #expect(try reported(try run(body: body, storage: [:])) != made)
        // Something else under the name is replaced.
        let replaced = try run(body: body, storage: ["ferry_browser": "fb_<img>"])
        let remade = try #require(try reported(replaced))
        #expect(AttributionRules.isBrowserID(remade) && (replaced["storage"] as? [String: String])?["ferry_browser"] == remade)
    }

    @Test(.enabled(if: node != nil, "needs Node.js to run the page's script"))
    func withoutSendBeaconItPostsAndInAppBrowsersAreNotRedirected() throws {
        let record = try run(body: ["data-click": "clk_BBBBBBBBBBBBBBBBBBBBBB", "data-store": "https://apps.apple.com/app/id1", "data-auto": "0"], sendBeaconWorks: false)
        #expect((record["xhr"] as? [[String: Any]])?.first?["url"] as? String == HTML.signalsPath)
        #expect(record["navigated"] is NSNull)
    }

    @Test(.enabled(if: node != nil, "needs Node.js to run the page's script"))
    func copyToOpenWritesTheTokenBeforeLeaving() throws {
        let record = try run(body: ["data-click": "clk_CCCCCCCCCCCCCCCCCCCCCC", "data-store": "https://apps.apple.com/app/id1", "data-auto": "0",
                                    "data-token": "ferry:clk_CCCCCCCCCCCCCCCCCCCCCC"], clickCopy: true)
        #expect(record["copied"] as? String == "ferry:clk_CCCCCCCCCCCCCCCCCCCCCC")
        #expect(record["navigated"] as? String == "https://apps.apple.com/app/id1")
    }

    @Test(.enabled(if: node != nil, "needs Node.js to run the page's script"))
    func copyToOpenPutsTheClickOnThePasteboardAsALinkWhereTheBrowserCan() throws {
        let token = "ferry:clk_EEEEEEEEEEEEEEEEEEEEEE"
        let link = "https://copy.example/c?ferry_click_id=clk_EEEEEEEEEEEEEEEEEEEEEE"
        let body = ["data-click": "clk_EEEEEEEEEEEEEEEEEEEEEE", "data-store": "https://apps.apple.com/app/id1", "data-auto": "0",
                    "data-token": token, "data-token-link": link]

        // Safari: one item, the token as text (older apps read it) and the click as a URL (iOS reports URLs unread).
        let safari = try run(body: body, clickCopy: true, clipboard: .items)
        let item = try #require(safari["item"] as? [String: [String: String]])
        #expect(item["text/plain"] == ["type": "text/plain", "text": token])
        #expect(item["text/uri-list"] == ["type": "text/uri-list", "text": link])
        #expect(safari["copied"] is NSNull)
        #expect(safari["navigated"] as? String == "https://apps.apple.com/app/id1")

        // A browser that takes no URIs, one without ClipboardItem, one whose write fails: the token as text.
        for clipboard in [Clipboard.itemsWithoutURIs, .textOnly, .itemsFailing] {
            let record = try run(body: body, clickCopy: true, clipboard: clipboard)
            #expect(record["item"] is NSNull, "\(clipboard)")
            #expect(record["copied"] as? String == token, "\(clipboard)")
            #expect(record["navigated"] as? String == "https://apps.apple.com/app/id1", "\(clipboard)")
        }

        // A link that is not http(s) is never written as a URL.
        var hostile = body
        hostile["data-token-link"] = "javascript:alert(1)"
        let record = try run(body: hostile, clickCopy: true, clipboard: .items)
        #expect(record["item"] is NSNull)
        #expect(record["copied"] as? String == token)
    }

    @Test(.enabled(if: node != nil, "needs Node.js to run the page's script"))
    func itNeverNavigatesToAScriptURL() throws {
        let record = try run(body: ["data-click": "clk_DDDDDDDDDDDDDDDDDDDDDD", "data-store": "javascript:alert(1)", "data-auto": "1"])
        #expect(record["navigated"] is NSNull)
    }
}
#endif
