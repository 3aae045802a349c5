#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation

/// Something a store refused because it would break a uniqueness rule (a taken slug, a domain of another app).
package struct StoreConflict: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field that collided.
    package var field: String
    /// A sentence for people.
    package var message: String

    /// Creates a conflict.
    package init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    package var description: String { message }
}

extension StoreConflict {
    /// The conflict of an app's domains with the domains other apps own, or nil: a host belongs to at most one app,
    /// counting its parents and subdomains (`DomainName.overlap`). Stores call it inside the transaction that writes
    /// the domains, after locking them against concurrent writers.
    package static func domainConflict(of app: App, othersOwn taken: [String]) -> StoreConflict? {
        for host in app.domains {
            guard let owned = taken.first(where: { DomainName.overlap($0, host) }) else { continue }
            let message = owned == host
                ? "domain '\(host)' already belongs to an app"
                : "domain '\(host)' overlaps '\(owned)', which belongs to another app: a host belongs to one app, with its parent domains and subdomains"
            return StoreConflict(field: "domain", message: message)
        }
        return nil
    }
}

/// Apps and their link domains.
package protocol AppStore: Sendable {
    /// Stores a new app with its domains; throws `StoreConflict` when a domain, one of its parents or one of its
    /// subdomains belongs to another app.
    func createApp(_ app: App) async throws
    /// Replaces an app's settings and domains; false when it does not exist. Throws `StoreConflict` as `createApp`.
    func updateApp(_ app: App) async throws -> Bool
    /// One app by id.
    func app(id: String) async throws -> App?
    /// The app a link host belongs to.
    func app(forDomain host: String) async throws -> App?
    /// Every app, oldest first.
    func listApps() async throws -> [App]
}

/// API keys, stored as hashes.
package protocol KeyStore: Sendable {
    /// Stores a key record.
    func createKey(_ key: APIKeyRecord) async throws
    /// The key with this hash, revoked or not.
    func key(hash: String) async throws -> APIKeyRecord?
    /// The key with this id, revoked or not.
    func key(id: String) async throws -> APIKeyRecord?
    /// An app's keys, oldest first.
    func keys(appID: String) async throws -> [APIKeyRecord]
    /// Revokes a key; false when there is no such unrevoked key.
    func revokeKey(id: String, at date: Date) async throws -> Bool
}

/// One page of links.
package struct LinkPage: Sendable, Hashable {
    /// Links, newest first.
    package var links: [Link]
    /// The cursor of the next page, nil on the last.
    package var nextCursor: Int64?

    /// Creates a page.
    package init(links: [Link], nextCursor: Int64?) {
        self.links = links
        self.nextCursor = nextCursor
    }
}

/// Short links.
package protocol LinkStore: Sendable {
    /// Stores a new link; throws `StoreConflict` (field `slug`) when the slug is taken on its domain.
    func createLink(_ link: Link) async throws
    /// Replaces a link; false when it does not exist.
    func updateLink(_ link: Link) async throws -> Bool
    /// Deletes a link of an app; false when it does not exist.
    func deleteLink(id: String, appID: String) async throws -> Bool
    /// One link by id, only within an app.
    func link(id: String, appID: String) async throws -> Link?
    /// The link a click names.
    func link(domain: String, slug: String) async throws -> Link?
    /// A page of an app's links of one environment that meet `filter`, newest first; `after` is a cursor from a
    /// previous page of the same filter.
    func listLinks(appID: String, environment: APIEnvironment, filter: LinkFilter, limit: Int, after: Int64?) async throws -> LinkPage
    /// The iPad bundle ids an app's links name in their routing (for its association file), at most `limit`.
    func ipadBundleIDs(appID: String, limit: Int) async throws -> [String]
    /// Stores a link made in the app under the digest of the request that made it, unless a link stored under the same
    /// digest (for the same app) was created at or after `since`: then that link, and nothing is stored (`created`
    /// false). A link under the digest made before `since` stays, but no longer answers for it. Throws
    /// `StoreConflict` (field `slug`) when the slug is taken on its domain. Two such calls never both create.
    func createLink(_ link: Link, requestDigest: String, reusingSince since: Date) async throws -> (link: Link, created: Bool)
    /// Deletes at most `limit` of the links an app's installs made in one environment, created before `before`
    /// (oldest first); where those deleted answered.
    func deleteLinksCreatedInApp(appID: String, environment: APIEnvironment, createdBefore before: Date, limit: Int) async throws -> [LinkChanges.Place]
}

