import FerryAPI
import Foundation

/// A line chart of clicks and installs per day, as SVG markup made only of numbers and escaped dates (no script, no
/// style attributes: it sits inside a page whose CSP allows neither).
package enum StatsChart {
    /// The chart of a report's days: clicks and installs, and with `opens` the opens by a link too.
    package static func svg(days: [StatsDay], opens: Bool = false, width: Int = 720, height: Int = 220) -> String {
        let left = 44.0, right = 24.0, top = 12.0, bottom = 28.0
        let plotWidth = Double(width) - left - right, plotHeight = Double(height) - top - bottom
        let peak = max(1, days.map { max($0.clicks, $0.installs, opens ? $0.opens : 0) }.max() ?? 1)
        let scale = niceCeiling(peak)
        func x(_ index: Int) -> Double { days.count <= 1 ? left + plotWidth / 2 : left + plotWidth * Double(index) / Double(days.count - 1) }
        func y(_ value: Int) -> Double { top + plotHeight * (1 - Double(value) / Double(scale)) }
        func format(_ value: Double) -> String { String(format: "%.1f", value) }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\" aria-label=\"Clicks\(opens ? ", installs and opens" : " and installs") per day\">"
        for step in 0...4 {
            let value = scale * step / 4, line = format(y(value))
            out += "<line x1=\"\(Int(left))\" x2=\"\(width - Int(right))\" y1=\"\(line)\" y2=\"\(line)\" stroke=\"#e3e6ea\" stroke-width=\"1\"/>"
            out += "<text x=\"\(Int(left) - 6)\" y=\"\(line)\" text-anchor=\"end\" dominant-baseline=\"middle\" font-size=\"11\" fill=\"#5b6470\">\(value)</text>"
        }
        let labelEvery = max(1, days.count / 6)
        for (index, day) in days.enumerated() where index % labelEvery == 0 || index == days.count - 1 {
            out += "<text x=\"\(format(x(index)))\" y=\"\(height - 8)\" text-anchor=\"middle\" font-size=\"11\" fill=\"#5b6470\">\(HTML.escape(String(day.date.dropFirst(5))))</text>"
        }
        for (series, color) in [(days.map(\.clicks), "#2563eb"), (days.map(\.installs), "#16a34a")] + (opens ? [(days.map(\.opens), "#d97706")] : []) {
            let points = series.enumerated().map { "\(format(x($0.offset))),\(format(y($0.element)))" }.joined(separator: " ")
            out += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points)\"/>"
        }
        for (index, day) in days.enumerated() {
            out += "<circle cx=\"\(format(x(index)))\" cy=\"\(format(y(day.clicks)))\" r=\"2.5\" fill=\"#2563eb\"><title>\(HTML.escape(day.date)): \(day.clicks) clicks, \(day.installs) installs\(opens ? ", \(day.opens) opens" : "")</title></circle>"
        }
        return out + "</svg>"
    }

    /// The smallest of 1, 2, 5 × 10ⁿ (times 4, for the grid's four steps) at or above a value.
    static func niceCeiling(_ value: Int) -> Int {
        var magnitude = 1
        while true {
            for factor in [1, 2, 5] where factor * magnitude * 4 >= value { return factor * magnitude * 4 }
            magnitude *= 10
        }
    }
}
