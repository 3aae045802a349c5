import FerryAPI
import Foundation

/// How a matcher does on an app's labelled installs: each install a click token or the Play Store referrer tied to its
/// click is answered again as if it had carried nothing (from the candidates it would then have been offered), and the
/// answer is compared with the click it came from; each install known to be organic is answered again too, and any
/// match of it is wrong. Precision and recall are at the app's minimum confidence; calibration is over every match
/// stated at 0.40 or more (the lowest minimum an app may ask for), all together and by segment.
package struct AttributionEvaluation: Sendable, Hashable, Codable {
    /// How an install and the click it came from are related: what calibration is judged by.
    package enum Segment: String, Sendable, Hashable, Codable, CodingKeyRepresentable, CaseIterable {
        /// Same address, with at most `householdClicks` clicks from it in the window: a home's Wi-Fi.
        case household
        /// Same address, with more clicks from it: a carrier's NAT or an office.
        case sharedAddress = "shared_address"
        /// Another address of the same network.
        case network
        /// Nothing shared but the device's screen and time zone: someone who changed network.
        case switcher
        /// Nothing shared at all: the probabilistic tier cannot find the click.
        case unreachable

        /// More clicks than this from one address in the window make it shared.
        package static let householdClicks = 5

        /// How people read it.
        package var title: String {
            switch self {
            case .household: "household address"
            case .sharedAddress: "shared address (carrier NAT, office)"
            case .network: "same network, other address"
            case .switcher: "changed network"
            case .unreachable: "nothing shared"
            }
        }

        /// The segment of an install and its click.
        package static func of(install: InstallEvidence, click: ClickEvidence, candidates: CandidateSet) -> Segment {
            if let address = install.addressHash, address == click.addressHash {
                return candidates.sameAddressClicks <= householdClicks ? .household : .sharedAddress
            }
            if let network = install.networkHash, network == click.networkHash { return .network }
            if let fingerprint = DeviceFingerprint.Parts(of: install.signals), fingerprint == DeviceFingerprint.Parts(of: click) { return .switcher }
            return .unreachable
        }
    }

    /// The figures of a set of labelled installs.
    package struct Cell: Sendable, Hashable, Codable {
        /// Installs tied to their click.
        package var labelled = 0
        /// …matched at the minimum confidence…
        package var answered = 0
        /// …to their own click.
        package var correct = 0
        /// Every match stated at 0.40 or more, by band of stated confidence.
        package var calibration = CalibrationError()

        /// Matched right among those matched, nil without matches.
        package var precision: Double? { answered == 0 ? nil : Double(correct) / Double(answered) }
        /// Matched right among all, nil without labelled installs.
        package var recall: Double? { labelled == 0 ? nil : Double(correct) / Double(labelled) }
    }

    /// The minimum confidence precision and recall are measured at; nil for the matcher's own threshold on the
    /// posterior (an app without a minimum of its own).
    package var minConfidence: Double?
    /// Every labelled install.
    package var overall = Cell()
    /// By segment, in `Segment.allCases` order, those with labelled installs only.
    package var segments: [Segment: Cell] = [:]
    /// Installs known to be organic…
    package var organic = 0
    /// …that the matcher attributes to a click at the minimum confidence.
    package var organicAttributed = 0

    /// Organic installs wrongly attributed, nil without any.
    package var organicFalseRate: Double? { organic == 0 ? nil : Double(organicAttributed) / Double(organic) }

    /// Evaluates `matcher` on the labelled ones of `observations` (unlabelled ones are skipped).
    package init(matcher: AttributionMatcher, observations: [LearningObservation], minConfidence: Double?) {
        self.minConfidence = minConfidence
        let lowest = MatchRequest.minConfidenceRange.lowerBound
        for observation in observations {
            switch observation.label {
            case .unlabelled:
                continue
            case .organic:
                organic += 1
                if case .matched = matcher.match(install: observation.install, candidates: observation.candidates, window: observation.window,
                                                 minConfidence: minConfidence) {
                    organicAttributed += 1
                }
            case .click(let truth), .userClick(let truth):
                let segment = Segment.of(install: observation.install, click: truth, candidates: observation.candidates)
                var cell = segments[segment] ?? Cell()
                cell.labelled += 1
                overall.labelled += 1
                let answer = matcher.match(install: observation.install, candidates: observation.candidates, window: observation.window,
                                           minConfidence: lowest)
                if case .matched(let clickID, _, let confidence) = answer {
                    let right = clickID == truth.clickID
                    cell.calibration.add(confidence: confidence, correct: right)
                    overall.calibration.add(confidence: confidence, correct: right)
                    // The same decision at the app's minimum: a stricter minimum only drops matches stated below it.
                    let kept = matcher.match(install: observation.install, candidates: observation.candidates, window: observation.window,
                                             minConfidence: minConfidence) == answer
                    if kept {
                        cell.answered += 1
                        overall.answered += 1
                        if right {
                            cell.correct += 1
                            overall.correct += 1
                        }
                    }
                }
                segments[segment] = cell
            }
        }
    }
}