extension LinkStore {
    /// A page of an app's links of one environment, newest first, whoever made them.
    package func listLinks(appID: String, environment: APIEnvironment, limit: Int, after: Int64?) async throws -> LinkPage {
        try await listLinks(appID: appID, environment: environment, filter: LinkFilter(), limit: limit, after: after)
    }

    /// A page of an app's links of one environment, newest first: with `createdInApp`, only the links made (true) or
    /// not made (false) by the app's installs.
    package func listLinks(appID: String, environment: APIEnvironment, createdInApp: Bool?, limit: Int, after: Int64?) async throws -> LinkPage {
        try await listLinks(appID: appID, environment: environment, filter: LinkFilter(createdInApp: createdInApp), limit: limit, after: after)
    }
}

/// The SQL condition of a links listing that keeps the links made in the app (true), the others (false) or all (nil),
/// written as the partial index `links_created_in_app` is, so that the planner uses it.
func createdInAppCondition(_ createdInApp: Bool?) -> String {
    switch createdInApp {
    case true?: " AND created_in_app"
    case false?: " AND NOT created_in_app"
    case nil: ""
    }
}

/// A `LIKE` pattern that finds `text` anywhere, with `\` escaping the pattern's own `%`, `_` and `\`.
func containsPattern(_ text: String) -> String {
    var pattern = "%"
    for character in text.lowercased() {
        if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
        pattern.append(character)
    }
    return pattern + "%"
}

/// Clicks, written in batches by the click recorder.
package protocol ClickStore: Sendable {
    /// Stores clicks in one transaction.
    func recordClicks(_ clicks: [Click]) async throws
    /// How many clicks a link has.
    func clickCount(linkID: String) async throws -> Int
    /// One click by id.
    func click(id: String) async throws -> Click?
    /// Readies storage for the clicks of the days around `now` (PostgreSQL makes each day's partition ahead of time).
    func prepareClickStorage(now: Date) async throws
    /// Forgets clicks made before `cutoff`; returns how many went (whole days' partitions on PostgreSQL, counted before
    /// they are dropped).
    func expireClicks(before cutoff: Date) async throws -> Int
    /// Changes the kind of the stored clicks among `ids` whose kind is one of `from` to `traffic`, and moves them in
    /// the roll-up (`StatsRollup.reclassification`) in the same transaction; returns the clicks changed, as they are
    /// now. Clicks of other kinds, and ids not stored, are left alone.
    func reclassifyClicks(ids: [String], from: Set<ClickTraffic>, to traffic: ClickTraffic) async throws -> [Click]
}

/// Small server-wide settings, such as the key of the IP hash.
package protocol SettingsStore: Sendable {
    /// A setting's value.
    func setting(_ name: String) async throws -> String?
    /// Stores a setting only when it has none yet; returns the value that is stored afterwards.
    func insertSettingIfAbsent(_ name: String, value: String) async throws -> String
}

/// What the interstitial's script reported about the device of a click.
package struct ClickSignalsRecord: Sendable, Hashable {
    /// The click.
    package var clickID: String
    /// The app of the link domain the page was served on.
    package var appID: String
    /// The signals, already validated.
    package var signals: DeviceSignals
    /// When they arrived.
    package var receivedAt: Date
    /// A keyed hash of the id the page keeps in the browser's storage, when it sent one: what ties the browser's later
    /// clicks to a device it led to the app (`linkBrowser`).
    package var browserHash: String?

    /// Creates a record.
    package init(clickID: String, appID: String, signals: DeviceSignals, receivedAt: Date, browserHash: String? = nil) {
        self.browserHash = browserHash
        self.clickID = clickID
        self.appID = appID
        self.signals = signals
        self.receivedAt = receivedAt
    }
}

