#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Logging

/// Finds the click that led to an install, once, and stores the answer: the native match, the compatible routes and
/// user binding all come here.
struct Attributor: Sendable {
    let store: any FerryDatabase
    let recorder: ClickRecorder
    let matcher: AttributionMatcher
    let hasher: AddressHasher
    let now: @Sendable () -> Date
    let logger: Logger
    let outbox: WebhookOutbox
    /// The matchers of apps that learn their model (read from the store at each request when nil).
    var learnt: LearntMatchers? = nil
    /// Where each answer's outcome, tier and time go.
    var metrics: ServerMetrics? = nil

    /// `POST /v1/attribution/match`: validates what the SDK sent, attributes the install and answers with its link.
    func match(_ body: MatchRequest, app: App, environment: APIEnvironment, address: IPAddress?) async throws -> MatchResponse {
        let installID = try AttributionRules.validateIdentifier(body.installID, field: "installID", max: AttributionRules.maxInstallIDLength)
        let installationID = try body.installationID.map { id throws(ValidationError) in
            try AttributionRules.validateIdentifier(id, field: "installationID", max: AttributionRules.maxInstallIDLength)
        }
        let signals = try AttributionRules.validate(body.signals)
        if let token = body.clickToken { try LinkRules.checkText(token, field: "clickToken", max: 64) }
        if let referrer = body.referrer { try LinkRules.checkText(referrer, field: "referrer", max: 2048) }
        let minConfidence = try body.minConfidence.map { m throws(ValidationError) in try AttributionRules.validateMinConfidence(m) }
        let record = try await attribute(app: app, environment: environment, installID: installID, installationID: installationID, signals: signals,
                                         clickToken: body.clickToken, referrer: body.referrer, address: address, minConfidence: minConfidence)
        return try await answer(for: record, app: app)
    }

    /// The click that led to an install, found once and stored: the answer given before to this install, else a
    /// pasteboard token, else the Play Store referrer, else (for a re-install) the newest click from a browser that led
    /// the install to the app before, else the probabilistic matcher; "not matched" is stored too. An install id gets
    /// one answer per installation (`installationID`): the same id with another installation is a re-install, answered
    /// afresh from the clicks made since its last answer.
    /// Every route that attributes installs (the native match and the compatibility routes) comes here;
    /// `acceptThreshold` lowers or raises the posterior a probabilistic match needs (the model's by default);
    /// `keepsMisses: false` leaves a "not matched" answer unstored, for callers whose install id is only a guess
    /// (a later click from the same device may then still be found).
    ///
    /// A minimum confidence (`minConfidence`, else the app's default) replaces `acceptThreshold`: a probabilistic
    /// match is made only when it states at least that confidence, and a stored one that states less is answered "not
    /// matched" (and stays stored, its click taken), so that the same request always gets the same answer.
    func attribute(app: App, environment: APIEnvironment, installID: String, installationID: String? = nil, signals: DeviceSignals, clickToken: String?,
                   referrer: String?, address: IPAddress?, acceptThreshold: Double? = nil, minConfidence: Double? = nil,
                   keepsMisses: Bool = true) async throws -> AttributionRecord {
        let minimum = minConfidence ?? app.attribution.minConfidence
        let install = Install(id: installID, installation: installationID)
        let started = ContinuousClock.now
        return try await FerryTracing.span("attribution match", attributes: ["ferry.app_id": app.id]) { span in
            var repeated = false
            var record = try await findOrMatch(app: app, environment: environment, install: install, signals: signals, clickToken: clickToken,
                                               referrer: referrer, address: address, acceptThreshold: acceptThreshold, minConfidence: minimum,
                                               keepsMisses: keepsMisses, repeated: &repeated)
            if !Self.meetsMinimum(record, minimum) {
                logger.debug("stored match less sure than asked", metadata: ["confidence": "\(record.confidence ?? 0)", "minConfidence": "\(minimum ?? 0)"])
                record = try await miss(app: app, environment: environment, install: install, at: record.createdAt, keep: false)
            }
            let labels = ServerMetrics.matchLabels(record, repeated: repeated)
            span?.attributes["ferry.attribution.outcome"] = labels.outcome
            span?.attributes["ferry.attribution.tier"] = labels.tier
            metrics?.matched(record, repeated: repeated, nanoseconds: (ContinuousClock.now - started).wholeNanoseconds)
            return record
        }
    }

