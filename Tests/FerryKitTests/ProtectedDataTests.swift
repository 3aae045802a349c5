@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing

/// A device's storage before and after its first unlock: while locked it reads as empty, as UserDefaults does, and
/// records any write (which could replace what the app stored before).
final class LockableStorage: FerryStorage, @unchecked Sendable {
    // @unchecked: `state` is a Locked value; `stored` is thread-safe itself.
    let stored = InMemoryStorage()
    private let state = Locked((locked: true, writesWhileLocked: [String](), questions: 0))

    var isAvailable: Bool {
        state.withLock { state in
            state.questions += 1
            return !state.locked
        }
    }
    /// How many times FerryKit asked whether the storage is available.
    var questions: Int { state.withLock { $0.questions } }
    /// Waits until FerryKit has asked `count` times in all (each waiting caller asks before it sleeps).
    func waitForQuestions(_ count: Int) async throws {
        while questions < count { try await Task.sleep(nanoseconds: 1_000_000) }
    }
    var writesWhileLocked: [String] { state.withLock { $0.writesWhileLocked } }
    func unlock() { state.withLock { $0.locked = false } }

    func data(forKey key: String) -> Data? {
        state.withLock { $0.locked } ? nil : stored.data(forKey: key)
    }

    func setData(_ data: Data?, forKey key: String) {
        let locked = state.withLock { state -> Bool in
            if state.locked { state.writesWhileLocked.append(key) }
            return state.locked
        }
        if !locked { stored.setData(data, forKey: key) }
    }
}

@Suite("A launch before the device's first unlock", .takesTurns)
struct ProtectedDataTests {
    static let earlier = Date(timeIntervalSince1970: 1_700_000_000)

    static func transport() -> ScriptedTransport {
        ScriptedTransport { request in
            switch request.url?.path {
            case FerryRoutes.attributionMatch?: return .encoded(MatchResponse.notMatched)
            case FerryRoutes.events?: return .json(503, "{}")
            case FerryRoutes.sdkValidate?: return .encoded(Kit.validation())
            default: return .json(404, #"{"error":{"code":"not_found","message":"no route","field":null}}"#)
            }
        }
    }

    @Test func isNotTakenForAFirstLaunchAndWaitsForTheUnlock() async throws {
        let storage = LockableStorage()
        storage.stored.setValue(Self.earlier, forKey: StorageKey.firstLaunch)
        storage.stored.setValue("install-from-before", forKey: StorageKey.installID)
        storage.stored.setValue(CachedMatch(checkedAt: Self.earlier, link: nil), forKey: StorageKey.deferred)
        storage.stored.setValue([SDKEvent(name: "open", installID: "install-from-before", timestamp: Self.earlier)], forKey: EventUploader.storageKey)
        let transport = Self.transport()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport, validate: true))
        #expect(!ferry.isFirstLaunch)
        let heard = Collector<FerryEvent.Name>()
        ferry.onEvent { heard.append($0.name) }
        #expect(heard.all.isEmpty, "no install, and no open yet either")

        let check = Task { try await ferry.checkDeferredDeepLink() }
        let installID = Task { await ferry.installID() }
        // `init`, its watcher, the check and the install id have each found the storage locked, and wait.
        try await storage.waitForQuestions(4)
        storage.unlock()
        #expect(try await check.value == nil, "the answer stored before, not a new check")
        #expect(await installID.value == "install-from-before")
        #expect(transport.sent(path: FerryRoutes.attributionMatch).isEmpty)
        #expect(!ferry.isFirstLaunch)
        // Whichever waiter decided the launch hands out its events.
        for _ in 0..<2000 where heard.all.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(heard.all == [.open])
        #expect(storage.writesWhileLocked.isEmpty, "nothing was written before the unlock: \(storage.writesWhileLocked)")
        #expect(storage.stored.value(Date.self, forKey: StorageKey.firstLaunch) == Self.earlier)
        for _ in 0..<2000 where await ferry.pendingEventCount < 2 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(await ferry.pendingEventCount == 2, "the stored queue is kept, this launch's open after it")
        let queued = try #require(storage.stored.value([SDKEvent].self, forKey: EventUploader.storageKey))
        #expect(queued.map(\.installID) == ["install-from-before", "install-from-before"])
    }

    @Test func aFreshInstallIsDecidedOnceUnlocked() async throws {
        let storage = LockableStorage()
        let transport = Self.transport()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        #expect(!ferry.isFirstLaunch, "not decided yet")
        let check = Task { try await ferry.checkDeferredDeepLink() }
        try await storage.waitForQuestions(3)
        storage.unlock()
        #expect(try await check.value == nil)
        #expect(ferry.isFirstLaunch)
        #expect(ferry.launchEvents.map(\.name) == [.install, .open])
        #expect(transport.sent(path: FerryRoutes.attributionMatch).count == 1)
        #expect(storage.writesWhileLocked.isEmpty)
        let late = Collector<FerryEvent.Name>()
        ferry.onEvent { late.append($0.name) }
        for _ in 0..<2000 where late.all.count < 2 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(late.all == [.install, .open], "a later subscriber is handed the launch events")
    }

    @Test func theDecisionIsMadeWithoutAnyCallOnceProtectedDataIsAvailable() async throws {
        let storage = LockableStorage()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: Self.transport()))
        let heard = Collector<FerryEvent.Name>()
        ferry.onEvent { heard.append($0.name) }
        try await storage.waitForQuestions(2)
        storage.unlock()
        for _ in 0..<5000 where heard.all.count < 2 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(heard.all == [.install, .open])
        #expect(ferry.isFirstLaunch)
    }

    @Test func aCallerCancelledBeforeTheUnlockStopsWaitingAndNothingIsWritten() async throws {
        let storage = LockableStorage()
        let transport = Self.transport()
        let ferry = try Ferry(apiKey: Kit.key, options: Kit.options(storage: storage, transport: transport))
        let check = Task { try await ferry.checkDeferredDeepLink() }
        let identify = Task { try await ferry.identify(userID: "user-1") }
        try await storage.waitForQuestions(4)
        check.cancel()
        identify.cancel()
        await #expect { try await check.value } throws: { ($0 as? FerryError)?.code == .cancelled }
        await #expect { try await identify.value } throws: { ($0 as? FerryError)?.code == .cancelled }
        #expect(transport.sent.isEmpty)
        #expect(storage.writesWhileLocked.isEmpty)
        #expect(!ferry.isFirstLaunch)
    }

    @Test func userDefaultsStorageAsksTheCheckItIsGiven() {
        let suite = "dev.ferry.tests.\(UUID().uuidString)"
        defer { UserDefaults().removePersistentDomain(forName: suite) }
        let available = Locked(false)
        let storage = UserDefaultsStorage(suiteName: suite, isProtectedDataAvailable: { available.withLock { $0 } })
        #expect(!storage.isAvailable)
        available.withLock { $0 = true }
        #expect(storage.isAvailable)
        #expect(UserDefaultsStorage(suiteName: suite).isAvailable, "without UIKit there is nothing to ask: available")
        #expect(InMemoryStorage().isAvailable)
    }
}
