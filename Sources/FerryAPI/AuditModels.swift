import Foundation

/// One change in an app's audit log (`GET /v1/audit-log`): who did what to which object, when, from where.
package struct AuditEventResponse: Codable, Sendable, Hashable {
    /// Who made a change.
    package struct Actor: Codable, Sendable, Hashable {
        /// `key`, `user`, `cli` or `system`.
        package var kind: String
        /// The key's id (`key_…`), the user's id, the system user who ran the command line.
        package var id: String
        /// The key's hint (`fs_live_AbCd…`) or the user's email; never a key.
        package var label: String?
        /// The client address the change came from (none from the command line).
        package var address: String?

        package init(kind: String, id: String, label: String?, address: String?) {
            self.kind = kind
            self.id = id
            self.label = label
            self.address = address
        }
    }

    /// What was changed.
    package struct Object: Codable, Sendable, Hashable {
        /// `link`, `links`, `app`, `key`, `webhook`, `domain`…
        package var type: String
        /// Its id (a domain's name for a domain).
        package var id: String

        package init(type: String, id: String) {
            self.type = type
            self.id = id
        }
    }

    /// One field before and after; a field absent on one side had no value there.
    package struct Change: Codable, Sendable, Hashable {
        package var before: String?
        package var after: String?

        package init(before: String?, after: String?) {
            self.before = before
            self.after = after
        }
    }

    /// Its position in the log, as text: later events have higher ids.
    package var id: String
    /// When.
    package var at: Date
    /// The app it concerns.
    package var appID: String?
    /// The environment it concerns; absent for what both share (the app's settings and domains).
    package var environment: APIEnvironment?
    /// Who.
    package var actor: Actor
    /// `created`, `updated`, `deleted`, `revoked`, `requested`, `verified`, `removed`, `purged`…
    package var action: String
    /// What.
    package var object: Object
    /// Each field changed; secrets are never among them.
    package var changes: [String: Change]

    package init(id: String, at: Date, appID: String?, environment: APIEnvironment?, actor: Actor, action: String, object: Object,
                 changes: [String: Change]) {
        self.id = id
        self.at = at
        self.appID = appID
        self.environment = environment
        self.actor = actor
        self.action = action
        self.object = object
        self.changes = changes
    }
}

/// A page of the audit log, newest first.
package struct AuditLogResponse: Codable, Sendable, Hashable {
    /// The events.
    package var data: [AuditEventResponse]
    /// The `cursor` of the next (older) page; absent on the last.
    package var nextCursor: String?

    package init(data: [AuditEventResponse], nextCursor: String?) {
        self.data = data
        self.nextCursor = nextCursor
    }
}
