import FerryAPI
import Foundation

/// Who made a change: an API key, a person signed in to the dashboard, the command line, or the server itself.
package struct AuditActor: Sendable, Hashable {
    /// What kind of actor.
    package enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// An API key (`id` is the key's id, `label` its hint), or a dashboard session signed in with one.
        case key
        /// A person with an account (`id` is the user's id, `label` their email).
        case user
        /// The `ferry` command line on the server's machine (`id` is the system user who ran it).
        case commandLine = "cli"
        /// The server on its own (a retention purge, a first start).
        case system
    }

    /// What kind of actor.
    package var kind: Kind
    /// The key's id, the user's id, the system user's name.
    package var id: String
    /// What people recognise it by: the key's hint, the user's email. Never a key or a secret.
    package var label: String?
    /// The client address the change came from; nil from the command line and the server itself.
    package var address: String?

    /// Creates an actor.
    package init(kind: Kind, id: String, label: String? = nil, address: String? = nil) {
        self.kind = kind
        self.id = id
        self.label = label
        self.address = address
    }

    /// The actor of a request made with `key`, from `address`.
    package static func key(_ key: APIKeyRecord, address: String?) -> AuditActor {
        AuditActor(kind: .key, id: key.id, label: key.hint, address: address)
    }

    /// The command line, run by the system user `environment` names in `USER` (or `LOGNAME`), else `unknown`.
    package static func commandLine(environment: [String: String]) -> AuditActor {
        let name = environment["USER"] ?? environment["LOGNAME"] ?? "unknown"
        return AuditActor(kind: .commandLine, id: String(name.prefix(64)))
    }

    /// The server itself.
    package static let system = AuditActor(kind: .system, id: "ferry")
}

/// One field's value before and after a change, as text; nil where it had none (a field added or cleared). The same
/// value the API answers with.
package typealias AuditChange = AuditEventResponse.Change

extension AuditChange {
    /// The fields whose values differ between two snapshots (`AuditSnapshot`), each with both values.
    package static func between(_ before: [String: String], _ after: [String: String]) -> [String: AuditChange] {
        var changes: [String: AuditChange] = [:]
        for field in Set(before.keys).union(after.keys) where before[field] != after[field] {
            changes[field] = AuditChange(before: before[field], after: after[field])
        }
        return changes
    }

    /// Every field of a snapshot, as made (no before).
    package static func created(_ snapshot: [String: String]) -> [String: AuditChange] {
        snapshot.mapValues { AuditChange(before: nil, after: $0) }
    }

    /// Every field of a snapshot, as removed (no after).
    package static func removed(_ snapshot: [String: String]) -> [String: AuditChange] {
        snapshot.mapValues { AuditChange(before: $0, after: nil) }
    }
}

/// One change in the audit log: who did what to which object, when, from where.
package struct AuditEvent: Sendable, Hashable {
    /// Its position in the log (given by the store; 0 before it is stored). Later events have higher ids.
    package var id: Int64
    /// The app it concerns; nil for what belongs to no app (a person's account).
    package var appID: String?
    /// The environment it concerns; nil for what both share (the app's settings, its domains, its keys).
    package var environment: APIEnvironment?
    /// When.
    package var at: Date
    /// Who.
    package var actor: AuditActor
    /// What was done: `created`, `updated`, `deleted`, `revoked`, `verified`, `purged`…
    package var action: String
    /// The kind of object: one of `objectTypes`.
    package var objectType: String
    /// The object's id (a link's `lnk_…`, a domain's name).
    package var objectID: String
    /// The fields changed, each before and after. Secrets are never among them.
    package var changes: [String: AuditChange]

    /// Creates an event.
    package init(id: Int64 = 0, appID: String?, environment: APIEnvironment?, at: Date, actor: AuditActor, action: String,
                 objectType: String, objectID: String, changes: [String: AuditChange]) {
        self.id = id
        self.appID = appID
        self.environment = environment
        self.at = at
        self.actor = actor
        self.action = action
        self.objectType = objectType
        self.objectID = objectID
        self.changes = changes
    }
}

