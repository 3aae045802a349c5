import FerryKit
import FerryTestSupport
import Foundation
import Testing

private func url(_ text: String) -> URL { URL(string: text)! }

private func link(_ slug: String, source: String, campaign: String? = nil, target: String? = nil) -> DeepLink {
    DeepLink(
        url: url("https://go.example.com/\(slug)"), slug: slug, linkID: "lnk_\(slug)", destination: url("https://example.com/\(slug)"),
        params: target.map { ["dl_target": $0] } ?? [:], utm: UTMParameters(source: source, medium: "social", campaign: campaign),
        source: .universalLink)
}

@Suite("AttributionStore", .takesTurns)
struct AttributionStoreTests {
    @Test func firstTouchIsKeptAndLastTouchReplacedOverSeveralOpens() {
        let clock = TestClock()
        let store = AttributionStore(storage: InMemoryStorage(), now: { clock.now })
        #expect(store.firstTouch == nil)
        #expect(store.lastTouch == nil)
        #expect(store.currentAttributionForBackend().isEmpty)

        let start = clock.now
        #expect(store.record(link("yt", source: "youtube", campaign: "video1")) == true)
        clock.advance()
        #expect(store.record(link("ig", source: "instagram", target: "Paywall")) == false)
        clock.advance()
        #expect(store.recordOpen(url: url("https://app.example.com/Reddit?utm_source=reddit")) == false)

        #expect(store.firstTouch?.source == "youtube")
        #expect(store.firstTouch?.campaign == "video1")
        #expect(store.firstTouch?.linkID == "lnk_yt")
        #expect(store.firstTouch?.timestamp == start)
        #expect(store.lastTouch?.source == "reddit")
        #expect(store.lastTouch?.landingPath == "/reddit")
        #expect(store.lastTouch?.linkID == nil)
        #expect(store.lastTouch?.timestamp == start.addingTimeInterval(120))
    }

