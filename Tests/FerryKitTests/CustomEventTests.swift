@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing

@Suite("Events of the app's own", .takesTurns)
struct CustomEventTests {
    static func collecting() -> ScriptedTransport {
        ScriptedTransport { request in
            guard request.url?.path == FerryRoutes.events else { return .json(404, "{}") }
            let body = try Kit.body(request, as: EventsRequest.self)
            return .encoded(EventsResponse(accepted: body.events.count))
        }
    }

    @Test func anEventIsQueuedWithItsPropertiesAndLinkAndSentWithTheOthers() async throws {
        let transport = Self.collecting()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: transport))
        let heard = Collector<FerryEvent.Name>()
        ferry.onEvent { heard.append($0.name) }
        try ferry.sendEvent("purchase", properties: ["plan": "yearly", "price": "49.99 €"], linkID: "lnk_0123456789abcdefghijkl")
        try ferry.sendEvent("tutorial.done")
        for _ in 0..<2000 where await ferry.pendingEventCount < 4 { try await Task.sleep(nanoseconds: 1_000_000) }
        await ferry.flushEvents()
        let sent = try transport.sent(path: FerryRoutes.events).flatMap { try Kit.body($0, as: EventsRequest.self).events }
        let purchase = try #require(sent.first { $0.name == "purchase" })
        #expect(purchase.properties == ["plan": "yearly", "price": "49.99 €"])
        #expect(purchase.linkID == "lnk_0123456789abcdefghijkl")
        #expect(purchase.installID == "6F1D2C3B-0000-4000-8000-000000000001")
        #expect(purchase.timestamp != nil)
        let done = try #require(sent.first { $0.name == "tutorial.done" })
        #expect(done.properties == nil && done.linkID == nil)
        #expect(Set(sent.map(\.name)) == ["install", "open", "purchase", "tutorial.done"])
        #expect(heard.all == [.install, .open], "handlers do not hear the app's own events")
    }

    @Test(arguments: [
        ("", [:], nil, "name"), ("Purchase", [:], nil, "name"), ("buy now", [:], nil, "name"), ("<script>", [:], nil, "name"),
        (String(repeating: "a", count: 65), [:], nil, "name"), ("install", [:], nil, "name"), ("link_open", [:], nil, "name"),
        ("purchase", ["": "x"], nil, "properties"), ("purchase", ["a\r\nb": "x"], nil, "properties"),
        ("purchase", [String(repeating: "k", count: 65): "x"], nil, "properties"),
        ("purchase", ["plan": String(repeating: "v", count: 257)], nil, "properties.plan"), ("purchase", ["plan": "a\u{0}b"], nil, "properties.plan"),
        ("purchase", Dictionary(uniqueKeysWithValues: (0..<21).map { ("k\($0)", "v") }), nil, "properties"),
        ("purchase", [:], "", "linkID"), ("purchase", [:], "lnk with space", "linkID"), ("purchase", [:], String(repeating: "l", count: 65), "linkID"),
    ] as [(String, [String: String], String?, String)])
    func whatTheServerWouldRefuseIsRefusedAndNotQueued(name: String, properties: [String: String], linkID: String?, field: String) async throws {
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(transport: Self.collecting()))
        for _ in 0..<2000 where await ferry.pendingEventCount < 2 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect { try ferry.sendEvent(FerryEvent.Name(rawValue: name), properties: properties, linkID: linkID) } throws: { error in
            (error as? FerryError)?.code == .invalidArgument && (error as? FerryError)?.field == field
        }
        #expect(await ferry.pendingEventCount == 2, "only install and open wait")
    }

    @Test func theLongestAcceptedValuesAreAccepted() throws {
        let properties = Dictionary(uniqueKeysWithValues: (0..<20).map { (String(repeating: "k", count: 62) + String(format: "%02d", $0), String(repeating: "é", count: 256)) })
        try CustomEvent.check(name: String(repeating: "a", count: 64), properties: properties, linkID: String(repeating: "l", count: 64))
    }
}