/// Attribution: click signals, candidates, answers given to installs, users bound to them, SDK events.
package protocol AttributionStore: Sendable {
    /// Stores the first report of a click's device signals (later ones are ignored).
    func recordClickSignals(_ record: ClickSignalsRecord) async throws
    /// The unconsumed clicks worth comparing with an install, and the counts the matcher weighs them with.
    /// `platform` limits clicks to one platform when known.
    func candidates(_ query: CandidateQuery, platform: ClientPlatform?) async throws -> CandidateSet
    /// One click as evidence, if it belongs to the app and environment, is recent enough and is not consumed.
    func unconsumedClick(id: String, appID: String, environment: APIEnvironment, since: Date) async throws -> ClickEvidence?
    /// The answer already given to an install: to `installationID` when it has one, else the newest (an install id has
    /// one answer per installation, `MatchRequest.installationID`).
    func attribution(appID: String, environment: APIEnvironment, installID: String, installationID: String?) async throws -> AttributionRecord?
    /// Stores an answer; throws `StoreConflict` with field `installID` when the install has one, `clickID` when
    /// another install consumed the click first.
    func insertAttribution(_ record: AttributionRecord) async throws
    /// Names the installation of an install's answer that was given before installations were named (an app updated to a
    /// FerryKit that sends them); an answer that names one keeps it. Returns the answer as it is afterwards.
    func adoptInstallation(appID: String, environment: APIEnvironment, installID: String, installationID: String) async throws -> AttributionRecord?
    /// Remembers that the browser the click's page ran in (its `browserHash`) led `installID` to the app, when the page
    /// sent one; a link made again is renewed. Returns whether there was a browser to link.
    @discardableResult
    func linkBrowser(ofClick clickID: String, appID: String, environment: APIEnvironment, to installID: String, at time: Date) async throws -> Bool
    /// The newest unconsumed click of the app's people made at or after `since` in a browser linked to `installID`.
    func linkedBrowserClick(appID: String, environment: APIEnvironment, installID: String, since: Date) async throws -> ClickEvidence?
    /// The binding of a user id, if it was ever bound.
    func userBinding(appID: String, environment: APIEnvironment, userID: String) async throws -> UserBinding?
    /// Binds a user to an install's attribution the first time and returns the binding that holds afterwards: a
    /// binding stays as it was made, except that a `.server` binding replaces a `.device` one (the backend knows
    /// which install its user signed in on; a publishable key can claim any user id).
    func bindUser(appID: String, environment: APIEnvironment, userID: String, installID: String, authority: UserBinding.Authority,
                  now: Date) async throws -> UserBinding
    /// Stores SDK events.
    func recordEvents(_ events: [EventRecord]) async throws
    /// How many events of a name an app has (for tests and statistics).
    func eventCount(appID: String, name: String) async throws -> Int
    /// Forgets click signals and client hashes older than each app's attribution window, a signed-in person's
    /// token once the window and `AttributionObservationRecord.pendingHorizon` have both passed (a binding can label
    /// no install with it any more), and links of browsers to installs older than `AttributionRules.browserLinkRetention`;
    /// returns rows touched.
    func purgeAttributionSignals(now: Date) async throws -> Int
}

