import FerryCore
import Foundation

/// Where Ferry's probabilistic tier and the unambiguous-only rule part ways: the click-caused installs the rule ties
/// to their click and Ferry does not, and the other way round, counted by what Ferry said (declined and why, with its
/// likeliest click's posterior, or a wrong click), by the delay since the true click, and by how many clicks the
/// install's address had. Also the organic installs Ferry matched, by the same counts.
struct MissAnalysis {
    let population: Population
    let ferry: [InstallOutcome]
    let rule: [InstallOutcome]

    /// Ferry's and the rule's outcome of each measured install both answered on the probabilistic tier.
    var probabilistic: [(ferry: InstallOutcome, rule: InstallOutcome)] {
        zip(ferry, rule).filter { $0.0.tier == .probabilistic && $0.1.tier == .probabilistic && population.installs[$0.0.install].t >= 0 }
    }
    /// The installs the rule ties to their click and Ferry does not.
    var lost: [(ferry: InstallOutcome, rule: InstallOutcome)] { probabilistic.filter { $0.rule.correct && !$0.ferry.correct } }
    /// The installs Ferry ties to their click and the rule does not.
    var won: [(ferry: InstallOutcome, rule: InstallOutcome)] { probabilistic.filter { !$0.rule.correct && $0.ferry.correct } }

    /// How many of `pairs` fall under each key.
    func counts(_ pairs: [(ferry: InstallOutcome, rule: InstallOutcome)], key: (InstallOutcome, SimInstall) -> String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for pair in pairs { counts[key(pair.ferry, population.installs[pair.ferry.install]), default: 0] += 1 }
        return counts
    }

    /// Ferry's answer and its likeliest posterior (the match's, or the decline's likeliest candidate's).
    static func answerAndPosterior(_ outcome: InstallOutcome) -> String {
        "\(answer(outcome)) \(posteriorBand(outcome.posterior ?? outcome.declinedPosterior))"
    }

    /// The delay band of an install `delay` seconds after its click.
    static func delayBand(_ delay: Double) -> String {
        switch delay {
        case ..<120: "< 2 min"
        case ..<1800: "2–30 min"
        case ..<7200: "30 min–2 h"
        case ..<28_800: "2–8 h"
        default: "8–24 h"
        }
    }

    static func posteriorBand(_ posterior: Double?) -> String {
        guard let posterior else { return "none" }
        switch posterior {
        case ..<0.3: return "< 0.3"
        case ..<0.5: return "0.3–0.5"
        case ..<0.7: return "0.5–0.7"
        case ..<0.85: return "0.7–0.85"
        default: return "≥ 0.85"
        }
    }

    /// What Ferry said about an install.
    static func answer(_ outcome: InstallOutcome) -> String {
        if outcome.matchedClick != nil { return outcome.correct ? "right" : "wrong click" }
        return "declined " + (outcome.decline?.rawValue ?? "?")
    }

    /// How many clicks the install's address had in the day before it.
    func addressClicks(_ install: SimInstall) -> String {
        let count = population.clicks.filter {
            $0.evidence.addressHash == install.endpoint.address && $0.t <= install.t && install.t - $0.t < population.config.window
        }.count
        switch count {
        case 0: return "0"
        case 1: return "1"
        case 2: return "2"
        case 3...5: return "3–5"
        default: return "6+"
        }
    }

    func render() -> String {
        var out: [String] = []
        func table(_ title: String, _ pairs: [(ferry: InstallOutcome, rule: InstallOutcome)], key: (InstallOutcome, SimInstall) -> String) {
            var text = TextTable(header: [title, "installs"])
            text.leftAligned.insert(0)
            for (name, count) in counts(pairs, key: key).sorted(by: { $0.value > $1.value }) { text.rows.append([name, "\(count)"]) }
            out.append(text.render())
        }
        let probabilistic = self.probabilistic, lost = self.lost, won = self.won
        out.append("Click-caused installs the rule ties to their click and Ferry does not: \(lost.count); the other way round: \(won.count)")
        func delay(_ install: SimInstall) -> String {
            guard case .clicked(_, let delay) = install.truth else { return "organic" }
            return Self.delayBand(delay)
        }
        table("lost: Ferry's answer, likeliest posterior", lost) { outcome, _ in Self.answerAndPosterior(outcome) }
        table("lost: delay, address clicks", lost) { "\(delay($1)), \(addressClicks($1)) clicks" }
        table("won: delay, address clicks", won) { "\(delay($1)), \(addressClicks($1)) clicks" }
        let organic = probabilistic.filter { pair in
            if case .organic = population.installs[pair.ferry.install].truth { return pair.ferry.matchedClick != nil }
            return false
        }
        out.append("Organic installs Ferry matched: \(organic.count)")
        table("organic matched: posterior, address clicks", organic) { "\(Self.posteriorBand($0.posterior)), \(addressClicks($1)) clicks, " + ($1.scenarios.contains(.organicNearClick) ? "near a click" : "unrelated") }
        let declinedRight = probabilistic.filter { $0.ferry.matchedClick == nil && population.installs[$0.ferry.install].truth.clickIndex != nil && $0.ferry.trueClickOffered }
        table("click-caused, offered, declined: posterior, delay", declinedRight) { "\(Self.posteriorBand($0.declinedPosterior)), \(delay($1))" }
        return out.joined(separator: "\n")
    }
}
