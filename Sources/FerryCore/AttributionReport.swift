import FerryAPI
import Foundation

/// What `ferry attribution report` prints and the dashboard's attribution page shows: the model an app answers with,
/// its parameters beside the prior's, how it does on the app's labelled installs (`AttributionEvaluation`) and the
/// versions fitted so far.
package struct AttributionReport: Sendable, Hashable, Codable {
    package var appID: String
    package var environment: APIEnvironment
    /// `fixed` or `learned`: what the app answers with.
    package var model: AttributionSettings.Model
    /// The active fitted version, nil when none was fitted yet.
    package var active: Version?
    /// The fitted model's parameters beside the learner's prior (empty without a fitted version).
    package var parameters: [Parameter]
    /// The observations read for the evaluation, by label, and since when.
    package var observations: Counts
    /// How the model the app answers with does on them.
    package var evaluation: AttributionEvaluation
    /// The newest versions, newest first.
    package var versions: [Version]

    /// One fitted version.
    package struct Version: Sendable, Hashable, Codable {
        package var version: Int
        package var createdAt: Date
        /// `active` or `superseded`.
        package var status: String
        /// Observations it was fitted on.
        package var observations: Int

        package init(version: Int, createdAt: Date, status: String, observations: Int) {
            self.version = version
            self.createdAt = createdAt
            self.status = status
            self.observations = observations
        }
    }

    /// One parameter, as people read it.
    package struct Parameter: Sendable, Hashable, Codable {
        package var name: String
        package var prior: String
        package var fitted: String
    }

    /// Observations by label.
    package struct Counts: Sendable, Hashable, Codable {
        package var total = 0
        package var labelled = 0
        package var organic = 0
        package var unlabelled = 0
        /// The oldest one read.
        package var since: Date?

        package init() {}

        /// The counts of these observations, made at these times.
        package init(_ observations: [LearningObservation], oldest: Date?) {
            total = observations.count
            for observation in observations {
                switch observation.label {
                case .unlabelled: unlabelled += 1
                case .organic: organic += 1
                case .click, .userClick: labelled += 1
                }
            }
            since = oldest
        }
    }

    package init(appID: String, environment: APIEnvironment, model: AttributionSettings.Model, active: Version?, parameters: [Parameter],
                 observations: Counts, evaluation: AttributionEvaluation, versions: [Version]) {
        self.appID = appID
        self.environment = environment
        self.model = model
        self.active = active
        self.parameters = parameters
        self.observations = observations
        self.evaluation = evaluation
        self.versions = versions
    }

    /// The parameters of `fitted` beside those of `prior`, for an app whose attribution window is `window`.
    package static func parameters(prior: MatchModel, fitted: MatchModel, window: TimeInterval) -> [Parameter] {
        let priorSummary = AttributionModelSummary(model: prior, observations: [], window: window)
        let fittedSummary = AttributionModelSummary(model: fitted, observations: [], window: window)
        var rows: [Parameter] = [
            Parameter(name: "installs from a click, iOS", prior: percent(prior.clickedShare), fitted: percent(fitted.clickedShare)),
            Parameter(name: "installs from a click, Android", prior: percent(prior.androidClickedShare), fitted: percent(fitted.androidClickedShare)),
        ]
        // By how many clicks came from the install's address in the window (`MatchModel.addressBucket`), when either
        // model has them.
        let buckets = ["no click", "1 click", "2 clicks", "3–5 clicks", "6–20 clicks", "over 20 clicks"]
        if prior.clickedShareByAddress != nil || fitted.clickedShareByAddress != nil {
            for (platform, name) in ["iOS", "Android"].enumerated() {
                for (bucket, clicks) in buckets.enumerated() {
                    func share(_ model: MatchModel) -> String {
                        guard let table = model.clickedShareByAddress, table.count == 2, table[platform].count == buckets.count else { return "—" }
                        return percent(table[platform][bucket])
                    }
                    rows.append(Parameter(name: "…\(name), \(clicks) from its address", prior: share(prior), fitted: share(fitted)))
                }
            }
        }
        for (share, (before, after)) in zip(AttributionModelSummary.DelayQuantile.shares, zip(priorSummary.delayQuantiles, fittedSummary.delayQuantiles)) {
            rows.append(Parameter(name: "first launch within, \(Int(share * 100))% of installs", prior: duration(before.seconds), fitted: duration(after.seconds)))
        }
        // How much commoner than an even spread an unrelated click is at each delay before an install, when learnt.
        if prior.unrelatedDelays != nil || fitted.unrelatedDelays != nil {
            for (bin, name) in UnrelatedDelays.binNames.enumerated() {
                func factor(_ model: MatchModel) -> String {
                    model.unrelatedDelays.map { number($0.factor(UnrelatedDelays.starts[bin]), digits: 2) + "×" } ?? "even"
                }
                rows.append(Parameter(name: "unrelated clicks \(name) before an install, against an even spread", prior: factor(prior), fitted: factor(fitted)))
            }
        }
        rows += [
            Parameter(name: "network changed after a long delay", prior: percent(prior.networkChangeShare), fitted: percent(fitted.networkChangeShare)),
            Parameter(name: "…half of those changed within", prior: duration(prior.networkChangeTime * Foundation.log(2)),
                      fitted: duration(fitted.networkChangeTime * Foundation.log(2))),
            Parameter(name: "least posterior matched by default, clicks with page signals", prior: number(prior.acceptThreshold(rich: true), digits: 3),
                      fitted: number(fitted.acceptThreshold(rich: true), digits: 3)),
            Parameter(name: "…clicks that were HTTP requests only", prior: number(prior.acceptThreshold(rich: false), digits: 3),
                      fitted: number(fitted.acceptThreshold(rich: false), digits: 3)),
            Parameter(name: "nothing shared with its click", prior: percent(prior.pNoSharedKey), fitted: percent(fitted.pNoSharedKey)),
            Parameter(name: "same OS version as its click", prior: percent(prior.pSameOS), fitted: percent(fitted.pSameOS)),
            Parameter(name: "same screen as its click", prior: percent(prior.pSameScreen), fitted: percent(fitted.pSameScreen)),
            Parameter(name: "same time zone as its click", prior: percent(prior.pSameTimeZone), fitted: percent(fitted.pSameTimeZone)),
            Parameter(name: "same first language as its click", prior: percent(prior.pSameLanguage), fitted: percent(fitted.pSameLanguage)),
        ]
        return rows
    }

    /// The segments with labelled installs, in their order.
    package var segmentCells: [(segment: AttributionEvaluation.Segment, cell: AttributionEvaluation.Cell)] {
        AttributionEvaluation.Segment.allCases.compactMap { segment in evaluation.segments[segment].map { (segment, $0) } }
    }

    /// What precision and recall are measured at, in words.
    package var thresholdText: String {
        evaluation.minConfidence.map { "minConfidence \(Self.number($0, digits: 2))" } ?? "the app's default (no minConfidence of its own)"
    }

    /// The report as text.
    package var text: String {
        var lines: [String] = []
        let fitted = active.map { "version \($0.version), fitted \(Self.date($0.createdAt)) on \(Self.count($0.observations)) observations" } ?? "no version fitted yet"
        lines.append("Attribution model of \(appID) (\(environment.rawValue)): answers with the \(model.rawValue) model; \(fitted)")
        if model == .fixed {
            lines.append("  (the app answers with the fixed model until --attribution-model learned; its observations are kept meanwhile)")
        }
        lines.append("")
        let since = observations.since.map { " since \(Self.date($0))" } ?? ""
        lines.append("Observations read\(since): \(Self.count(observations.total)) — labelled \(Self.count(observations.labelled)), "
            + "organic \(Self.count(observations.organic)), unlabelled \(Self.count(observations.unlabelled))")
        if !parameters.isEmpty {
            lines.append("")
            lines.append("Parameters")
            lines.append(TextTable(header: ["parameter", "prior", "fitted"], rows: parameters.map { [$0.name, $0.prior, $0.fitted] }).render())
        }
        lines.append("")
        lines.append("Accuracy on labelled installs at \(thresholdText), each answered as if it had carried no click token or referrer")
        var accuracy = TextTable(header: ["segment", "labelled", "matched", "right", "precision", "recall"])
        for (name, cell) in [("all", evaluation.overall)] + segmentCells.map({ ($0.segment.title, $0.cell) }) {
            accuracy.rows.append([name, Self.count(cell.labelled), Self.count(cell.answered), Self.count(cell.correct),
                                  cell.precision.map { Self.percent($0) } ?? "—", cell.recall.map { Self.percent($0) } ?? "—"])
        }
        lines.append(accuracy.render())
        if let rate = evaluation.organicFalseRate {
            lines.append("  organic installs (Play Store referrer without a click) attributed to a click: "
                + "\(Self.count(evaluation.organicAttributed)) of \(Self.count(evaluation.organic)) (\(Self.percent(rate)))")
        }
        lines.append("")
        lines.append("Calibration: every match stated at 0.40 or more, by band of stated confidence")
        var bands = TextTable(header: ["stated", "matches", "mean stated", "observed", "gap"])
        for band in evaluation.overall.calibration.bands where band.count > 0 {
            bands.rows.append(["\(Self.number(band.low, digits: 2))–\(Self.number(min(1, band.high), digits: 2))", Self.count(band.count),
                               Self.number(band.meanConfidence), Self.number(band.precision), Self.signed(band.precision - band.meanConfidence)])
        }
        lines.append(bands.rows.isEmpty ? "  no matches" : bands.render())
        var errors = TextTable(header: ["segment", "matches", "ECE"])
        for (name, calibration) in [("all", evaluation.overall.calibration)] + segmentCells.map({ ($0.segment.title, $0.cell.calibration) })
        where name == "all" || calibration.count > 0 {
            errors.rows.append([name, Self.count(calibration.count), Self.errorText(calibration)])
        }
        lines.append("")
        lines.append(errors.render())
        if !versions.isEmpty {
            lines.append("")
            lines.append("Versions")
            lines.append(TextTable(header: ["version", "fitted", "observations", "status"],
                                   rows: versions.map { ["\($0.version)", Self.date($0.createdAt), Self.count($0.observations), $0.status] },
                                   leftAligned: [1, 3]).render())
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A calibration error as read: `0.012`, with a warning below `CalibrationError.minimumCount` matches, `—` without.
    package static func errorText(_ calibration: CalibrationError) -> String {
        guard calibration.count > 0 else { return "—" }
        return number(calibration.value) + (calibration.isMeasured ? "" : " (fewer than \(CalibrationError.minimumCount) matches)")
    }

    package static func percent(_ value: Double) -> String { value.isFinite ? String(format: "%.1f%%", value * 100) : "—" }
    package static func number(_ value: Double, digits: Int = 3) -> String { value.isFinite ? String(format: "%.\(digits)f", value) : "—" }
    package static func signed(_ value: Double) -> String { value.isFinite ? String(format: "%+.3f", value) : "—" }

    /// 1,234,567.
    package static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// 45 s, 12 min, 3.4 h.
    package static func duration(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else { return "—" }
        if seconds < 90 { return "\(Int(seconds.rounded())) s" }
        if seconds < 90 * 60 { return "\(Int((seconds / 60).rounded())) min" }
        return String(format: "%.1f h", seconds / 3600)
    }

    /// 2026-01-12 06:00 UTC.
    package static func date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d UTC", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }
}