    /// The install an answer is for: its id, and the installation when the app names it.
    struct Install: Sendable {
        var id: String
        var installation: String?
    }

    /// The answer stored for the install to give again, or nil when the request is a re-install: the same install id
    /// from another installation than the one last answered. An answer given before installations were named (an app
    /// updated from an older FerryKit) is taken as this installation's.
    func storedAnswer(_ stored: AttributionRecord, install: Install) async throws -> AttributionRecord? {
        guard let installation = install.installation, stored.installationID != installation else { return stored }
        if stored.installationID == nil {
            let adopted = try await store.adoptInstallation(appID: stored.appID, environment: stored.environment, installID: install.id,
                                                           installationID: installation) ?? stored
            if adopted.installationID == installation { return adopted }
        }
        return nil
    }

    /// The stored answer for the install, else a new one, stored (see `attribute`).
    private func findOrMatch(app: App, environment: APIEnvironment, install installing: Install, signals: DeviceSignals, clickToken: String?,
                             referrer: String?, address: IPAddress?, acceptThreshold: Double?, minConfidence: Double?,
                             keepsMisses: Bool, repeated: inout Bool) async throws -> AttributionRecord {
        let installID = installing.id
        // The answer before this one, when this is a re-install.
        var previous: AttributionRecord?
        if let stored = try await store.attribution(appID: app.id, environment: environment, installID: installID, installationID: installing.installation) {
            if let answer = try await storedAnswer(stored, install: installing) {
                repeated = true
                return answer
            }
            previous = stored
        }
        let time = now()
        let window = app.attribution.window
        let install = InstallEvidence(addressHash: address.map(hasher.hash), networkHash: address.map(hasher.hashNetwork), signals: signals, at: time)
        let query = CandidateQuery(appID: app.id, environment: environment, install: install, window: window)
        let platform = Self.clientPlatform(of: signals)
        // Apps that learn their model record what each answer was made from (`observe`).
        let learns = app.attribution.model != .fixed

        // Deterministic tiers: a pasteboard token, then the Play Store referrer.
        let tokens = [clickToken.flatMap(AttributionRules.clickID(fromToken:)), referrer.flatMap(AttributionRules.clickID(fromReferrer:))]
        for clickID in tokens.compactMap({ $0 }) {
            let since = time.addingTimeInterval(-window)
            var found = try await store.unconsumedClick(id: clickID, appID: app.id, environment: environment, since: since)
            if found == nil {
                // The click happened moments ago and still waits in the recorder (or is being written, or was written
                // between the read and now): write it now, and read again.
                _ = await recorder.waitUntilWritten(clickID: clickID, timeout: Self.signalsWait)
                found = try await store.unconsumedClick(id: clickID, appID: app.id, environment: environment, since: since)
            }
            guard let click = found else {
                continue  // another app's token, a replay, or too old: fall through to the other tiers
            }
            // What the probabilistic tier would have been offered without the token (before the click is consumed).
            let counterfactual = learns ? await candidatesToObserve(query, platform: platform) : nil
            if let stored = try await bindCertain(click, app: app, environment: environment, install: installing, evidence: install,
                                                  counterfactual: counterfactual, at: time) {
                return stored
            }
        }

        // A re-install: the newest click since the last answer from a browser that led this install to the app before
        // (nil when another install took it meanwhile: the other tiers then answer).
        if let previous, let click = try await store.linkedBrowserClick(appID: app.id, environment: environment, installID: installID,
                                                                           since: max(time.addingTimeInterval(-window), previous.createdAt)) {
            let counterfactual = learns ? await candidatesToObserve(query, platform: platform) : nil
            if let stored = try await bindCertain(click, app: app, environment: environment, install: installing, evidence: install,
                                                  counterfactual: counterfactual, at: time) {
                return stored
            }
        }

        // A learning app takes a Play Store referrer that arrived and names no click of its as the Play Store's own
        // install (Play's `utm_medium=organic`): not matched, and an organic label for its model.
        if learns, platform == .android, let referrer, !referrer.isEmpty, AttributionRules.clickID(fromReferrer: referrer) == nil {
            let candidates = await candidatesToObserve(query, platform: platform)
            let answer = try await miss(app: app, environment: environment, install: installing, at: time, keep: keepsMisses)
            if keepsMisses, answer.clickID == nil, answer.createdAt == time, let candidates {
                await observe(.organic, install: install, candidates: candidates, app: app, environment: environment, installID: installID)
            }
            return answer
        }

        // The probabilistic tier; a click taken by a concurrent install is left out and the match tried again.
        let matcher = learns ? await learntMatcher(app: app, environment: environment) : self.matcher
        var excluded = Set<String>()
        var candidates = CandidateSet(clicks: [], clicksInWindow: 0, sameAddressClicks: 0, sameNetworkClicks: 0)
        for _ in 0..<3 {
            candidates = try await store.candidates(query, platform: platform)
            candidates.clicks.removeAll { excluded.contains($0.clickID) }
            switch matcher.match(install: install, candidates: candidates, window: window, acceptThreshold: acceptThreshold,
                                 minConfidence: minConfidence) {
            case .matched(let clickID, let linkID, let confidence):
                let record = AttributionRecord(appID: app.id, environment: environment, installID: installID, clickID: clickID,
                                               linkID: linkID, matchType: .probabilistic, confidence: confidence, createdAt: time,
                                               installationID: installing.installation)
                if let stored = try await bind(record) {
                    if learns, stored == record {
                        await observe(.unlabelled, install: install, candidates: candidates, app: app, environment: environment, installID: installID)
                    }
                    return stored
                }
                excluded.insert(clickID)
            case .declined(let reason):
                logger.debug("install not matched", metadata: ["reason": "\(reason.rawValue)", "candidates": "\(candidates.clicks.count)"])
                return try await missObserved(app: app, environment: environment, install: installing, evidence: install, candidates: candidates,
                                              keep: keepsMisses, learns: learns)
            }
        }
        return try await missObserved(app: app, environment: environment, install: installing, evidence: install, candidates: candidates,
                                      keep: keepsMisses, learns: learns)
    }