/// One install as the learner will see it (anonymised: see `LearningObservation.anonymised()`), with its app and when
/// it was answered.
package struct AttributionObservationRecord: Sendable, Equatable {
    /// The app.
    package var appID: String
    /// Live or test.
    package var environment: APIEnvironment
    /// When the install was answered.
    package var observedAt: Date
    /// The observation.
    package var observation: LearningObservation
    /// For an unlabelled observation a user binding may still label: a keyed hash of its install id…
    package var installKey: String?
    /// …and the observation before it was anonymised, kept until `pendingHorizon` has passed (or it is labelled).
    package var pending: LearningObservation?

    /// How long after its install an unlabelled observation may still be labelled by a user binding: a day (an app
    /// binds its user when the person signs in, in the first sessions), after which its raw form, which holds hashed
    /// addresses, is forgotten as the clicks' own are after their attribution window.
    package static let pendingHorizon: TimeInterval = 86400

    /// Creates a record.
    package init(appID: String, environment: APIEnvironment, observedAt: Date, observation: LearningObservation, installKey: String? = nil,
                 pending: LearningObservation? = nil) {
        self.appID = appID
        self.environment = environment
        self.observedAt = observedAt
        self.observation = observation
        self.installKey = installKey
        self.pending = pending
    }
}

/// An observation a user binding may still label: its row and its raw form.
package struct PendingObservation: Sendable, Equatable {
    /// The row.
    package var id: Int64
    /// When the install was answered.
    package var observedAt: Date
    /// The observation before it was anonymised.
    package var observation: LearningObservation

    /// Creates one.
    package init(id: Int64, observedAt: Date, observation: LearningObservation) {
        self.id = id
        self.observedAt = observedAt
        self.observation = observation
    }
}

/// One version of the model learnt for an app and environment, without the model.
package struct AttributionModelVersion: Sendable, Hashable {
    /// Whether the matcher answers with it.
    package enum Status: String, Sendable, Hashable, Codable {
        /// The one the app answers with.
        case active
        /// Replaced by a newer version.
        case superseded
    }

    package var appID: String
    package var environment: APIEnvironment
    /// 1, 2, 3… per app and environment.
    package var version: Int
    /// When it was fitted.
    package var createdAt: Date
    package var status: Status
    /// What it was fitted on and what it says.
    package var summary: AttributionModelSummary

    /// Creates a version.
    package init(appID: String, environment: APIEnvironment, version: Int, createdAt: Date, status: Status, summary: AttributionModelSummary) {
        self.appID = appID
        self.environment = environment
        self.version = version
        self.createdAt = createdAt
        self.status = status
        self.summary = summary
    }
}

/// What the server keeps to learn each app's matching model: the installs it answered, and the models fitted on them.
package protocol AttributionLearningStore: Sendable {
    /// Stores an observation.
    func recordObservation(_ record: AttributionObservationRecord) async throws
    /// The observations of an app and environment made at or after `since`, newest first, at most `limit` (an
    /// observation that can no longer be read is left out).
    func observations(appID: String, environment: APIEnvironment, since: Date, limit: Int) async throws -> [AttributionObservationRecord]
    /// Stores a model as the app and environment's next version and makes it the active one, the previous active
    /// version becoming superseded, in one transaction; returns the new version.
    func insertModel(appID: String, environment: APIEnvironment, model: MatchModel, summary: AttributionModelSummary,
                     createdAt: Date) async throws -> AttributionModelVersion
    /// The active model of an app and environment, if one was ever fitted (nil too when it can no longer be read).
    func activeModel(appID: String, environment: APIEnvironment) async throws -> (version: AttributionModelVersion, model: MatchModel)?
    /// The versions of an app and environment's model, newest first, at most `limit`.
    func modelVersions(appID: String, environment: APIEnvironment, limit: Int) async throws -> [AttributionModelVersion]
    /// Forgets observations made before `cutoff`, and superseded models fitted before it; returns how many rows went.
    func purgeAttributionLearning(before cutoff: Date) async throws -> Int
    /// The clicks of an app and environment on `platform` whose URL carried `userToken` (`UserClickToken`), made from
    /// `from` to `to`, newest first, at most `limit`, as evidence (whether or not an install took them).
    func userClicks(appID: String, environment: APIEnvironment, userToken: String, platform: ClientPlatform, from: Date, to: Date,
                    limit: Int) async throws -> [ClickEvidence]
    /// The newest observation of an app and environment stored under `installKey` that is still pending.
    func pendingObservation(appID: String, environment: APIEnvironment, installKey: String) async throws -> PendingObservation?
    /// Replaces a pending observation by `observation` (labelled and anonymised) and forgets its raw form, once:
    /// false when it is no longer pending (labelled meanwhile, forgotten, or purged).
    func labelObservation(id: Int64, observation: LearningObservation) async throws -> Bool
    /// Forgets the raw form of the observations made before `cutoff` (they can no longer be labelled); returns how many.
    func forgetPendingObservations(before cutoff: Date) async throws -> Int
    /// The clicks of an app and environment made at or after `since` on the platforms apps are installed on, as
    /// evidence (with what their pages reported), newest first, at most `limit`: what value frequencies are counted on.
    func clickEvidence(appID: String, environment: APIEnvironment, since: Date, limit: Int) async throws -> [ClickEvidence]
    /// Runs `body` unless another process is running it for the same app and environment (then nil): refits of an
    /// app's model take turns across the nodes sharing a database.
    func whileRefitting<T: Sendable>(appID: String, environment: APIEnvironment, _ body: @escaping @Sendable () async throws -> T) async throws -> T?
}