/// The fields of the objects the audit log follows, as text: what a change is compared on. Secrets (a key's hash, a
/// webhook's signing secret, a domain's proof token) are never among them.
package enum AuditSnapshot {
    /// A link's fields that people set (not its id, clicks or timestamps).
    package static func link(_ link: Link) -> [String: String] {
        var fields: [String: String] = [
            "domain": link.domain, "slug": link.slug, "destination": link.destination, "disabled": String(link.disabled),
            "environment": link.environment.rawValue,
        ]
        fields["iosURL"] = link.iosURL
        fields["androidURL"] = link.androidURL
        if !link.params.isEmpty { fields["params"] = json(link.params) }
        fields["utm.source"] = link.utm.source
        fields["utm.medium"] = link.utm.medium
        fields["utm.campaign"] = link.utm.campaign
        fields["utm.content"] = link.utm.content
        fields["utm.term"] = link.utm.term
        fields["campaign"] = link.campaign
        fields["referrer"] = link.referrer
        fields["social.title"] = link.social.title
        fields["social.description"] = link.social.description
        fields["social.imageURL"] = link.social.imageURL
        fields["expiresAt"] = link.expiresAt.map(FerryJSON.formatDate)
        if link.routing != LinkRouting() { fields["routing"] = json(link.routing) }
        fields["longLink"] = link.longLink
        return fields
    }

    /// An app's settings and domains.
    package static func app(_ app: App) -> [String: String] {
        var fields: [String: String] = [
            "name": app.name, "domains": app.domains.joined(separator: ", "), "clientLinks": String(app.clientLinks),
            "attribution.window": String(Int(app.attribution.window)), "attribution.copyToOpen": String(app.attribution.copyToOpen),
            "attribution.model": app.attribution.model.rawValue,
        ]
        fields["ios.teamID"] = app.ios.teamID
        if !app.ios.bundleIDs.isEmpty { fields["ios.bundleIDs"] = app.ios.bundleIDs.joined(separator: ", ") }
        fields["ios.appStoreID"] = app.ios.appStoreID
        fields["ios.urlScheme"] = app.ios.urlScheme
        fields["android.packageName"] = app.android.packageName
        if !app.android.sha256Fingerprints.isEmpty { fields["android.sha256Fingerprints"] = app.android.sha256Fingerprints.joined(separator: ", ") }
        fields["fallbackURL"] = app.fallbackURL
        fields["social.title"] = app.social.title
        fields["social.description"] = app.social.description
        fields["social.imageURL"] = app.social.imageURL
        fields["attribution.minConfidence"] = app.attribution.minConfidence.map { String($0) }
        if !app.allowedURLPatterns.isEmpty { fields["allowedURLPatterns"] = json(app.allowedURLPatterns) }
        if !app.pathPrefixes.isEmpty { fields["pathPrefixes"] = json(app.pathPrefixes) }
        return fields
    }

    /// A key's kind, environment, hint, scopes and state; never its hash.
    package static func key(_ key: APIKeyRecord) -> [String: String] {
        var fields = ["kind": key.kind.rawValue, "environment": key.environment.rawValue, "hint": key.hint]
        fields["scopes"] = key.kind == .secret ? (key.scopes.map(APIKeyScope.text) ?? "all") : nil
        fields["revokedAt"] = key.revokedAt.map(FerryJSON.formatDate)
        return fields
    }

    /// A webhook's address and events; never its signing secret.
    package static func webhook(_ webhook: Webhook) -> [String: String] {
        ["url": webhook.url, "events": webhook.events.map(\.rawValue).joined(separator: ", "), "environment": webhook.environment.rawValue]
    }

    /// Compact JSON with sorted keys.
    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

extension AuditEvent {
    /// Every kind of object an app's log records changes of: links one by one, links made in the app deleted in bulk
    /// (`links`), the app's settings, keys, webhooks, domains, members and invitations. (Accounts and their sessions
    /// belong to no app: the command line lists them, as `user` and `session`.)
    package static let objectTypes = ["link", "links", "app", "key", "webhook", "domain", "member", "invitation"]

    /// The event as the API answers it.
    package var response: AuditEventResponse {
        AuditEventResponse(
            id: String(id), at: at, appID: appID, environment: environment,
            actor: .init(kind: actor.kind.rawValue, id: actor.id, label: actor.label, address: actor.address), action: action,
            object: .init(type: objectType, id: objectID), changes: changes)
    }

    /// The columns of the audit log's CSV: one line per field changed (one with empty field columns for an event that
    /// changed none).
    package static let csvColumns = ["id", "time", "environment", "actor_kind", "actor_id", "actor_label", "address", "action",
                                     "object_type", "object_id", "field", "before", "after"]

    /// The event's lines of the CSV, its fields in name order.
    package func csvLines() -> [String] {
        let head: [String?] = [String(id), FerryJSON.formatDate(at), environment?.rawValue, actor.kind.rawValue, actor.id, actor.label,
                               actor.address, action, objectType, objectID]
        guard !changes.isEmpty else { return [CSV.line(head + [nil, nil, nil])] }
        return changes.keys.sorted().map { field in CSV.line(head + [field, changes[field]?.before, changes[field]?.after]) }
    }
}