    @Test func touchOfADeepLink() {
        let date = Date(timeIntervalSince1970: 1_780_000_000)
        let touch = AttributionTouch(deepLink: link("Summer", source: "newsletter", campaign: "sale", target: " PayWall "), at: date)
        #expect(touch == AttributionTouch(
            source: "newsletter", medium: "social", campaign: "sale", target: "paywall", landingPath: "/summer",
            url: "https://go.example.com/Summer", linkID: "lnk_Summer", timestamp: date))
    }

    @Test func emptyCampaignValuesAreAbsent() {
        let deepLink = DeepLink(url: url("https://go.example.com/a"), utm: UTMParameters(source: "", campaign: "c"), source: .universalLink)
        let touch = AttributionTouch(deepLink: deepLink, at: Date(timeIntervalSince1970: 0))
        #expect(touch.source == nil)
        #expect(touch.campaign == "c")
        #expect(touch.backendValue["source"] == nil)
    }

    @Test func firstTouchSurvivesANewStoreOnTheSameStorage() {
        let storage = InMemoryStorage()
        let clock = TestClock()
        let first = AttributionStore(storage: storage, now: { clock.now })
        first.record(link("yt", source: "youtube"))
        #expect(storage.keys == ["attribution.firstTouch", "attribution.lastTouch"])

        clock.advance()
        let relaunched = AttributionStore(storage: storage, now: { clock.now })
        #expect(relaunched.firstTouch == first.firstTouch)
        #expect(relaunched.firstTouch?.source == "youtube")
        #expect(relaunched.record(link("fb", source: "facebook")) == false)
        #expect(relaunched.firstTouch?.source == "youtube")
        #expect(relaunched.lastTouch?.source == "facebook")
        #expect(first.lastTouch?.source == "facebook")
    }

    @Test func concurrentRecordsSetFirstTouchExactlyOnce() async {
        let store = AttributionStore(storage: InMemoryStorage())
        let winners = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<200 {
                group.addTask { (index, store.record(link("l\(index)", source: "s\(index)"))) }
            }
            var winners: [Int] = []
            for await (index, setFirst) in group where setFirst { winners.append(index) }
            return winners
        }
        #expect(winners.count == 1)
        #expect(store.firstTouch?.source == winners.first.map { "s\($0)" })
        #expect(store.lastTouch != nil)
    }

    @Test func concurrentRecordsOnTwoStoresSharingStorageSetFirstTouchOnce() async {
        let storage = InMemoryStorage()
        let stores = [AttributionStore(storage: storage), AttributionStore(storage: storage)]
        let trues = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask { stores[index % 2].record(link("l\(index)", source: "s\(index)")) }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(trues == 1)
    }

    @Test func backendDictionaryHasSnakeCaseKeysAndSerializes() throws {
        let clock = TestClock()
        let store = AttributionStore(storage: InMemoryStorage(), now: { clock.now })
        let deepLink = DeepLink(
            url: url("https://go.example.com/summer"), linkID: "lnk_1", params: ["dl_target": "dashboard"],
            utm: UTMParameters(source: "newsletter", medium: "email", campaign: "sale", content: "hero", term: "shoes"),
            source: .universalLink)
        store.record(deepLink)
        clock.advance()
        store.recordOpen(url: url("myapp://Product/42?utm_source=push"))

        let backend = store.currentAttributionForBackend()
        #expect(Set(backend.keys) == ["first_touch", "last_touch"])
        #expect(backend["first_touch"] == [
            "source": "newsletter", "medium": "email", "campaign": "sale", "content": "hero", "term": "shoes",
            "dl_target": "dashboard", "landing_path": "/summer", "url": "https://go.example.com/summer", "link_id": "lnk_1",
            "timestamp": "2026-05-28T20:26:40.000Z",
        ])
        #expect(backend["last_touch"] == [
            "source": "push", "landing_path": "/product/42", "url": "myapp://Product/42?utm_source=push",
            "timestamp": "2026-05-28T20:27:40.000Z",
        ])
        #expect(FerryJSON.parseDate(backend["first_touch"]?["timestamp"] ?? "") == Date(timeIntervalSince1970: 1_780_000_000))

        let data = try JSONSerialization.data(withJSONObject: ["attribution": backend])
        let decoded = try JSONSerialization.jsonObject(with: data) as? [String: [String: [String: String]]]
        #expect(decoded?["attribution"] == backend)
    }

    @Test func onlyTheKnownTouchesAreSentAfterTheFirstRecord() {
        let store = AttributionStore(storage: InMemoryStorage())
        store.recordOpen(url: url("https://app.example.com/"))
        let backend = store.currentAttributionForBackend()
        #expect(backend["first_touch"] == backend["last_touch"])
        #expect(backend["first_touch"]?["landing_path"] == "/")
        #expect(backend["first_touch"]?["source"] == nil)
        #expect(backend["first_touch"]?["link_id"] == nil)
    }

    @Test func customSchemeLandingPathStartsWithTheHost() {
        let store = AttributionStore(storage: InMemoryStorage())
        store.recordOpen(url: url("myapp://Invite/AbC?dl_target=Onboarding"))
        #expect(store.lastTouch?.landingPath == "/invite/abc")
        #expect(store.lastTouch?.target == "onboarding")

        let custom = DeepLink(url: url("myapp://"), iosURL: url("myapp://"), source: .customScheme)
        #expect(AttributionTouch(deepLink: custom, at: Date()).landingPath == "/")
    }

    @Test func recordOpenReadsUTMFromAnAppPath() {
        let clock = TestClock()
        let store = AttributionStore(storage: InMemoryStorage(), now: { clock.now })
        let opened = url("https://app.example.com/Paywall?utm_source=youtube&utm_medium=video&utm_campaign=video1")
        #expect(store.recordOpen(url: opened))
        #expect(store.firstTouch == AttributionTouch(
            source: "youtube", medium: "video", campaign: "video1", landingPath: "/paywall", url: opened.absoluteString,
            timestamp: clock.now))
    }

    @Test func corruptStoredValuesReadAsNilAndAreReplaced() {
        let storage = InMemoryStorage()
        storage.setData(Data([0xFF, 0x00, 0x7B, 0x22]), forKey: "attribution.firstTouch")
        storage.setData(Data("{\"source\": 3}".utf8), forKey: "attribution.lastTouch")
        let store = AttributionStore(storage: storage)
        #expect(store.firstTouch == nil)
        #expect(store.lastTouch == nil)
        #expect(store.currentAttributionForBackend().isEmpty)

        #expect(store.record(link("yt", source: "youtube")) == true)
        #expect(store.firstTouch?.source == "youtube")
        #expect(store.lastTouch?.source == "youtube")
    }

    @Test func resetForgetsBothTouches() {
        let storage = InMemoryStorage()
        let store = AttributionStore(storage: storage)
        store.record(link("yt", source: "youtube"))
        store.record(link("fb", source: "facebook"))
        store.reset()
        #expect(store.firstTouch == nil)
        #expect(store.lastTouch == nil)
        #expect(storage.keys.isEmpty)
        #expect(store.record(link("tt", source: "tiktok")) == true)
        #expect(store.firstTouch?.source == "tiktok")
    }

    @Test func touchRoundTripsThroughCodable() throws {
        let touch = AttributionTouch(
            source: "a", target: "paywall", landingPath: "/x", url: "https://a.example.com/x", linkID: "lnk_1",
            timestamp: Date(timeIntervalSince1970: 1_780_000_000.25))
        let data = try FerryJSON.makeEncoder().encode(touch)
        #expect(try FerryJSON.makeDecoder().decode(AttributionTouch.self, from: data) == touch)
    }
}
