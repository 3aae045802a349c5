import Foundation

/// The calibration curve of an app's labelled installs as SVG: observed share right against stated confidence, one
/// line for all matches and one per segment, each band a dot whose area grows with its matches, beside the diagonal a
/// calibrated model follows. Made only of numbers and escaped text (no script, no style attributes), like
/// `StatsChart`, so that it sits in a page whose CSP allows neither, and opens alone as a file.
package enum CalibrationChart {
    /// The series' colours: all matches, then each segment in `AttributionEvaluation.Segment.allCases` order.
    static let colours = ["#111827", "#2563eb", "#d97706", "#16a34a", "#9333ea", "#dc2626"]

    /// The chart of an evaluation.
    package static func svg(_ evaluation: AttributionEvaluation, width: Int = 640, plotHeight: Int = 340) -> String {
        var series: [(name: String, calibration: CalibrationError)] = [("all matches", evaluation.overall.calibration)]
        for segment in AttributionEvaluation.Segment.allCases {
            if let cell = evaluation.segments[segment], cell.calibration.count > 0 { series.append((segment.title, cell.calibration)) }
        }
        // The legend goes under the axis's title, a line per series.
        let left = 52.0, right = 24.0, top = 16.0, bottom = 44.0, legendLine = 18.0
        let height = Int(top + Double(plotHeight) + bottom + legendLine * Double(series.count) + 8)
        let plotWidth = Double(width) - left - right, plotHeight = Double(plotHeight)
        let low = CalibrationError.edges.first ?? 0.4
        func x(_ stated: Double) -> Double { left + plotWidth * (min(1, max(low, stated)) - low) / (1 - low) }
        func y(_ observed: Double) -> Double { top + plotHeight * (1 - min(1, max(0, observed))) }
        func format(_ value: Double) -> String { String(format: "%.1f", value) }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\""
            + " role=\"img\" aria-label=\"Calibration: share of matches right against the confidence stated\">"
        out += "<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>"
        for step in 0...5 {
            let observed = Double(step) / 5, line = format(y(observed))
            out += "<line x1=\"\(Int(left))\" x2=\"\(format(x(1)))\" y1=\"\(line)\" y2=\"\(line)\" stroke=\"#e3e6ea\" stroke-width=\"1\"/>"
            out += "<text x=\"\(Int(left) - 6)\" y=\"\(line)\" text-anchor=\"end\" dominant-baseline=\"middle\" font-size=\"11\" fill=\"#5b6470\">\(String(format: "%.1f", observed))</text>"
        }
        for step in 0...6 {
            let stated = low + (1 - low) * Double(step) / 6, column = format(x(stated))
            out += "<line x1=\"\(column)\" x2=\"\(column)\" y1=\"\(format(y(1)))\" y2=\"\(format(y(0)))\" stroke=\"#f0f2f4\" stroke-width=\"1\"/>"
            out += "<text x=\"\(column)\" y=\"\(format(y(0) + 16))\" text-anchor=\"middle\" font-size=\"11\" fill=\"#5b6470\">\(String(format: "%.1f", stated))</text>"
        }
        out += "<text x=\"\(format(left + plotWidth / 2))\" y=\"\(format(top + plotHeight + bottom - 8))\" text-anchor=\"middle\" font-size=\"12\" fill=\"#374151\">confidence stated</text>"
        out += "<text x=\"14\" y=\"\(format(top + plotHeight / 2))\" text-anchor=\"middle\" font-size=\"12\" fill=\"#374151\" transform=\"rotate(-90 14 \(format(top + plotHeight / 2)))\">share right</text>"
        // Where a calibrated model's dots lie.
        out += "<line x1=\"\(format(x(low)))\" y1=\"\(format(y(low)))\" x2=\"\(format(x(1)))\" y2=\"\(format(y(1)))\" stroke=\"#9ca3af\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>"
        let most = Double(max(1, series.flatMap { $0.calibration.bands.map(\.count) }.max() ?? 1))
        for (index, (name, calibration)) in series.enumerated() {
            let colour = colours[min(index, colours.count - 1)]
            let bands = calibration.bands.filter { $0.count > 0 }
            if bands.count > 1 {
                let points = bands.map { "\(format(x($0.meanConfidence))),\(format(y($0.precision)))" }.joined(separator: " ")
                out += "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"\(index == 0 ? 2.5 : 1.5)\" points=\"\(points)\"/>"
            }
            for band in bands {
                let radius = 2.5 + 7.5 * (Double(band.count) / most).squareRoot()
                out += "<circle cx=\"\(format(x(band.meanConfidence)))\" cy=\"\(format(y(band.precision)))\" r=\"\(format(radius))\" fill=\"\(colour)\" fill-opacity=\"0.55\">"
                    + "<title>\(HTML.escape(name)): \(band.count) matches stated \(String(format: "%.3f", band.meanConfidence)) on average, "
                    + "\(String(format: "%.3f", band.precision)) right</title></circle>"
            }
            let row = top + plotHeight + bottom + legendLine * (Double(index) + 0.5)
            out += "<circle cx=\"\(format(left + 6))\" cy=\"\(format(row))\" r=\"5\" fill=\"\(colour)\"/>"
            let error = calibration.count == 0 ? "" : String(format: " (ECE %.3f, n=%d)", calibration.value, calibration.count)
            out += "<text x=\"\(format(left + 16))\" y=\"\(format(row))\" dominant-baseline=\"middle\" font-size=\"11\" fill=\"#374151\">\(HTML.escape(name + error))</text>"
        }
        return out + "</svg>"
    }
}