    /// Stores a deterministic match to `click`; nil when another install took the click first. When this request stored
    /// it, the click's browser is linked to the install (its clicks before a re-install are this device's), the click is
    /// a person's, and a learning app observes the install labelled by the click, beside `counterfactual`, the
    /// candidates the probabilistic tier would have weighed without it.
    private func bindCertain(_ click: ClickEvidence, app: App, environment: APIEnvironment, install: Install, evidence: InstallEvidence,
                             counterfactual: CandidateSet?, at time: Date) async throws -> AttributionRecord? {
        let record = AttributionRecord(appID: app.id, environment: environment, installID: install.id, clickID: click.clickID, linkID: click.linkID,
                                       matchType: .deterministic, confidence: 1, createdAt: time, installationID: install.installation)
        guard let stored = try await bind(record) else { return nil }
        guard stored == record else { return stored }
        try await store.linkBrowser(ofClick: click.clickID, appID: app.id, environment: environment, to: install.id, at: time)
        // A token, a Play referrer or a known browser reached the app: whoever made the click was a person, also when the
        // browser fetched it ahead (a prefetched redirect to the store that was then followed).
        // A read first: a write for every deterministic match would hold the writer for nothing.
        if try await store.click(id: click.clickID)?.traffic == .prefetch {
            _ = try await store.reclassifyClicks(ids: [click.clickID], from: [.prefetch], to: .person)
        }
        if let counterfactual {
            await observe(.click(click), install: evidence, candidates: counterfactual, app: app, environment: environment, installID: install.id)
        }
        return stored
    }

    /// A "not matched" answer (stored when `keep`), observed when it was stored and the app learns.
    func missObserved(app: App, environment: APIEnvironment, install: Install, evidence: InstallEvidence, candidates: CandidateSet,
                      keep: Bool, learns: Bool) async throws -> AttributionRecord {
        let answer = try await miss(app: app, environment: environment, install: install, at: evidence.at, keep: keep)
        if learns, keep, answer.clickID == nil, answer.createdAt == evidence.at {
            await observe(.unlabelled, install: evidence, candidates: candidates, app: app, environment: environment, installID: install.id)
        }
        return answer
    }