/// Link domains apps asked for and have not proved they control yet.
package protocol DomainClaimStore: Sendable {
    /// Stores a claim; when the app claimed the domain already, keeps and returns that claim (its token unchanged).
    func createDomainClaim(_ claim: DomainClaim) async throws -> DomainClaim
    /// An app's claims, oldest first.
    func domainClaims(appID: String) async throws -> [DomainClaim]
    /// Forgets a claim; false when there was none.
    func deleteDomainClaim(appID: String, domain: String) async throws -> Bool
    /// Every domain some app owns, with that app's id.
    func domainOwners() async throws -> [(domain: String, appID: String)]
}

/// Dashboard sessions, kept as hashes of their ids.
package protocol SessionStore: Sendable {
    /// Stores a new session.
    func createSession(_ session: DashboardSessionRecord) async throws
    /// The session with this hash, if it was not ended (expired ones too: the caller checks the time).
    func session(hash: String) async throws -> DashboardSessionRecord?
    /// Ends a session; false when there was none.
    func deleteSession(hash: String) async throws -> Bool
    /// Forgets sessions that ended before `date`; returns how many went.
    func purgeSessions(expiredBefore date: Date) async throws -> Int
}

/// Daily statistics roll-ups. Clicks, answered installs and events add to them in the same transaction that stores
/// them (clicks whose id is already stored add nothing), so the counts never drift from what is stored.
package protocol StatsStore: Sendable {
    /// The roll-up of one link (`linkID`), or of an app's totals (nil), over a range of days.
    func statsRows(appID: String, environment: APIEnvironment, linkID: String?, range: StatsRange) async throws -> [StatsRow]
    /// Forgets which visitors were seen on days before `day` (their counts stay); returns how many went.
    func purgeVisitors(beforeDay day: Int) async throws -> Int
    /// The probabilistic matches an app's environment answered in `[from, to)`, counted by the confidence stated in
    /// tenths: ten counts, the first for 0 to 0.1, the last for 0.9 to 1 included.
    func matchConfidences(appID: String, environment: APIEnvironment, from: Date, to: Date) async throws -> [Int]
}

/// Ten confidence bands' counts from (band, count) rows, bands outside 0…9 put in the nearest.
func confidenceBands(_ rows: [(band: Int, count: Int)]) -> [Int] {
    var counts = Array(repeating: 0, count: 10)
    for row in rows { counts[min(9, max(0, row.band))] += row.count }
    return counts
}

/// Where an export stopped: the time and id of the last row written.
package struct ExportCursor: Sendable, Hashable {
    /// Seconds since 1970 of the last row.
    package var time: Double
    /// Its id (a click id, an install id).
    package var id: String

    /// Creates a cursor.
    package init(time: Double, id: String) {
        self.time = time
        self.id = id
    }
}

