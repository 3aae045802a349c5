#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Synchronization

/// People's accounts, for the command line and the dashboard: making them, signing in and out, passwords, roles per
/// app, invitations and sessions. Every change is recorded in the audit log; a password is never.
package struct Accounts: Sendable {
    /// The store and the clock.
    package let admin: FerryAdmin
    /// How passwords are hashed.
    package let hasher: PasswordHash
    /// The passwords refused as too common (`common-passwords.txt`).
    package let commonPasswords: Set<String>

    /// How long a session lasts.
    package static let sessionLifetime: TimeInterval = 12 * 3600
    /// How long an invitation may be used.
    package static let invitationLifetime: TimeInterval = 72 * 3600

    var store: any FerryDatabase { admin.store }

    /// Creates the service; `hasher`'s cost is the one new passwords get.
    package init(admin: FerryAdmin, hasher: PasswordHash = PasswordHash(), commonPasswords: Set<String> = CommonPasswords.bundled) {
        self.admin = admin
        self.hasher = hasher
        self.commonPasswords = commonPasswords
    }

    /// Makes an account with a role in each of `appIDs` (every app when empty); throws for a weak password, a taken
    /// email or an unknown app, storing nothing.
    package func createUser(email text: String, password: String, role: MemberRole, appIDs: [String], by actor: AuditActor?) async throws -> UserRecord {
        let email = try AccountRules.validateEmail(text)
        try AccountRules.checkPassword(password, email: email, common: commonPasswords)
        let apps = appIDs.isEmpty ? try await store.listApps().map(\.id) : appIDs
        for id in apps where try await store.app(id: id) == nil {
            throw ValidationError(code: .notFound, field: "app", "no app with id '\(id.prefix(64))'")
        }
        var generator = SystemRandomNumberGenerator()
        let now = admin.now()
        let user = UserRecord(id: Identifiers.make(prefix: "usr", using: &generator), email: email, passwordHash: try await hasher.hashOffThread(password), createdAt: now)
        try await store.createUser(user)
        try await admin.audit(actor, "created", "user", user.id, app: nil, environment: nil, changes: ["email": AuditChange(before: nil, after: email)])
        for id in apps { try await setRole(role, of: user, in: id, by: actor) }
        return user
    }

    /// Gives a user a role in an app, recorded in the app's audit log.
    package func setRole(_ role: MemberRole, of user: UserRecord, in appID: String, by actor: AuditActor?) async throws {
        let before = try await store.memberships(userID: user.id).first { $0.appID == appID }?.role
        guard before != role else { return }
        try await store.setMembership(Membership(userID: user.id, appID: appID, role: role, createdAt: admin.now()))
        try await admin.audit(actor, before == nil ? "added" : "updated", "member", user.id, app: appID, environment: nil,
                              changes: ["email": AuditChange(before: before == nil ? nil : user.email, after: user.email),
                                        "role": AuditChange(before: before?.rawValue, after: role.rawValue)])
    }

    /// Changes a member's role in an app, or with nil removes them; refused when it would leave the app without an
    /// owner.
    package func changeRole(of user: UserRecord, in appID: String, to role: MemberRole?, by actor: AuditActor?) async throws {
        let members = try await store.members(appID: appID)
        guard let current = members.first(where: { $0.user.id == user.id })?.membership.role else {
            throw ValidationError(code: .notFound, field: "member", "\(user.email) is not a member of this app")
        }
        if current == .owner, role != .owner, !members.contains(where: { $0.user.id != user.id && $0.membership.role == .owner }) {
            throw ValidationError(code: .conflict, field: "role", "an app keeps at least one owner; make someone else owner first")
        }
        if let role {
            try await setRole(role, of: user, in: appID, by: actor)
        } else {
            _ = try await removeMember(user, from: appID, by: actor)
        }
    }

    /// Withdraws an invitation not used yet; false when there is none.
    package func withdraw(invitationHash hash: String, from appID: String, by actor: AuditActor?) async throws -> Bool {
        guard let invitation = try await store.invitation(tokenHash: hash), invitation.appID == appID,
              try await store.deleteInvitation(tokenHash: hash, appID: appID) else { return false }
        try await admin.audit(actor, "withdrawn", "invitation", String(hash.prefix(12)), app: appID, environment: nil,
                              changes: ["email": AuditChange(before: invitation.email, after: nil), "role": AuditChange(before: invitation.role.rawValue, after: nil)])
        return true
    }

    /// Takes a user's role in an app away; false when they had none.
    package func removeMember(_ user: UserRecord, from appID: String, by actor: AuditActor?) async throws -> Bool {
        guard let before = try await store.memberships(userID: user.id).first(where: { $0.appID == appID }),
              try await store.removeMembership(userID: user.id, appID: appID) else { return false }
        try await admin.audit(actor, "removed", "member", user.id, app: appID, environment: nil,
                              changes: ["email": AuditChange(before: user.email, after: nil), "role": AuditChange(before: before.role.rawValue, after: nil)])
        return true
    }

    /// Removes an account: its roles and sessions end at once.
    package func removeUser(_ user: UserRecord, by actor: AuditActor?) async throws -> Bool {
        let apps = try await store.memberships(userID: user.id)
        guard try await store.deleteUser(id: user.id) else { return false }
        try await admin.audit(actor, "removed", "user", user.id, app: nil, environment: nil, changes: ["email": AuditChange(before: user.email, after: nil)])
        for membership in apps {
            try await admin.audit(actor, "removed", "member", user.id, app: membership.appID, environment: nil,
                                  changes: ["email": AuditChange(before: user.email, after: nil),
                                            "role": AuditChange(before: membership.role.rawValue, after: nil)])
        }
        return true
    }

    /// A new session, when the email and password are an account's; nil otherwise (after as long as a right guess
    /// takes, so that a wrong email cannot be told from a wrong password). The session's id is returned once.
    package func signIn(email text: String, password: String, address: String?, userAgent: String?) async throws -> (user: UserRecord, session: String)? {
        guard password.utf8.count <= AccountRules.maximumPasswordBytes,
              let email = try? AccountRules.validateEmail(text), let user = try await store.user(email: email) else {
            _ = await PasswordHash.verifyOffThread(password.prefix(AccountRules.maximumPasswordBytes).description, against: try await decoy())
            return nil
        }
        guard await PasswordHash.verifyOffThread(password, against: user.passwordHash) else { return nil }
        let session = try await startSession(for: user, address: address, userAgent: userAgent)
        try await admin.audit(AuditActor(kind: .user, id: user.id, label: user.email, address: address), "signed-in", "session", String(session.hash.prefix(12)),
                              app: nil, environment: nil, changes: [:])
        return (user, session.id)
    }

    /// A hash to check against when there is no account, at the cost new passwords get: made once per cost, off the
    /// request's thread (two first sign-ins at once may both make one; either serves).
    func decoy() async throws -> String {
        if let known = Self.decoys.withLock({ $0[hasher.logCost] }) { return known }
        let made = try await hasher.hashOffThread(Self.token())
        Self.decoys.withLock { $0[hasher.logCost] = made }
        return made
    }
    static let decoys = Mutex<[Int: String]>([:])

    /// A random token of 64 letters and digits (380 bits): a session's id, an invitation's link.
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        return Identifiers.apiKeySecret(using: &generator) + Identifiers.apiKeySecret(using: &generator)
    }

    /// Stores a new session of a user; its id (for the cookie) and hash.
    func startSession(for user: UserRecord, address: String?, userAgent: String?) async throws -> (id: String, hash: String) {
        let id = Self.token()
        let hash = Secrets.digest(id)
        let now = admin.now()
        try await store.createUserSession(UserSessionRecord(hash: hash, userID: user.id, createdAt: now, expiresAt: now + Self.sessionLifetime,
                                                            address: address, userAgent: userAgent.map { String($0.prefix(256)) }))
        return (id, hash)
    }

    /// The user and session a browser's session id stands for, while both last.
    package func session(id: String) async throws -> (user: UserRecord, session: UserSessionRecord)? {
        guard (16...128).contains(id.utf8.count), let session = try await store.userSession(hash: Secrets.digest(id), now: admin.now()),
              let user = try await store.user(id: session.userID) else { return nil }
        return (user, session)
    }

    /// Changes a user's password, once the current one is given; every other session of theirs ends.
    package func changePassword(of user: UserRecord, current: String, new: String, keeping session: String?, by actor: AuditActor?) async throws {
        guard await PasswordHash.verifyOffThread(current, against: user.passwordHash) else {
            throw ValidationError(field: "currentPassword", "the current password is not right")
        }
        try await setPassword(of: user, to: new, keeping: session, by: actor)
    }

    /// Sets a user's password (the command line, an invitation); every session of theirs but `session` ends.
    package func setPassword(of user: UserRecord, to password: String, keeping session: String?, by actor: AuditActor?) async throws {
        try AccountRules.checkPassword(password, email: user.email, common: commonPasswords)
        guard try await store.setPassword(userID: user.id, hash: try await hasher.hashOffThread(password), at: admin.now(), keeping: session) else {
            throw ValidationError(code: .notFound, field: "user", "no such account")
        }
        try await admin.audit(actor, "updated", "user", user.id, app: nil, environment: nil, changes: ["password": AuditChange(before: "(set)", after: "(changed)")])
    }

    /// Invites `email` to an app with a role; the token for the link, shown once.
    package func invite(email text: String, role: MemberRole, to appID: String, by actor: AuditActor) async throws -> (invitation: Invitation, token: String) {
        let email = try AccountRules.validateEmail(text)
        let token = Self.token()
        let now = admin.now()
        let invitation = Invitation(tokenHash: Secrets.digest(token), appID: appID, email: email, role: role, invitedBy: actor.id, createdAt: now,
                                    expiresAt: now + Self.invitationLifetime)
        try await store.createInvitation(invitation)
        try await admin.audit(actor, "invited", "invitation", String(invitation.tokenHash.prefix(12)), app: appID, environment: nil,
                              changes: ["email": AuditChange(before: nil, after: email), "role": AuditChange(before: nil, after: role.rawValue)])
        return (invitation, token)
    }

    /// The invitation a link's token stands for, while it can be used.
    package func pendingInvitation(token: String) async throws -> Invitation? {
        guard (16...128).contains(token.utf8.count), let invitation = try await store.invitation(tokenHash: Secrets.digest(token)),
              invitation.usedAt == nil, invitation.expiresAt > admin.now() else { return nil }
        return invitation
    }

    /// Uses an invitation: a new account with `password` when its email has none, else the existing account once
    /// `password` is its own; the role is given (an existing member keeps a higher role: roles are lowered on the
    /// Members page, not by a link) and a session started. Throws for a used, expired or unknown link, a
    /// weak password or a wrong one.
    package func accept(token: String, password: String, address: String?, userAgent: String?) async throws -> (user: UserRecord, session: String) {
        guard let pending = try await pendingInvitation(token: token) else {
            throw ValidationError(code: .notFound, field: "invitation", "this invitation was used, withdrawn or has expired; ask for a new one")
        }
        let existing = try await store.user(email: pending.email)
        if let existing {
            guard await PasswordHash.verifyOffThread(password, against: existing.passwordHash) else {
                throw ValidationError(field: "password", "\(pending.email) has an account: give its password to join")
            }
        } else {
            try AccountRules.checkPassword(password, email: pending.email, common: commonPasswords)
        }
        guard let invitation = try await store.useInvitation(tokenHash: pending.tokenHash, now: admin.now()) else {
            throw ValidationError(code: .notFound, field: "invitation", "this invitation was used, withdrawn or has expired; ask for a new one")
        }
        var generator = SystemRandomNumberGenerator()
        let user: UserRecord
        if let existing {
            user = existing
        } else {
            user = UserRecord(id: Identifiers.make(prefix: "usr", using: &generator), email: invitation.email, passwordHash: try await hasher.hashOffThread(password),
                              createdAt: admin.now())
            try await store.createUser(user)
        }
        let actor = AuditActor(kind: .user, id: user.id, label: user.email, address: address)
        if existing == nil {
            try await admin.audit(actor, "created", "user", user.id, app: nil, environment: nil, changes: ["email": AuditChange(before: nil, after: user.email)])
        }
        let held = try await store.memberships(userID: user.id).first { $0.appID == invitation.appID }?.role
        if held.map({ $0 < invitation.role }) ?? true { try await setRole(invitation.role, of: user, in: invitation.appID, by: actor) }
        let session = try await startSession(for: user, address: address, userAgent: userAgent)
        return (user, session.id)
    }

    /// Ends one of a user's sessions.
    package func endSession(hash: String, of user: UserRecord, by actor: AuditActor?) async throws -> Bool {
        guard try await store.deleteUserSession(hash: hash, userID: user.id) else { return false }
        try await admin.audit(actor, "ended", "session", String(hash.prefix(12)), app: nil, environment: nil, changes: [:])
        return true
    }
}
#endif