    func miss(app: App, environment: APIEnvironment, install: Install, at time: Date, keep: Bool) async throws -> AttributionRecord {
        let record = AttributionRecord(appID: app.id, environment: environment, installID: install.id, clickID: nil, linkID: nil,
                                       matchType: nil, confidence: nil, createdAt: time, installationID: install.installation)
        guard keep else { return record }
        return try await bind(record) ?? record
    }

    /// Stores a match; nil when the click went to another install first. When the same install raced itself,
    /// the answer stored first is returned.
    func bind(_ record: AttributionRecord) async throws -> AttributionRecord? {
        do {
            try await store.insertAttribution(record)
            await outbox.installAttributed(record)
            return record
        } catch let conflict as StoreConflict where conflict.field == "installID" {
            return try await store.attribution(appID: record.appID, environment: record.environment, installID: record.installID,
                                               installationID: record.installationID)
        } catch is StoreConflict {
            return nil
        }
    }

    func answer(for record: AttributionRecord, app: App) async throws -> MatchResponse {
        guard record.matched, let linkID = record.linkID, let link = try await store.link(id: linkID, appID: app.id) else { return .notMatched }
        return MatchResponse(matched: true, matchType: record.matchType, confidence: record.confidence, isDeferred: true, link: link.data(in: app))
    }

    /// Binds a user id to an install. A secret key is the app's backend, which knows who signed in where; a
    /// publishable key is any copy of the app, which may name any user id: its binding is provisional, and it is shown
    /// only its own install's.
    func bindUser(_ body: AttributeUserRequest, app: App, key: APIKeyRecord) async throws -> AttributeUserResponse {
        let installID = try AttributionRules.validateIdentifier(body.installID, field: "installID", max: AttributionRules.maxInstallIDLength)
        let userID = try AttributionRules.validateIdentifier(body.userID, field: "userID", max: AttributionRules.maxUserIDLength)
        let authority: UserBinding.Authority = key.kind == .secret ? .server : .device
        let binding = try await store.bindUser(appID: app.id, environment: key.environment, userID: userID, installID: installID,
                                               authority: authority, now: now())
        let bound = binding.installID == installID
        // The person signed in on this install, whichever install their user id was first bound to (a new phone).
        await labelObservation(userID: userID, installID: installID, app: app, environment: key.environment)
        guard bound || authority == .server else {
            return AttributeUserResponse(userID: userID, attributed: false, boundToThisInstall: false)
        }
        let matched = Self.meetsMinimum(binding.attribution, app.attribution.minConfidence) ? try await answer(for: binding.attribution, app: app) : .notMatched
        return AttributeUserResponse(userID: binding.userID, attributed: matched.matched, matchType: matched.matchType, confidence: matched.confidence,
                                     link: matched.link, boundToThisInstall: bound)
    }

    /// The LimeLink-style deferred deep link: the click this device made, found by the same matcher (and consumed the
    /// same way), with the short URL it was made on and the query it carried; nil when there is none. This SDK sends
    /// no install id: the device's network, screen and system stand for one, so that asking again gets the same
    /// answer and never a second click.
    func deviceClick(app: App, environment: APIEnvironment, signals: DeviceSignals, address: IPAddress?) async throws -> (Link, String)? {
        let installID = "dl_" + hasher.hash(text: [address.map(hasher.hash) ?? "-", "\(signals.screenWidth ?? 0)x\(signals.screenHeight ?? 0)",
                                                 signals.platform ?? "-", signals.osVersion ?? "-"].joined(separator: "|"))
        let record = try await attribute(app: app, environment: environment, installID: installID, signals: signals,
                                         clickToken: nil, referrer: nil, address: address, keepsMisses: false)
        guard record.matched, let linkID = record.linkID, let link = try await store.link(id: linkID, appID: app.id) else { return nil }
        var fullRequestURL = link.shortURL(in: app)
        if let clickID = record.clickID, let click = try await store.click(id: clickID), let clickQuery = click.query, !clickQuery.isEmpty {
            fullRequestURL += "?" + clickQuery
        }
        return (link, fullRequestURL)
    }