/// Raw rows for exports, read page by page in time order so that an export of any size streams.
package protocol ExportStore: Sendable {
    /// Clicks of an app and environment made in `[from, to)`, oldest first, at most `limit`, after `cursor`.
    func exportClicks(appID: String, environment: APIEnvironment, from: Date, to: Date, after cursor: ExportCursor?, limit: Int) async throws -> [Click]
    /// Answers given to installs in `[from, to)`, oldest first, at most `limit`, after `cursor` (its id an install id).
    func exportAttributions(appID: String, environment: APIEnvironment, from: Date, to: Date, after cursor: ExportCursor?, limit: Int) async throws -> [AttributionRecord]
}

/// A delivery taken for an attempt, with its webhook.
package struct ClaimedDelivery: Sendable, Hashable {
    /// The delivery.
    package var delivery: WebhookDelivery
    /// Where it goes and how it is signed.
    package var webhook: Webhook

    /// Pairs them.
    package init(delivery: WebhookDelivery, webhook: Webhook) {
        self.delivery = delivery
        self.webhook = webhook
    }
}

/// Webhooks and their deliveries: an outbox every node of a cluster works from.
package protocol WebhookStore: Sendable {
    /// Stores a webhook.
    func createWebhook(_ webhook: Webhook) async throws
    /// An app's webhooks of one environment, oldest first.
    func webhooks(appID: String, environment: APIEnvironment) async throws -> [Webhook]
    /// Deletes a webhook and what it has not delivered; false when there is no such webhook.
    func deleteWebhook(id: String, appID: String, environment: APIEnvironment) async throws -> Bool
    /// Queues deliveries.
    func enqueueDeliveries(_ deliveries: [WebhookDelivery]) async throws
    /// Takes up to `limit` deliveries due at `now`, oldest first, leaving out those of the apps in `excludingApps`,
    /// and moves their next attempt `lease` seconds ahead so that no other node takes them meanwhile.
    func claimDeliveries(now: Date, lease: Double, limit: Int, excludingApps: [String]) async throws -> [ClaimedDelivery]
    /// Gives claimed deliveries back unattempted: due again at `dueAt`, for this node or another to take.
    func releaseDeliveries(ids: [String], dueAt: Date) async throws
    /// Records an attempt: delivered, due again at `nextAttemptAt`, or given up (`failedAt`).
    func recordAttempt(deliveryID: String, status: Int?, error: String?, deliveredAt: Date?, nextAttemptAt: Date?, failedAt: Date?) async throws
    /// The latest deliveries of a webhook of an app, newest first.
    func deliveries(webhookID: String, appID: String, limit: Int) async throws -> [WebhookDelivery]
    /// How many deliveries wait for an attempt (due now or retrying later), and when the oldest of them was queued.
    func webhookQueue() async throws -> (waiting: Int, oldest: Date?)
}

extension WebhookStore {
    /// Takes up to `limit` deliveries due at `now`, of any app.
    package func claimDeliveries(now: Date, lease: Double, limit: Int) async throws -> [ClaimedDelivery] {
        try await claimDeliveries(now: now, lease: lease, limit: limit, excludingApps: [])
    }
}

/// Links changed since a mark, as ``FerryDatabase/linkChanges(since:)`` answers.
package struct LinkChanges: Sendable, Equatable {
    /// A link's place.
    package struct Place: Sendable, Hashable {
        package var domain: String
        package var slug: String

        package init(domain: String, slug: String) {
            self.domain = domain
            self.slug = slug
        }
    }

    /// The places changed, or nil when they are too many to list or the log no longer reaches back to the mark.
    package var places: [Place]?
    /// What to pass next time.
    package var mark: Int64

    package init(places: [Place]?, mark: Int64) {
        self.places = places
        self.mark = mark
    }

    /// The most places one answer lists; beyond that a cache forgets everything, which is cheaper.
    package static let listLimit = 10_000
    /// How long the log of changes is kept: a node that could not read it for longer forgets everything.
    package static let retention: TimeInterval = 3600
}

