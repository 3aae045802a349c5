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

    /// Stores what an answer was made from, anonymised.
    func observe(_ label: LearningObservation.Label, install: InstallEvidence, candidates: CandidateSet, app: App, environment: APIEnvironment) async {
        let observation = LearningObservation(install: install, candidates: candidates, window: app.attribution.window, label: label).anonymised()
        do {
            try await store.recordObservation(AttributionObservationRecord(appID: app.id, environment: environment, observedAt: install.at,
                                                                           observation: observation))
        } catch {
            logger.warning("cannot record an attribution observation", metadata: ["app": "\(app.id)", "error": "\(error)"])
        }
    }
}
#endif
