#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// People's accounts in both stores: one account per email, roles per app, single-use invitations that expire, and
/// sessions that end with a password change or with the account.
@Suite("Accounts in the stores", .takesTurns)
struct AccountStoreTests {
    static func user(_ id: String, _ email: String) -> UserRecord {
        UserRecord(id: id, email: email, passwordHash: "scrypt$hash-of-\(id)", createdAt: epoch)
    }

    static func session(_ hash: String, _ user: String, minutes: Double) -> UserSessionRecord {
        UserSessionRecord(hash: hash, userID: user, createdAt: epoch.addingTimeInterval(minutes * 60), expiresAt: epoch.addingTimeInterval(12 * 3600),
                          address: "203.0.113.4", userAgent: "Mozilla/5.0")
    }

    @Test(arguments: StoreBackend.available) func usersAndRolesPerApp(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createApp(makeApp(id: "app_2", domains: ["two.example.com"]))
            try await store.createUser(Self.user("usr_a", "ana@example.com"))
            try await store.createUser(Self.user("usr_b", "ben@example.com"))
            await #expect(throws: StoreConflict.self) { try await store.createUser(Self.user("usr_c", "ana@example.com")) }
            #expect(try await store.user(email: "ana@example.com")?.id == "usr_a")
            #expect(try await store.user(id: "usr_b") == Self.user("usr_b", "ben@example.com"))
            #expect(try await store.listUsers().map(\.id) == ["usr_a", "usr_b"])

            try await store.setMembership(Membership(userID: "usr_a", appID: "app_1", role: .owner, createdAt: epoch))
            try await store.setMembership(Membership(userID: "usr_b", appID: "app_1", role: .viewer, createdAt: epoch.addingTimeInterval(1)))
            try await store.setMembership(Membership(userID: "usr_a", appID: "app_2", role: .editor, createdAt: epoch.addingTimeInterval(2)))
            try await store.setMembership(Membership(userID: "usr_b", appID: "app_1", role: .admin, createdAt: epoch.addingTimeInterval(3)))
            #expect(try await store.memberships(userID: "usr_a").map { "\($0.appID)=\($0.role)" } == ["app_1=owner", "app_2=editor"])
            let members = try await store.members(appID: "app_1")
            #expect(members.map { "\($0.user.email)=\($0.membership.role)" } == ["ana@example.com=owner", "ben@example.com=admin"],
                    "a changed role replaces the old one and keeps its place")
            #expect(try await store.removeMembership(userID: "usr_b", appID: "app_1"))
            #expect(try await store.removeMembership(userID: "usr_b", appID: "app_1") == false)
            #expect(try await store.members(appID: "app_1").map(\.user.id) == ["usr_a"])
            await #expect(throws: (any Error).self, "no role for an app that does not exist") {
                try await store.setMembership(Membership(userID: "usr_a", appID: "app_missing", role: .owner, createdAt: epoch))
            }
        }
    }

    @Test(arguments: StoreBackend.available) func sessionsEndWithAPasswordChangeAndWithTheAccount(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            try await store.createUser(Self.user("usr_a", "ana@example.com"))
            try await store.createUser(Self.user("usr_b", "ben@example.com"))
            try await store.setMembership(Membership(userID: "usr_a", appID: "app_1", role: .owner, createdAt: epoch))
            for (hash, minutes) in [("s1", 1.0), ("s2", 2), ("s3", 3)] { try await store.createUserSession(Self.session(hash, "usr_a", minutes: minutes)) }
            try await store.createUserSession(Self.session("b1", "usr_b", minutes: 1))
            let now = epoch.addingTimeInterval(3600)
            #expect(try await store.userSessions(userID: "usr_a", now: now).map(\.hash) == ["s3", "s2", "s1"])
            #expect(try await store.userSession(hash: "s1", now: now) == Self.session("s1", "usr_a", minutes: 1))
            #expect(try await store.userSession(hash: "s1", now: epoch.addingTimeInterval(13 * 3600)) == nil, "expired")
            #expect(try await store.deleteUserSession(hash: "s1", userID: "usr_b") == false, "only one's own sessions")
            #expect(try await store.deleteUserSession(hash: "s1", userID: "usr_a"))

            #expect(try await store.setPassword(userID: "usr_a", hash: "scrypt$new", at: now, keeping: "s3"))
            #expect(try await store.userSessions(userID: "usr_a", now: now).map(\.hash) == ["s3"], "the other sessions ended")
            #expect(try await store.user(id: "usr_a")?.passwordHash == "scrypt$new")
            #expect(try await store.user(id: "usr_a")?.passwordChangedAt == now)
            #expect(try await store.setPassword(userID: "usr_a", hash: "scrypt$newer", at: now, keeping: nil))
            #expect(try await store.userSessions(userID: "usr_a", now: now).isEmpty)
            #expect(try await store.setPassword(userID: "usr_missing", hash: "x", at: now, keeping: nil) == false)

            try await store.createUserSession(Self.session("s4", "usr_a", minutes: 4))
            #expect(try await store.deleteUser(id: "usr_a"))
            #expect(try await store.userSession(hash: "s4", now: now) == nil, "a removed account is signed out at once")
            #expect(try await store.memberships(userID: "usr_a").isEmpty)
            #expect(try await store.userSession(hash: "b1", now: now) != nil, "others keep theirs")
            #expect(try await store.purgeUserSessions(expiredBefore: epoch.addingTimeInterval(13 * 3600)) == 1)
        }
    }

    @Test(arguments: StoreBackend.available) func anInvitationIsUsedOnceAndNotAfterItExpires(backend: StoreBackend) async throws {
        try await backend.withStore { (store: any FerryDatabase) async throws in
            try await store.createApp(makeApp())
            func invitation(_ hash: String, hours: Double) -> Invitation {
                Invitation(tokenHash: hash, appID: "app_1", email: "cleo@example.com", role: .editor, invitedBy: "usr_a", createdAt: epoch,
                           expiresAt: epoch.addingTimeInterval(hours * 3600))
            }
            try await store.createInvitation(invitation("t1", hours: 72))
            try await store.createInvitation(invitation("t2", hours: 1))
            try await store.createInvitation(invitation("t3", hours: 72))
            let now = epoch.addingTimeInterval(2 * 3600)
            #expect(Set(try await store.pendingInvitations(appID: "app_1", now: now).map(\.tokenHash)) == ["t1", "t3"])
            #expect(try await store.useInvitation(tokenHash: "t2", now: now) == nil, "expired")
            // Two uses at once: exactly one gets it.
            async let first = store.useInvitation(tokenHash: "t1", now: now)
            async let second = store.useInvitation(tokenHash: "t1", now: now)
            let uses = try await [first, second].compactMap { $0 }
            #expect(uses.count == 1)
            #expect(uses.first?.usedAt == now && uses.first?.role == .editor)
            #expect(try await store.useInvitation(tokenHash: "t1", now: now) == nil, "single use")
            #expect(try await store.invitation(tokenHash: "t1")?.usedAt == now)
            #expect(try await store.deleteInvitation(tokenHash: "t3", appID: "app_other") == false)
            #expect(try await store.deleteInvitation(tokenHash: "t3", appID: "app_1"))
            #expect(try await store.useInvitation(tokenHash: "t3", now: now) == nil, "withdrawn")
            #expect(try await store.pendingInvitations(appID: "app_1", now: now).isEmpty)
        }
    }
}
#endif
