import Foundation

/// How sure the probabilistic matches were, as SVG: one bar per tenth of confidence (0–0.1 … 0.9–1), its height the
/// matches stated in it, and a dashed line at the least confidence the app answers with (below it, installs are
/// organic). Numbers and escaped text only, like `StatsChart`, for a page whose CSP allows no script or style.
package enum ConfidenceChart {
    /// The chart of ten bands' counts (`counts[0]` for 0 to 0.1); `least` marks the app's least confidence.
    package static func svg(counts: [Int], least: Double?, width: Int = 640, height: Int = 220) -> String {
        let bands = (0..<10).map { $0 < counts.count ? max(0, counts[$0]) : 0 }
        let left = 44.0, right = 16.0, top = 12.0, bottom = 40.0
        let plotWidth = Double(width) - left - right, plotHeight = Double(height) - top - bottom
        let scale = StatsChart.niceCeiling(max(1, bands.max() ?? 1))
        func x(_ confidence: Double) -> Double { left + plotWidth * min(1, max(0, confidence)) }
        func y(_ value: Int) -> Double { top + plotHeight * (1 - Double(value) / Double(scale)) }
        func format(_ value: Double) -> String { String(format: "%.1f", value) }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\""
            + " role=\"img\" aria-label=\"Probabilistic matches by the confidence stated\">"
        for step in 0...4 {
            let value = scale * step / 4, line = format(y(value))
            out += "<line x1=\"\(Int(left))\" x2=\"\(width - Int(right))\" y1=\"\(line)\" y2=\"\(line)\" stroke=\"#e3e6ea\" stroke-width=\"1\"/>"
            out += "<text x=\"\(Int(left) - 6)\" y=\"\(line)\" text-anchor=\"end\" dominant-baseline=\"middle\" font-size=\"11\" fill=\"#5b6470\">\(value)</text>"
        }
        for (index, count) in bands.enumerated() {
            let low = Double(index) / 10, barLeft = x(low) + 3, barWidth = plotWidth / 10 - 6
            if count > 0 {
                out += "<rect x=\"\(format(barLeft))\" y=\"\(format(y(count)))\" width=\"\(format(barWidth))\" height=\"\(format(y(0) - y(count)))\" fill=\"#2563eb\">"
                    + "<title>\(String(format: "%.1f", low))–\(String(format: "%.1f", low + 0.1)): \(count) match\(count == 1 ? "" : "es")</title></rect>"
            }
        }
        for tick in stride(from: 0, through: 10, by: 2) {
            out += "<text x=\"\(format(x(Double(tick) / 10)))\" y=\"\(format(y(0) + 16))\" text-anchor=\"middle\" font-size=\"11\" fill=\"#5b6470\">\(String(format: "%.1f", Double(tick) / 10))</text>"
        }
        out += "<text x=\"\(format(left + plotWidth / 2))\" y=\"\(height - 4)\" text-anchor=\"middle\" font-size=\"11\" fill=\"#5b6470\">confidence stated</text>"
        if let least {
            let line = format(x(least))
            out += "<line x1=\"\(line)\" x2=\"\(line)\" y1=\"\(Int(top))\" y2=\"\(format(y(0)))\" stroke=\"#dc2626\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/>"
            out += "<text x=\"\(line)\" y=\"\(Int(top) + 10)\" dx=\"4\" font-size=\"11\" fill=\"#991b1b\">least \(String(format: "%.2f", least))</text>"
        }
        return out + "</svg>"
    }
}
