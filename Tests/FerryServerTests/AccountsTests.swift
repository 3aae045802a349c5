#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Synchronization
import Testing

/// People's accounts through the service the dashboard and the command line share: passwords hashed slowly with a
/// salt each, sign-in, single-use invitations that expire, sessions that end with a password change or the account.
@Suite("Accounts", .takesTurns)
struct AccountsTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    static func accounts(_ fixture: Fixture, clock: Clock) -> Accounts {
        Accounts(admin: FerryAdmin(store: fixture.store, now: { clock.now.withLock { $0 } }), hasher: PasswordHash(logCost: 10),
                 commonPasswords: CommonPasswords.bundled)
    }

    @Test func passwordsAreSaltedScryptAndCheckedInConstantForm() throws {
        let hasher = PasswordHash(logCost: 10)
        let first = try hasher.hash("ferry tales under the bridge"), second = try hasher.hash("ferry tales under the bridge")
        #expect(first.hasPrefix("scrypt$ln=10$r=8$p=1$") && first != second, "a salt of its own each time")
        #expect(PasswordHash.verify("ferry tales under the bridge", against: first))
        #expect(!PasswordHash.verify("ferry tales under the bridgE", against: first))
        for broken in ["", "scrypt$", first.replacingOccurrences(of: "ln=10", with: "ln=30"), first.replacingOccurrences(of: "ln=10", with: "ln=9"),
                       first.replacingOccurrences(of: "$r=8$", with: "$r=1$"), String(first.dropLast(4))] {
            #expect(!PasswordHash.verify("ferry tales under the bridge", against: broken), "\(broken)")
        }
        #expect(CommonPasswords.bundled.contains("password1234") && CommonPasswords.bundled.count > 1000, "the list ships with the server")
    }

    @Test func anAccountSignsInAndItsOtherSessionsEndWhenItsPasswordChanges() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let clock = Clock()
        let accounts = Self.accounts(fixture, clock: clock)
        await #expect(throws: ValidationError.self) {
            _ = try await accounts.createUser(email: "ana@example.com", password: "password1234", role: .owner, appIDs: [], by: .commandLine(environment: ["USER": "ops"]))
        }
        #expect(try await fixture.store.listUsers().isEmpty, "a refused password stores nothing")
        let ana = try await accounts.createUser(email: "Ana@Example.com", password: "ferry tales under the bridge", role: .owner, appIDs: [],
                                                by: .commandLine(environment: ["USER": "ops"]))
        #expect(ana.email == "ana@example.com" && !ana.passwordHash.contains("ferry tales"))
        #expect(Set(try await fixture.store.memberships(userID: ana.id).map(\.appID)) == [fixture.app.id, fixture.otherApp.id], "every app")
        await #expect(throws: StoreConflict.self) {
            _ = try await accounts.createUser(email: "ana@example.com", password: "another good passphrase", role: .viewer, appIDs: [], by: nil)
        }

        #expect(try await accounts.signIn(email: "ana@example.com", password: "wrong passphrase here", address: nil, userAgent: nil) == nil)
        #expect(try await accounts.signIn(email: "nobody@example.com", password: "ferry tales under the bridge", address: nil, userAgent: nil) == nil)
        let laptop = try #require(try await accounts.signIn(email: "ANA@example.com", password: "ferry tales under the bridge",
                                                            address: "203.0.113.5", userAgent: "Firefox"))
        let phone = try #require(try await accounts.signIn(email: "ana@example.com", password: "ferry tales under the bridge",
                                                           address: "198.51.100.7", userAgent: "Safari"))
        #expect(try await accounts.session(id: laptop.session)?.user.id == ana.id)
        #expect(try await accounts.session(id: "not-a-session-id-at-all") == nil)
        let kept = try #require(try await accounts.session(id: laptop.session)?.session)
        #expect(kept.address == "203.0.113.5" && kept.userAgent == "Firefox")

        await #expect(throws: ValidationError.self, "the current password is needed") {
            try await accounts.changePassword(of: ana, current: "wrong passphrase here", new: "a brand new passphrase", keeping: kept.hash, by: nil)
        }
        try await accounts.changePassword(of: ana, current: "ferry tales under the bridge", new: "a brand new passphrase", keeping: kept.hash, by: nil)
        #expect(try await accounts.session(id: laptop.session) != nil, "the session that changed it stays")
        #expect(try await accounts.session(id: phone.session) == nil, "the others end")
        #expect(try await accounts.signIn(email: "ana@example.com", password: "ferry tales under the bridge", address: nil, userAgent: nil) == nil)

        clock.advance(Accounts.sessionLifetime + 1)
        #expect(try await accounts.session(id: laptop.session) == nil, "sessions expire")

        let later = try #require(try await accounts.signIn(email: "ana@example.com", password: "a brand new passphrase", address: nil, userAgent: nil))
        #expect(try await accounts.removeUser(ana, by: .commandLine(environment: ["USER": "ops"])))
        #expect(try await accounts.session(id: later.session) == nil, "a removed account loses its sessions at once")
        let log = try await fixture.store.auditEvents(AuditQuery(appID: fixture.app.id))
        #expect(log.map { "\($0.action) \($0.objectType)" } == ["removed member", "added member"])
        #expect(try await fixture.store.auditEvents(AuditQuery()).allSatisfy { !$0.changes.values.contains { ($0.after ?? "").contains("passphrase") } })
    }

    @Test func anInvitationIsUsedOnceBeforeItExpiresAndMakesOrJoinsAnAccount() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.remove() }
        let clock = Clock()
        let accounts = Self.accounts(fixture, clock: clock)
        let owner = AuditActor(kind: .user, id: "usr_owner", label: "owner@example.com", address: "203.0.113.1")
        let (invitation, token) = try await accounts.invite(email: "Cleo@Example.com", role: .editor, to: fixture.app.id, by: owner)
        #expect(invitation.email == "cleo@example.com" && invitation.tokenHash != token)
        #expect(try await accounts.pendingInvitation(token: token)?.role == .editor)
        await #expect(throws: ValidationError.self, "a weak password is refused and the invitation stays") {
            _ = try await accounts.accept(token: token, password: "short", address: nil, userAgent: nil)
        }
        let joined = try await accounts.accept(token: token, password: "she edits the links daily", address: "198.51.100.2", userAgent: "Chrome")
        #expect(joined.user.email == "cleo@example.com")
        #expect(try await fixture.store.memberships(userID: joined.user.id).map(\.role) == [.editor])
        #expect(try await accounts.session(id: joined.session) != nil)
        await #expect(throws: ValidationError.self, "single use") {
            _ = try await accounts.accept(token: token, password: "she edits the links daily", address: nil, userAgent: nil)
        }

        // An invitation to an account that exists joins it, once its password is given; an old link has expired.
        let (_, second) = try await accounts.invite(email: "cleo@example.com", role: .viewer, to: fixture.otherApp.id, by: owner)
        let (_, stale) = try await accounts.invite(email: "dan@example.com", role: .viewer, to: fixture.app.id, by: owner)
        await #expect(throws: ValidationError.self) {
            _ = try await accounts.accept(token: second, password: "not her passphrase at all", address: nil, userAgent: nil)
        }
        let again = try await accounts.accept(token: second, password: "she edits the links daily", address: nil, userAgent: nil)
        #expect(again.user.id == joined.user.id)
        #expect(Set(try await fixture.store.memberships(userID: joined.user.id).map(\.role)) == [.editor, .viewer])
        // A link to a lower role does not lower the role she has.
        let (_, lower) = try await accounts.invite(email: "cleo@example.com", role: .viewer, to: fixture.app.id, by: owner)
        _ = try await accounts.accept(token: lower, password: "she edits the links daily", address: nil, userAgent: nil)
        #expect(try await fixture.store.memberships(userID: joined.user.id).first { $0.appID == fixture.app.id }?.role == .editor)
        clock.advance(Accounts.invitationLifetime + 60)
        #expect(try await accounts.pendingInvitation(token: stale) == nil)
        await #expect(throws: ValidationError.self) {
            _ = try await accounts.accept(token: stale, password: "dan reads statistics", address: nil, userAgent: nil)
        }
        #expect(try await fixture.store.user(email: "dan@example.com") == nil)
        let log = try await fixture.store.auditEvents(AuditQuery(appID: fixture.app.id)).map { "\($0.action) \($0.objectType) \($0.actor.id)" }
        #expect(log == ["invited invitation usr_owner", "invited invitation usr_owner", "added member \(joined.user.id)", "invited invitation usr_owner"])
    }
}
#endif