/// Everything the server keeps, behind one value.
/// Which events of the audit log to read: every condition given holds, newest first.
package struct AuditQuery: Sendable, Hashable {
    /// Only this app's events.
    package var appID: String?
    /// Only events of this environment, and those of no environment (the app's settings, domains and keys).
    package var environment: APIEnvironment?
    /// Only events about this kind of object (`link`, `key`…).
    package var objectType: String?
    /// Only events about the object with this id.
    package var objectID: String?
    /// Only events of this actor (a key's or user's id, a system user's name).
    package var actorID: String?
    /// Only events at or after this time…
    package var since: Date?
    /// …and before this one.
    package var until: Date?
    /// Only events older than this id (the cursor of the next page).
    package var before: Int64?
    /// At most this many.
    package var limit: Int

    /// Creates a query.
    package init(appID: String? = nil, environment: APIEnvironment? = nil, objectType: String? = nil, objectID: String? = nil,
                 actorID: String? = nil, since: Date? = nil, until: Date? = nil, before: Int64? = nil, limit: Int = 100) {
        self.appID = appID
        self.environment = environment
        self.objectType = objectType
        self.objectID = objectID
        self.actorID = actorID
        self.since = since
        self.until = until
        self.before = before
        self.limit = limit
    }
}

/// The audit log: every change people, keys and the command line made.
package protocol AuditStore: Sendable {
    /// Appends an event; returns it with its id.
    func recordAuditEvent(_ event: AuditEvent) async throws -> AuditEvent
    /// The events a query selects, newest (highest id) first.
    func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent]
    /// Forgets the events made before `cutoff`; how many.
    func purgeAuditEvents(before cutoff: Date) async throws -> Int
}

/// People's accounts: users, their roles per app, invitations and sessions.
package protocol AccountStore: Sendable {
    /// Stores a new user; throws `StoreConflict` (field `email`) when the email has an account.
    func createUser(_ user: UserRecord) async throws
    /// One user by id.
    func user(id: String) async throws -> UserRecord?
    /// One user by (lowercase) email.
    func user(email: String) async throws -> UserRecord?
    /// Every user, oldest first.
    func listUsers() async throws -> [UserRecord]
    /// Sets a user's password hash and ends every session of theirs but `keeping` (the one that changed it, if any);
    /// false when there is no such user.
    func setPassword(userID: String, hash: String, at date: Date, keeping session: String?) async throws -> Bool
    /// Removes a user with their memberships and sessions; false when there is none.
    func deleteUser(id: String) async throws -> Bool
    /// Gives a user a role in an app (replacing the one they had).
    func setMembership(_ membership: Membership) async throws
    /// Takes a user's role in an app away; false when they had none.
    func removeMembership(userID: String, appID: String) async throws -> Bool
    /// A user's roles, one per app.
    func memberships(userID: String) async throws -> [Membership]
    /// An app's members with their roles, oldest membership first.
    func members(appID: String) async throws -> [(user: UserRecord, membership: Membership)]
    /// Stores an invitation.
    func createInvitation(_ invitation: Invitation) async throws
    /// One invitation by the hash of its token, used or not.
    func invitation(tokenHash: String) async throws -> Invitation?
    /// An app's invitations not used yet and not expired at `now`, newest first.
    func pendingInvitations(appID: String, now: Date) async throws -> [Invitation]
    /// Marks an invitation used, once: the invitation when it was unused and unexpired at `now`, else nil. Two calls
    /// never both succeed.
    func useInvitation(tokenHash: String, now: Date) async throws -> Invitation?
    /// Withdraws an unused invitation of an app; false when there is none.
    func deleteInvitation(tokenHash: String, appID: String) async throws -> Bool
    /// Stores a session.
    func createUserSession(_ session: UserSessionRecord) async throws
    /// A session by hash, when it has not expired at `now` (its user exists: removing one removes their sessions).
    func userSession(hash: String, now: Date) async throws -> UserSessionRecord?
    /// A user's sessions that have not expired at `now`, newest first.
    func userSessions(userID: String, now: Date) async throws -> [UserSessionRecord]
    /// Ends one session of a user; false when there is none.
    func deleteUserSession(hash: String, userID: String) async throws -> Bool
    /// Forgets sessions that expired before `date`; how many.
    func purgeUserSessions(expiredBefore date: Date) async throws -> Int
}

