import FerryAPI
import FerryCore
import Foundation

/// Lists wrong matches with what the install and the chosen click had in common, to see what misleads the model.
enum Explanation {
    static func wrongMatches(population: Population, outcomes: [InstallOutcome], limit: Int) -> String {
        var table = TextTable(header: ["truth", "install on", "click on", "addr", "net", "screen", "zone", "lang", "os", "delay", "same-addr clicks", "posterior"])
        for outcome in outcomes where outcome.tier == .probabilistic && outcome.matchedClick != nil && !outcome.correct {
            guard table.rows.count < limit, let matched = outcome.matchedClick else { break }
            let install = population.installs[outcome.install]
            guard install.t >= 0 else { continue }
            let click = population.clicks[matched]
            let truth: String = switch install.truth {
            case .clicked(let index, _): population.clicks[index].device == click.device ? "same device" : "clicked"
            case .organic(let near): near ? "organic near" : "organic"
            }
            let signals = install.signals, e = click.evidence
            func mark(_ known: Bool, _ same: Bool) -> String { known ? (same ? "=" : "≠") : "?" }
            let delay = install.t - click.t
            table.rows.append([
                truth, install.endpoint.kind.rawValue, click.endpoint.kind.rawValue,
                mark(true, e.addressHash == install.endpoint.address), mark(true, e.networkHash == install.endpoint.network),
                mark(e.screenWidth != nil, e.screenWidth == signals.screenWidth && e.screenHeight == signals.screenHeight && e.screenScale == signals.screenScale),
                mark(e.timeZone != nil, e.timeZone == signals.timeZone),
                mark(!e.languages.isEmpty, e.languages.first?.lowercased() == signals.languages?.first?.lowercased()),
                "\(e.osVersion ?? "-")/\(signals.osVersion ?? "-")",
                delay < 3600 ? String(format: "%.0f min", delay / 60) : String(format: "%.1f h", delay / 3600),
                "\(population.clicks.filter { $0.evidence.addressHash == install.endpoint.address && abs($0.t - install.t) < 86_400 && $0.t <= install.t }.count)",
                Format.number(outcome.posterior ?? .nan),
            ])
        }
        return "Wrong matches\n" + table.render()
    }
}