    /// The LinkTrace-style attribution of a user id, from the app's own HTTP client (its address, system and
    /// languages stand for the install).
    ///
    /// With a publishable key (the app itself), the answer is always this device's own: the device is told apart by
    /// its network and its HTTP client, and the user id with it names the install, so a caller that sends someone
    /// else's user id gets the attribution of its own device, never theirs, and cannot take the user id from them.
    /// The first device's answer is also bound to the user, provisionally. With a secret key (the app's backend), the
    /// user's binding is answered, and made from the caller's request when there is none.
    func attributeUser(_ userID: String, app: App, environment: APIEnvironment, key: APIKeyRecord, signals: DeviceSignals, address: IPAddress?,
                       userAgent: String, acceptThreshold: Double) async throws -> (AttributionRecord?, Link?) {
        func attributeDevice(installID: String) async throws -> AttributionRecord {
            try await attribute(app: app, environment: environment, installID: installID, signals: signals,
                                clickToken: nil, referrer: nil, address: address, acceptThreshold: acceptThreshold)
        }
        let record: AttributionRecord?
        if key.kind == .publishable {
            let device = "ua:\(userAgent)|net:\(address.map(hasher.hashNetwork) ?? "")"
            let installID = "usr_" + hasher.hash(text: "user:" + userID + "|" + device)
            let own = try await attributeDevice(installID: installID)
            _ = try await store.bindUser(appID: app.id, environment: environment, userID: userID, installID: installID, authority: .device, now: now())
            await labelObservation(userID: userID, installID: installID, app: app, environment: environment)
            record = own
        } else if let binding = try await store.userBinding(appID: app.id, environment: environment, userID: userID) {
            record = binding.attribution
        } else {
            let installID = "usr_" + hasher.hash(text: "user:" + userID)
            _ = try await attributeDevice(installID: installID)
            let binding = try await store.bindUser(appID: app.id, environment: environment, userID: userID, installID: installID, authority: .server,
                                                   now: now())
            await labelObservation(userID: userID, installID: installID, app: app, environment: environment)
            record = binding.attribution
        }
        var link: Link?
        if let record, record.matched, Self.meetsMinimum(record, app.attribution.minConfidence), let linkID = record.linkID {
            link = try await store.link(id: linkID, appID: app.id)
        }
        return (record, link)
    }

    /// Whether a stored answer may be given at a minimum confidence: anything but a probabilistic match stating less.
    /// The match route asks it with the request's minimum (else the app's); a user's binding, where no request names
    /// one, with the app's, which may have been raised since the match.
    static func meetsMinimum(_ record: AttributionRecord, _ minimum: Double?) -> Bool {
        guard let minimum, record.matched, record.matchType == .probabilistic else { return true }
        return (record.confidence ?? 0) >= minimum
    }

    /// What the interstitial's script reports about the device of a click: stored as evidence for the matcher. Only a
    /// recent click of the app (the page was just shown for it) may be described: a report for any other id would put
    /// made-up devices among the candidates of matches. `browser`, the id the page keeps in the browser's storage, is
    /// kept only as a keyed hash.
    func describe(clickID: String, app: App, signals: DeviceSignals, browser: String? = nil) async throws {
        let time = now()
        var click = try await store.click(id: clickID)
        if click == nil {
            // Still waiting in the recorder, or written between the read and now: read again once it is written.
            // The page reports as soon as it loads, often before its click's batch is written; the recorder's writer runs
            // at a lower priority, so on a busy machine that can take seconds (the beacon's sender does not wait).
            _ = await recorder.waitUntilWritten(clickID: clickID, timeout: Self.signalsWait)
            click = try await store.click(id: clickID)
        }
        guard let click, click.appID == app.id, click.createdAt > time.addingTimeInterval(-Self.signalsWindow) else {
            throw ValidationError(code: .notFound, field: "click", "no recent click on this host has that id")
        }
        try await store.recordClickSignals(ClickSignalsRecord(clickID: clickID, appID: app.id, signals: AttributionRules.sanitize(signals),
                                                              receivedAt: time, browserHash: browser.map { hasher.hash(text: "browser:" + $0) }))
        // The page's script reports only once its page is shown: a prefetched page that reports was a person's visit.
        if click.traffic == .prefetch { _ = try await store.reclassifyClicks(ids: [clickID], from: [.prefetch], to: .person) }
    }

    /// How long after its click the interstitial's report is taken (the page sends it as soon as it loads).
    static let signalsWindow: TimeInterval = 3600
    /// How long a report waits for its click to be written.
    static let signalsWait: Duration = .seconds(8)
}
#endif