package protocol FerryDatabase: AppStore, KeyStore, LinkStore, ClickStore, SettingsStore, AttributionStore, StatsStore, ExportStore, WebhookStore,
    DomainClaimStore, SessionStore, AttributionLearningStore, AuditStore, AccountStore {
    /// A counter that changes whenever apps, domains or keys change, whoever changed them (another process
    /// included); caches compare it to know when to drop everything they hold. Links are followed one by one
    /// through ``linkChanges(since:)``.
    func changeEpoch() async throws -> Int64
    /// The places (domain and slug) of links created, changed or deleted since `mark`, whoever changed them, and the
    /// mark to pass next time; with `mark` nil, none and the current mark. A place may come more than once, and
    /// again in a later answer. `places` is nil when too many changed to list (a bulk import) or when `mark` is
    /// older than the log keeps (``pruneLinkChanges(before:)``): a cache then forgets everything.
    func linkChanges(since mark: Int64?) async throws -> LinkChanges
    /// Forgets the log of link changes made before `cutoff`; returns how many entries went.
    func pruneLinkChanges(before cutoff: Date) async throws -> Int
    /// Throws when the database cannot answer.
    func checkHealth() async throws
    /// Releases connections.
    func close() async throws
    /// A notice each time links, apps, domains or keys change anywhere, and one after every (re)connection, when
    /// notices may have been missed; nil for stores that can only be polled through ``changeEpoch()``.
    func changeNotifications() -> AsyncStream<Void>?
    /// Whether an error says the database is away (unreachable, not answering in time) rather than that a request
    /// was wrong; such errors become 503 answers and let the edge serve what it last knew.
    func isOutage(_ error: any Error) -> Bool
    /// Whether the database is known to be away now (the last probe or operation found it so), without asking it.
    var isAway: Bool { get }
    /// `sqlite` or `postgresql`: the `system` label of the database's metrics.
    var metricsSystemName: String { get }
    /// How many connections the store may use at once.
    var connectionCapacity: Int { get }
    /// Measures each operation from now on into `metrics` (and makes its span when tracing is on).
    func observe(with metrics: StoreMetrics)
}

extension AttributionStore {
    /// The newest answer given to an install.
    package func attribution(appID: String, environment: APIEnvironment, installID: String) async throws -> AttributionRecord? {
        try await attribution(appID: appID, environment: environment, installID: installID, installationID: nil)
    }
}

extension FerryDatabase {
    /// Polled only.
    package func changeNotifications() -> AsyncStream<Void>? { nil }

    /// Only deadlines missed.
    package func isOutage(_ error: any Error) -> Bool { error is DatabaseUnavailable }
}

/// A store that can read a link without suspending, for the edge's fast path on an event loop. Only a store whose
/// point reads are quick and never wait for a server or a writer should conform (SQLite; not PostgreSQL).
package protocol ImmediateLinkReading: Sendable {
    /// The link of a domain and slug (nil when there is none), read on the calling thread. Throws
    /// `ImmediateReadUnavailable` when it cannot be read at once (every connection for it is busy), or the
    /// database's error; either way the caller takes the ordinary, asynchronous path.
    func linkImmediately(domain: String, slug: String) throws -> Link?
}

/// A store that writes clicks on the calling thread (SQLite), so that the click recorder can write them from a thread
/// of its own, at a lower scheduling priority than the threads that answer clicks.
package protocol BlockingClickWriting: Sendable {
    /// Stores clicks in one transaction, as `ClickStore.recordClicks`, on the calling thread.
    func recordClicksBlocking(_ clicks: [Click]) throws
}

/// No connection for an immediate read was free; nobody waited for one.
package struct ImmediateReadUnavailable: Error, Sendable {
    package init() {}
}
#endif
