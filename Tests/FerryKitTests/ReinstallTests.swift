@testable import FerryKit
import FerryTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The install id kept where deleting the app leaves it (`FerryOptions.lastingStorage`), and the id of each
/// installation: what lets the server tell a re-install from a first launch asking again.
@Suite("FerryKit: re-installs", .takesTurns)
struct ReinstallKitTests {
    /// A server that answers every match with no link, and the bodies it was sent.
    static func server() -> (ScriptedTransport, Collector<MatchRequest>) {
        let sent = Collector<MatchRequest>()
        let transport = ScriptedTransport { request in
            if request.url?.path == FerryRoutes.attributionMatch { sent.append(try Kit.body(request, as: MatchRequest.self)) }
            return .encoded(MatchResponse.notMatched)
        }
        return (transport, sent)
    }

    static func launch(storage: any FerryStorage, lasting: (any FerryStorage)?, idfv: String, recognizes: Bool = true) throws -> (Ferry, Collector<MatchRequest>, Collector<String>) {
        let (transport, sent) = server()
        var options = Kit.options(storage: storage, transport: transport)
        options.deviceSignalsProvider = FixedSignals(idfv: idfv)
        options.lastingStorage = lasting
        options.recognizesReinstalls = recognizes
        let ferry = try Ferry(apiKey: Kit.key, options: options)
        let events = Collector<String>()
        _ = ferry.onEvent { events.append($0.name.rawValue) }
        return (ferry, sent, events)
    }

    @Test func aReinstallGoesByTheKeptIDWithANewInstallation() async throws {
        let keychain = InMemoryStorage()
        let storage = InMemoryStorage()
        let (first, firstSent, firstEvents) = try Self.launch(storage: storage, lasting: keychain, idfv: "IDFV-ONE")
        _ = try await first.checkDeferredDeepLink()
        let request = try #require(firstSent.all.first)
        #expect(request.installID == "IDFV-ONE" && keychain.value(String.self, forKey: StorageKey.installID) == "IDFV-ONE")
        let installation = try #require(request.installationID)
        #expect(firstEvents.all.prefix(2) == ["install", "open"])
        // A relaunch is an open of the same installation, which asks nothing again.
        let (relaunched, relaunchedSent, relaunchedEvents) = try Self.launch(storage: storage, lasting: keychain, idfv: "IDFV-ONE")
        #expect(!relaunched.isFirstLaunch && relaunchedEvents.all == ["open"])
        _ = try await relaunched.checkDeferredDeepLink()
        #expect(relaunchedSent.all.isEmpty)
        #expect(storage.value(String.self, forKey: StorageKey.installationID) == installation)

        // Deleted and installed again, under a new IDFV: the kept id, a new installation, a `reinstall` first launch.
        let (again, againSent, againEvents) = try Self.launch(storage: InMemoryStorage(), lasting: keychain, idfv: "IDFV-TWO")
        #expect(again.isFirstLaunch && againEvents.all.prefix(2) == ["reinstall", "open"])
        _ = try await again.checkDeferredDeepLink()
        let reinstall = try #require(againSent.all.first)
        #expect(reinstall.installID == "IDFV-ONE" && reinstall.installationID != nil && reinstall.installationID != installation)
        #expect(await again.installID() == "IDFV-ONE")
    }

    @Test func whatTheLastingStorageHoldsIsTakenOnlyWhenItIsAnInstallID() async throws {
        // Something that cannot be sent is replaced by the IDFV, and the first launch is an install.
        let keychain = InMemoryStorage()
        keychain.setValue("has a space", forKey: StorageKey.installID)
        let (ferry, _, events) = try Self.launch(storage: InMemoryStorage(), lasting: keychain, idfv: "IDFV-THREE")
        #expect(events.all.prefix(1) == ["install"])
        #expect(await ferry.installID() == "IDFV-THREE")
        #expect(keychain.value(String.self, forKey: StorageKey.installID) == "IDFV-THREE")
    }

    @Test func anAppThatTurnsItOffKeepsNothingOutsideItsStorage() async throws {
        let keychain = InMemoryStorage()
        keychain.setValue("IDFV-OLD", forKey: StorageKey.installID)
        let (ferry, _, events) = try Self.launch(storage: InMemoryStorage(), lasting: keychain, idfv: "IDFV-FOUR", recognizes: false)
        #expect(events.all.prefix(1) == ["install"])
        #expect(await ferry.installID() == "IDFV-FOUR")
        #expect(keychain.value(String.self, forKey: StorageKey.installID) == "IDFV-OLD")
        // A lasting storage given is the one used, unless re-installs are not to be recognised; without one, an app
        // storing elsewhere than FerryKit's own UserDefaults suite gets none (and Linux has no keychain at all).
        var options = Kit.options(transport: Self.server().0)
        options.lastingStorage = keychain
        #expect(InstallIdentity.lastingStorage(for: options) as? InMemoryStorage === keychain)
        options.recognizesReinstalls = false
        #expect(InstallIdentity.lastingStorage(for: options) == nil)
        options.recognizesReinstalls = true
        options.lastingStorage = nil
        #expect(InstallIdentity.lastingStorage(for: options) == nil)
    }

    @Test func aResetStartsOverInTheLastingStorageToo() async throws {
        let keychain = InMemoryStorage()
        let storage = InMemoryStorage()
        let (ferry, _, _) = try Self.launch(storage: storage, lasting: keychain, idfv: "IDFV-FIVE")
        #expect(await ferry.installID() == "IDFV-FIVE")
        ferry.reset()
        let renewed = try #require(storage.value(String.self, forKey: StorageKey.installID))
        #expect(renewed != "IDFV-FIVE" && keychain.value(String.self, forKey: StorageKey.installID) == renewed)
        #expect(await ferry.installID() == renewed)
        // The app deleted after the reset comes back under the new id.
        let (again, _, _) = try Self.launch(storage: InMemoryStorage(), lasting: keychain, idfv: "IDFV-SIX")
        #expect(await again.installID() == renewed)
    }
}
