import Foundation

/// What a member of an app may do there. Each role may do everything the roles below it may.
package enum MemberRole: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Reads statistics, links and exports; changes nothing.
    case viewer
    /// Makes and changes links and QR codes, imports links.
    case editor
    /// Changes the app's settings, keys and webhooks.
    case admin
    /// Everything, with the app's members and domains.
    case owner

    package static func < (lhs: MemberRole, rhs: MemberRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// Whether a member of this role may do `action`.
    package func may(_ action: MemberAction) -> Bool { self >= action.leastRole }
}

/// What a person does in the dashboard, each with the least role it needs.
package enum MemberAction: String, Sendable, Hashable, CaseIterable {
    /// Read links, statistics, attribution and exports.
    case read
    /// Make, change, disable and delete links; import them.
    case editLinks
    /// Change the app's settings; make and revoke keys; add and remove webhooks; read the audit log.
    case manageSettings
    /// Ask for, verify and remove link domains.
    case manageDomains
    /// Invite, change and remove members.
    case manageMembers

    /// The least role that may do it.
    package var leastRole: MemberRole {
        switch self {
        case .read: .viewer
        case .editLinks: .editor
        case .manageSettings: .admin
        case .manageDomains, .manageMembers: .owner
        }
    }
}

/// A person who signs in to the dashboard.
package struct UserRecord: Sendable, Hashable {
    /// `usr_…`.
    package var id: String
    /// Lowercase email, unique.
    package var email: String
    /// The password's slow hash, with its parameters and salt.
    package var passwordHash: String
    /// When the account was made.
    package var createdAt: Date
    /// When the password was last set.
    package var passwordChangedAt: Date

    /// Creates a record.
    package init(id: String, email: String, passwordHash: String, createdAt: Date, passwordChangedAt: Date? = nil) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.passwordChangedAt = passwordChangedAt ?? createdAt
    }
}

/// A person's role in one app.
package struct Membership: Sendable, Hashable {
    package var userID: String
    package var appID: String
    package var role: MemberRole
    package var createdAt: Date

    /// Creates a membership.
    package init(userID: String, appID: String, role: MemberRole, createdAt: Date) {
        self.userID = userID
        self.appID = appID
        self.role = role
        self.createdAt = createdAt
    }
}

/// An invitation to join an app with a role: a single-use link that expires. Only the hash of its token is stored.
package struct Invitation: Sendable, Hashable {
    /// Hex SHA-256 of the token in the link.
    package var tokenHash: String
    package var appID: String
    /// Lowercase email of the person invited; the account made with it has this email.
    package var email: String
    package var role: MemberRole
    /// Who invited (an actor's id: a user's or a key's).
    package var invitedBy: String
    package var createdAt: Date
    package var expiresAt: Date
    /// Set once it was used (it is refused from then on).
    package var usedAt: Date?

    /// Creates an invitation.
    package init(tokenHash: String, appID: String, email: String, role: MemberRole, invitedBy: String, createdAt: Date, expiresAt: Date,
                 usedAt: Date? = nil) {
        self.tokenHash = tokenHash
        self.appID = appID
        self.email = email
        self.role = role
        self.invitedBy = invitedBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}

/// A person's signed-in session, stored by the hash of its random id; listed per person and revocable.
package struct UserSessionRecord: Sendable, Hashable {
    /// Hex SHA-256 of the id the browser holds.
    package var hash: String
    package var userID: String
    package var createdAt: Date
    package var expiresAt: Date
    /// The address it was signed in from, and its browser (shown in the person's list of sessions).
    package var address: String?
    package var userAgent: String?

    /// Creates a session record.
    package init(hash: String, userID: String, createdAt: Date, expiresAt: Date, address: String?, userAgent: String?) {
        self.hash = hash
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.address = address
        self.userAgent = userAgent
    }
}

/// The rules of accounts: email addresses and passwords.
package enum AccountRules {
    /// Passwords have at least this many characters…
    package static let minimumPasswordLength = 12
    /// …and at most this many bytes (a slow hash of a megabyte is a way to tie up the server).
    package static let maximumPasswordBytes = 1024

    /// A lowercase, trimmed email address that looks like one (one `@`, a dot inside the domain, no spaces or angle
    /// brackets), at most 254 bytes.
    package static func validateEmail(_ text: String, field: String = "email") throws(ValidationError) -> String {
        let email = text.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
              !parts[1].hasSuffix("."),
              !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0 == "<" || $0 == ">" || $0 == "\"" })
        else {
            throw ValidationError(field: field, "\(field) must be an email address such as ana@example.com")
        }
        return email
    }

    /// Refuses a password that is too short or too long, one of the common passwords shipped with Ferry (`common`,
    /// compared in lowercase), made of one or two repeated characters or of a run of consecutive ones, or holding the
    /// person's email name; the error says which.
    package static func checkPassword(_ password: String, email: String?, common: Set<String>) throws(ValidationError) {
        guard password.count >= minimumPasswordLength else {
            throw ValidationError(field: "password", "the password must have at least \(minimumPasswordLength) characters")
        }
        guard password.utf8.count <= maximumPasswordBytes else {
            throw ValidationError(field: "password", "the password must have at most \(maximumPasswordBytes) bytes")
        }
        let lowered = password.lowercased()
        if common.contains(lowered) {
            throw ValidationError(field: "password", "this password is among the commonest passwords, which are tried first; choose another")
        }
        let scalars = Array(lowered.unicodeScalars)
        if Set(scalars).count <= 2 {
            throw ValidationError(field: "password", "the password repeats one or two characters; choose one that is harder to guess")
        }
        let steps = Set(zip(scalars, scalars.dropFirst()).map { Int($0.1.value) - Int($0.0.value) })
        if steps == [1] || steps == [-1] {
            throw ValidationError(field: "password", "the password is a run of consecutive characters; choose one that is harder to guess")
        }
        if let name = email?.split(separator: "@").first.map(String.init), name.count >= 4, lowered.contains(name) {
            throw ValidationError(field: "password", "the password contains your email address; choose one that does not")
        }
    }
}
