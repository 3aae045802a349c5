#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Logging

/// What an app that learns its model (`AttributionSettings.Model.learned`) adds to attribution: each answer it gives
/// for the first time is recorded as an anonymised observation (labelled by its click for a deterministic match), and
/// its probabilistic answers come from its own model. Recording is best effort: a failure is logged, and the answer
/// given as if nothing happened.
extension Attributor {
    /// The matcher of a learning app: its active model, else the learner's prior.
    func learntMatcher(app: App, environment: APIEnvironment) async -> AttributionMatcher {
        let matchers = learnt ?? LearntMatchers(store: store, now: now, logger: logger)
        return await matchers.matcher(appID: app.id, environment: environment).matcher
    }

    /// The candidates the store offers for an install, for an observation; nil (logged) when they cannot be read.
    func candidatesToObserve(_ query: CandidateQuery, platform: ClientPlatform?) async -> CandidateSet? {
        do {
            return try await store.candidates(query, platform: platform)
        } catch {
            logger.warning("cannot read the candidates of an attribution observation", metadata: ["app": "\(query.appID)", "error": "\(error)"])
            return nil
        }
    }

    /// Stores what an answer was made from, anonymised. An unlabelled one is also kept as it was, under a keyed hash
    /// of its install id, for a day: a user bound to the install meanwhile may label it (`labelObservation`).
    func observe(_ label: LearningObservation.Label, install: InstallEvidence, candidates: CandidateSet, app: App, environment: APIEnvironment,
                 installID: String) async {
        let raw = LearningObservation(install: install, candidates: candidates, window: app.attribution.window, label: label)
        let pending = label == .unlabelled ? raw : nil
        do {
            try await store.recordObservation(AttributionObservationRecord(
                appID: app.id, environment: environment, observedAt: install.at, observation: raw.anonymised(),
                installKey: pending == nil ? nil : observationKey(installID: installID, appID: app.id, environment: environment), pending: pending))
        } catch {
            logger.warning("cannot record an attribution observation", metadata: ["app": "\(app.id)", "error": "\(error)"])
        }
    }

    /// The pseudonym of a user id that the app's links may carry (`UserClickToken`): the same for the same user id,
    /// app and environment, and made only with the server's key.
    func userClickToken(userID: String, appID: String, environment: APIEnvironment) -> String {
        UserClickToken.prefix + hasher.hash(text: UserClickToken.hashedText(appID: appID, environment: environment.rawValue, userID: userID))
    }

    /// The key a pending observation is stored under: a keyed hash, so that the install id itself is not kept.
    func observationKey(installID: String, appID: String, environment: APIEnvironment) -> String {
        hasher.hash(text: "observation:" + appID + "|" + environment.rawValue + "|" + installID)
    }

    /// A user bound to an install labels the install's observation, while it is pending, with the person's last click
    /// before the install (in its attribution window, on its platform) that carried their token: a click known to be
    /// theirs, which is how the app's learnt model sees installs the deterministic tiers cannot name. Best effort, as
    /// recording is; the install's answer does not change.
    func labelObservation(userID: String, installID: String, app: App, environment: APIEnvironment) async {
        guard app.attribution.model != .fixed else { return }
        do {
            let key = observationKey(installID: installID, appID: app.id, environment: environment)
            // Only unlabelled observations are kept pending (`observe`).
            guard let pending = try await store.pendingObservation(appID: app.id, environment: environment, installKey: key),
                  pending.observedAt >= now().addingTimeInterval(-AttributionObservationRecord.pendingHorizon),
                  let platform = Self.clientPlatform(of: pending.observation.install.signals) else { return }
            let install = pending.observation.install
            let clicks = try await store.userClicks(appID: app.id, environment: environment,
                                                    userToken: userClickToken(userID: userID, appID: app.id, environment: environment),
                                                    platform: platform, from: install.at.addingTimeInterval(-pending.observation.window), to: install.at,
                                                    limit: 1)
            guard var click = clicks.first else { return }
            // As it was offered to the install, when it was (its hashes as they were then).
            if let offered = pending.observation.candidates.clicks.first(where: { $0.clickID == click.clickID }) { click = offered }
            var labelled = pending.observation
            labelled.label = .userClick(click)
            if try await store.labelObservation(id: pending.id, observation: labelled.anonymised()) {
                logger.debug("attribution observation labelled by its user's click", metadata: ["app": "\(app.id)"])
            }
        } catch {
            logger.warning("cannot label an attribution observation", metadata: ["app": "\(app.id)", "error": "\(error)"])
        }
    }

    /// The platform of an install's clicks, from what its SDK says it runs on.
    static func clientPlatform(of signals: DeviceSignals) -> ClientPlatform? {
        switch signals.platform {
        case "ios", "iphone", "ipad", "ipados": .iOS
        case "android": .android
        default: nil
        }
    }
}
#endif
