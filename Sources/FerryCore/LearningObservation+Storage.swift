import FerryAPI
import Foundation

/// How an observation is kept between the install it describes and the refits that learn from it: anonymised, and as
/// JSON that reads back to the same values.
extension LearningObservation {
    /// The observation with every address and network hash, and every click id, replaced by a token that only says
    /// which of them are equal within this observation: the install's address is `a0` and its network `n0`, any other
    /// distinct address `a1`, `a2`… and network `n1`, `n2`…, in the order they come (the install, its candidates, the
    /// label's click); click ids become `c0`, `c1`… in the candidates' order, and the label's click keeps its
    /// candidate's token when it is one of them. Nothing else changes: the matcher weighs the observation exactly as
    /// it weighs the original (it only ever compares hashes with each other, and never reads a click id), and no
    /// stored observation can be tied back to a client address or a click.
    package func anonymised() -> LearningObservation {
        var addresses = Tokens(prefix: "a"), networks = Tokens(prefix: "n"), clicks = Tokens(prefix: "c", next: 0)
        var result = self
        result.install.addressHash = install.addressHash.map { addresses.reserveZero(for: $0) }
        result.install.networkHash = install.networkHash.map { networks.reserveZero(for: $0) }
        func anonymise(_ click: ClickEvidence) -> ClickEvidence {
            var click = click
            click.clickID = clicks.token(for: click.clickID)
            click.addressHash = click.addressHash.map { addresses.token(for: $0) }
            click.networkHash = click.networkHash.map { networks.token(for: $0) }
            return click
        }
        result.candidates.clicks = candidates.clicks.map(anonymise)
        switch label {
        case .click(let click): result.label = .click(anonymise(click))
        case .userClick(let click): result.label = .userClick(anonymise(click))
        case .unlabelled, .organic: break
        }
        return result
    }

    /// Tokens handed out in order of first appearance; the same text always gets the same token.
    private struct Tokens {
        let prefix: String
        var next = 1
        var known: [String: String] = [:]

        init(prefix: String, next: Int = 1) {
            self.prefix = prefix
            self.next = next
        }

        /// `prefix0`, for the install's own hash (met first).
        mutating func reserveZero(for text: String) -> String {
            let token = prefix + "0"
            known[text] = token
            return token
        }

        mutating func token(for text: String) -> String {
            if let token = known[text] { return token }
            let token = prefix + String(next)
            next += 1
            known[text] = token
            return token
        }
    }
}

extension LearningObservation.Label {
    /// The three kinds of label, as stored.
    package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case click, organic, unlabelled
    }

    /// This label's kind (a user's click is a click).
    package var kind: Kind {
        switch self {
        case .unlabelled: .unlabelled
        case .click, .userClick: .click
        case .organic: .organic
        }
    }

    /// The click, for a label that names one.
    package var click: ClickEvidence? {
        switch self {
        case .click(let click), .userClick(let click): click
        case .unlabelled, .organic: nil
        }
    }
}

extension LearningObservation: Equatable {
    package static func == (lhs: LearningObservation, rhs: LearningObservation) -> Bool {
        lhs.install == rhs.install && lhs.candidates == rhs.candidates && lhs.window == rhs.window && lhs.label == rhs.label
            && (lhs.weight == rhs.weight || (lhs.weight.isNaN && rhs.weight.isNaN))
    }
}

/// `{"install": …, "candidates": …, "window": 86400, "label": "click", "click": {…}, "weight": 1}`; `click` only with a
/// `click` label, and `"source": "user"` beside it for a user's click.
extension LearningObservation: Codable {
    private enum CodingKeys: String, CodingKey { case install, candidates, window, label, click, source, weight }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let label: Label
        switch try container.decode(Label.Kind.self, forKey: .label) {
        case .unlabelled: label = .unlabelled
        case .organic: label = .organic
        case .click:
            let click = try container.decode(ClickEvidence.self, forKey: .click)
            label = try container.decodeIfPresent(String.self, forKey: .source) == "user" ? .userClick(click) : .click(click)
        }
        self.init(install: try container.decode(InstallEvidence.self, forKey: .install),
                  candidates: try container.decode(CandidateSet.self, forKey: .candidates),
                  window: try container.decode(TimeInterval.self, forKey: .window), label: label,
                  weight: try container.decodeIfPresent(Double.self, forKey: .weight) ?? 1)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(install, forKey: .install)
        try container.encode(candidates, forKey: .candidates)
        try container.encode(window, forKey: .window)
        try container.encode(label.kind, forKey: .label)
        if let click = label.click { try container.encode(click, forKey: .click) }
        if case .userClick = label { try container.encode("user", forKey: .source) }
        try container.encode(weight, forKey: .weight)
    }
}
