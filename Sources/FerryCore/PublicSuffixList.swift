/// The Public Suffix List (<https://publicsuffix.org>): the names under which anyone may register a domain (`com`,
/// `co.uk`, `github.io`…). No app may own one as a link domain, since it would answer for every domain registered
/// under it that no other app claims.
///
/// Built from the list's own text format: one rule a line, `//` comments, `*.` wildcard rules and `!` exceptions,
/// international rules in Unicode (matched here in their punycode form, the only form link domains take). Both the
/// ICANN and the private sections count: `github.io` is as shared as `co.uk`.
package struct PublicSuffixList: Sendable {
    private var rules: Set<String> = []
    /// `ck` for the rule `*.ck`.
    private var wildcards: Set<String> = []
    /// `www.ck` for the rule `!www.ck`.
    private var exceptions: Set<String> = []

    /// How many rules the list holds.
    package var count: Int { rules.count + wildcards.count + exceptions.count }

    /// Reads the list's text format.
    package init(text: String) {
        for rawLine in text.split(whereSeparator: \.isNewline) {
            // A rule ends at the first white space; a comment line starts with `//`.
            guard let word = rawLine.split(whereSeparator: \.isWhitespace).first, !word.hasPrefix("//") else { continue }
            guard let rule = Self.asciiName(word.lowercased()) else { continue }
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else {
                rules.insert(rule)
            }
        }
    }

    /// Whether `host` (lowercase, punycode, without a port) is itself a public suffix. A name of one label always is
    /// (the list's implicit `*` rule).
    package func isPublicSuffix(_ host: some StringProtocol) -> Bool {
        let host = String(host)
        if exceptions.contains(host) { return false }
        if rules.contains(host) { return true }
        guard let dot = host.firstIndex(of: ".") else { return true }
        return wildcards.contains(String(host[host.index(after: dot)...]))
    }

    /// A rule with its international labels in punycode (`公司.cn` → `xn--55qx5d.cn`); nil for one that cannot be.
    static func asciiName(_ rule: String) -> String? {
        if rule.utf8.allSatisfy({ $0 < 0x80 }) { return rule }
        var labels: [String] = []
        for label in rule.split(separator: ".", omittingEmptySubsequences: false) {
            if label.utf8.allSatisfy({ $0 < 0x80 }) {
                labels.append(String(label))
            } else {
                guard let encoded = Punycode.encode(String(label)) else { return nil }
                labels.append("xn--" + encoded)
            }
        }
        return labels.joined(separator: ".")
    }
}

/// Punycode (RFC 3492), the encoding of international domain labels: only what is needed to compare names that
/// arrive in Unicode (the public suffix list's) with link domains, which are given in their ASCII form.
enum Punycode {
    private static let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700, initialBias = 72, initialN = 128

    /// The ASCII encoding of a label's code points (without the `xn--` prefix); nil on overflow.
    static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map { Int($0.value) }
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN, delta = 0, bias = initialBias
        while handled < input.count {
            guard let next = input.filter({ $0 >= n }).min() else { return nil }
            let (product, overflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow else { return nil }
            delta += product
            n = next
            for code in input {
                if code < n { delta += 1 }
                if code == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta: delta, points: handled + 1, first: handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    private static func digit(_ value: Int) -> Character {
        Character(Unicode.Scalar(UInt8(value < 26 ? 97 + value : 22 + value)))
    }

    private static func adapt(delta: Int, points: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
