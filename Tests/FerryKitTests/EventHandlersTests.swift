@testable import FerryKit
import Dispatch
import FerryTestSupport
import Foundation
import Testing

@Suite("Event handlers: subscribing while events are published", .takesTurns)
struct EventHandlersTests {
    static func event(_ name: String) -> FerryEvent { FerryEvent(name: FerryEvent.Name(rawValue: name), timestamp: Date(timeIntervalSince1970: 0)) }

    @Test func anEventPublishedWhileAHandlerIsHandedItsReplayReachesItRightAfter() {
        let handlers = EventHandlers()
        let inReplay = DispatchSemaphore(value: 0), published = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            inReplay.wait()
            handlers.publish(Self.event("during"))
            published.signal()
        }
        let heard = Collector<String>()
        let subscription = handlers.add({ event in
            heard.append(event.name.rawValue)
            if event.name.rawValue == "replayed" {
                // Another thread publishes while this handler is still being handed what it subscribed late for.
                inReplay.signal()
                published.wait()
            }
        }, replaying: [Self.event("replayed")])
        handlers.publish(Self.event("after"))
        #expect(heard.all == ["replayed", "during", "after"])
        subscription.cancel()
        handlers.publish(Self.event("cancelled"))
        #expect(heard.all == ["replayed", "during", "after"])
    }

    @Test func manyConcurrentPublishesAndSubscriptionsLoseNothingAndKeepEachPublishersOrder() async {
        let handlers = EventHandlers()
        let publishers = 4, perPublisher = 300, subscribers = 40
        let begun = Locked(Set<String>())
        struct Subscription: Sendable {
            let heard: Collector<String>
            /// The publishes that had begun when `add` returned: every other one must be heard.
            let begunBeforeReturn: Set<String>
            let subscription: FerryEventSubscription
        }
        let subscriptions = await withTaskGroup(of: Subscription?.self) { group -> [Subscription] in
            for publisher in 0..<publishers {
                group.addTask {
                    for index in 0..<perPublisher {
                        let name = "p\(publisher).\(index)"
                        _ = begun.withLock { $0.insert(name) }
                        handlers.publish(Self.event(name))
                        if index.isMultiple(of: 16) { await Task.yield() }
                    }
                    return nil
                }
            }
            for number in 0..<subscribers {
                group.addTask {
                    let heard = Collector<String>()
                    let subscription = handlers.add({ heard.append($0.name.rawValue) }, replaying: [Self.event("replay\(number)")])
                    return Subscription(heard: heard, begunBeforeReturn: begun.withLock { $0 }, subscription: subscription)
                }
            }
            var all: [Subscription] = []
            for await subscription in group { if let subscription { all.append(subscription) } }
            return all
        }
        #expect(subscriptions.count == subscribers)
        #expect(begun.withLock { $0.count } == publishers * perPublisher)
        for (number, subscription) in subscriptions.enumerated() {
            let heard = subscription.heard.all
            #expect(heard.first?.hasPrefix("replay") == true, "the replay comes first")
            #expect(heard.filter { $0.hasPrefix("replay") }.count == 1)
            let live = heard.filter { !$0.hasPrefix("replay") }
            #expect(Set(live).count == live.count, "subscriber \(number) heard an event twice")
            for publisher in 0..<publishers {
                let indexes = live.filter { $0.hasPrefix("p\(publisher).") }.compactMap { Int($0.split(separator: ".")[1]) }
                #expect(indexes == indexes.sorted(), "a publisher's events arrive in the order published")
                // Once a subscriber has heard an event of a publisher, it hears every later one of that publisher.
                if let first = indexes.first { #expect(indexes == Array(first..<perPublisher)) }
            }
            let missed = Set((0..<publishers).flatMap { p in (0..<perPublisher).map { "p\(p).\($0)" } })
                .subtracting(subscription.begunBeforeReturn).subtracting(live)
            #expect(missed.isEmpty, "events published after add returned were lost: \(missed.sorted().prefix(5))")
            subscription.subscription.cancel()
        }
    }

    @Test func retainedEventsReachEverySubscriberExactlyOnceWhateverTheInterleaving() async {
        for _ in 0..<50 {
            let handlers = EventHandlers()
            let launch = [Self.event("install"), Self.event("open")]
            let collectors = await withTaskGroup(of: Collector<String>?.self) { group -> [Collector<String>] in
                for _ in 0..<8 {
                    group.addTask {
                        let heard = Collector<String>()
                        _ = handlers.add { heard.append($0.name.rawValue) }
                        return heard
                    }
                }
                group.addTask {
                    handlers.publish(launch, retaining: true)
                    return nil
                }
                var all: [Collector<String>] = []
                for await collector in group { if let collector { all.append(collector) } }
                return all
            }
            let late = Collector<String>()
            _ = handlers.add { late.append($0.name.rawValue) }
            for heard in collectors + [late] { #expect(heard.all == ["install", "open"]) }
        }
    }
}
